package sessionstore

import (
	"io"
	"os"
	"syscall"
)

// SendRange writes f's bytes [off, off+n) to out with sendfile(2): the
// kernel copies them from the page cache, where a read and a write would
// copy them twice through this process (open's runs are most of a long
// path's bytes). ok is false when out takes no sendfile (an O_APPEND file,
// a terminal on some kernels) and nothing was written: copy them then.
func SendRange(out, f *os.File, off, n int64) (ok bool, err error) {
	dst, err := out.SyscallConn()
	if err != nil {
		return false, nil
	}
	src, err := f.SyscallConn()
	if err != nil {
		return false, nil
	}
	var sent int64
	var serr error
	cerr := src.Control(func(in uintptr) {
		werr := dst.Write(func(fd uintptr) bool {
			for sent < n {
				o := off + sent
				m, err := syscall.Sendfile(int(fd), int(in), &o, int(min(n-sent, 1<<30)))
				if m > 0 {
					sent += int64(m)
				}
				switch {
				case err == syscall.EAGAIN:
					return false // wait until out takes more
				case err == syscall.EINTR:
				case err != nil:
					serr = err
					return true
				case m == 0:
					serr = io.ErrUnexpectedEOF // the file is shorter than its index said
					return true
				}
			}
			return true
		})
		if serr == nil {
			serr = werr
		}
	})
	if sent == 0 && (serr == syscall.EINVAL || serr == syscall.ENOSYS) {
		return false, nil
	}
	if serr == nil {
		serr = cerr
	}
	return true, serr
}

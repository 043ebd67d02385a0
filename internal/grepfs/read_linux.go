package grepfs

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Regular files on a local file system are read and closed with raw
// system calls: no poller registration (os.Open's two extra calls per
// file), and no entersyscall/exitsyscall. The runtime's monitor hands the
// processor of a goroutine that sits in a system call to another thread
// after 20 µs; a search makes a few short calls per file, tens of
// thousands a second, and that hand-off (futex wake-ups, a monitor
// polling every 20 µs) cost more than the reads. A read of a file in the
// page cache returns in microseconds; a cold read holds one processor
// while the disk answers, which is what a search waits for anyway.
//
// A raw call blocks its thread without the scheduler knowing, so nothing
// that can wait indefinitely is done that way: the open and the fstat
// (a FIFO's open waits for its writer; on NFS or FUSE either can wait for
// a server), and the reads of a FIFO, a character device, a socket, or a
// file on a network or user-space file system use the ordinary,
// scheduler-aware calls.

type rawFile struct {
	fd  int
	raw bool // proven regular on a local file system
}

// openFile opens path for reading, with its size (-1 when unknown). The
// open and the fstat are scheduler-aware: a FIFO's open waits for its
// writer, and on NFS or FUSE either can wait for a server.
func openFile(path string) (rawFile, int64, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return rawFile{}, 0, err
	}
	for {
		fd, _, e := syscall.Syscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(p)),
			uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return rawFile{}, 0, e
		}
		var st syscall.Stat_t
		if _, _, e := syscall.Syscall(syscall.SYS_FSTAT, fd, uintptr(unsafe.Pointer(&st)), 0); e == 0 && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			return rawFile{fd: int(fd), raw: localDev(int(fd), st.Dev)}, st.Size, nil
		}
		return rawFile{fd: int(fd)}, -1, nil
	}
}

func (f rawFile) read(p []byte) (int, error) {
	for {
		var n uintptr
		var e syscall.Errno
		if f.raw {
			n, _, e = syscall.RawSyscall(syscall.SYS_READ, uintptr(f.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		} else {
			n, _, e = syscall.Syscall(syscall.SYS_READ, uintptr(f.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

func (f rawFile) close() {
	if f.raw {
		syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(f.fd), 0, 0)
		return
	}
	syscall.Close(f.fd)
}

// atFDCWD is AT_FDCWD (-100) as the call takes it.
var atFDCWD = ^uintptr(99)

// localDevs caches, by device number, whether a file system is local (a
// raw read of it cannot wait on a network or a user-space server).
var localDevs sync.Map

// localDev reports whether fd, on device dev, is on a local disk or
// memory file system: one fstatfs a device.
func localDev(fd int, dev uint64) bool {
	if l := lastDev.Load(); l != nil && l.dev == dev {
		return l.local // (a walk's files are mostly on one device: no map look-up)
	}
	if v, ok := localDevs.Load(dev); ok {
		lastDev.Store(&devLocal{dev, v.(bool)})
		return v.(bool)
	}
	var s syscall.Statfs_t
	local := false
	if _, _, e := syscall.RawSyscall(syscall.SYS_FSTATFS, uintptr(fd), uintptr(unsafe.Pointer(&s)), 0); e == 0 {
		local = localFSTypes[uint32(s.Type)]
	}
	localDevs.Store(dev, local)
	lastDev.Store(&devLocal{dev, local})
	return local
}

// devLocal is a device and whether it is local; lastDev is the one
// localDev answered last.
type devLocal struct {
	dev   uint64
	local bool
}

var lastDev atomic.Pointer[devLocal]

// localFSTypes are the statfs magic numbers of the file systems read raw.
var localFSTypes = map[uint32]bool{
	0xEF53:     true, // ext2/3/4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0x858458F6: true, // ramfs
	0x794C7630: true, // overlayfs
	0x2FC12FC1: true, // zfs
	0xF2F52010: true, // f2fs
	0x73717368: true, // squashfs
}

//go:build unix

package provider

import (
	"crypto/tls"
	"net"
	"syscall"
)

const canCheckAlive = true

// alive: the server has not closed c. A peek that would block (nothing
// to read) is an open connection; end of file or an error is a closed one.
// Bytes waiting are a closed plain connection (an HTTP server speaks only
// when spoken to: a 408 before closing) but not a TLS one, where the
// server's session tickets and HTTP/2 settings arrive unasked.
func alive(c net.Conn) bool {
	raw, isTLS := c, false
	if tc, ok := c.(*tls.Conn); ok {
		raw, isTLS = tc.NetConn(), true
	}
	sc, ok := raw.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var n int
	var perr error
	var buf [1]byte
	if err := rc.Read(func(fd uintptr) bool {
		n, _, perr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	}); err != nil {
		return false
	}
	switch {
	case perr == syscall.EAGAIN || perr == syscall.EWOULDBLOCK:
		return true
	case perr != nil || n == 0:
		return false
	default:
		return isTLS
	}
}

package fakellm

import (
	"net"
	"sync"
	"time"
)

// Delay is a TCP proxy on loopback that holds every byte for half a round
// trip in each direction before passing it on: a server on the loopback
// made to look as far away as a provider's (a connection's handshake,
// TLS's round trips and each request then cost rtt, as over a network;
// the bandwidth is the loopback's). It forwards to addr (host:port).
type Delay struct {
	Addr string // host:port to dial instead of addr
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	open map[net.Conn]bool
}

// NewDelay starts a proxy to addr with round trip rtt.
func NewDelay(addr string, rtt time.Duration) (*Delay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &Delay{Addr: ln.Addr().String(), ln: ln, open: map[net.Conn]bool{}}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				d.serve(c, addr, rtt/2)
			}()
		}
	}()
	return d, nil
}

// Close stops the proxy and closes its connections.
func (d *Delay) Close() {
	d.ln.Close()
	d.mu.Lock()
	for c := range d.open {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
}

func (d *Delay) track(c net.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.open[c] = true
}

func (d *Delay) serve(c net.Conn, addr string, oneWay time.Duration) {
	// The dial to the server is itself half a round trip away: the
	// client's SYN reached the proxy at once.
	time.Sleep(oneWay)
	s, err := net.Dial("tcp", addr)
	if err != nil {
		c.Close()
		return
	}
	d.track(c)
	d.track(s)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pipe(s, c, oneWay) }()
	go func() { defer wg.Done(); pipe(c, s, oneWay) }()
	wg.Wait()
	c.Close()
	s.Close()
	d.mu.Lock()
	delete(d.open, c)
	delete(d.open, s)
	d.mu.Unlock()
}

// pipe copies from src to dst, each read's bytes written oneWay after
// they were read; the end of src is passed on as dst's write side closed.
func pipe(dst, src net.Conn, oneWay time.Duration) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{time.Now().Add(oneWay), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for ch := range q {
		time.Sleep(time.Until(ch.at))
		if _, err := dst.Write(ch.data); err != nil {
			break
		}
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	} else {
		dst.Close()
	}
	go func() {
		for range q { // drain the reader, whose src ends when its peer closes
		}
	}()
}

package mcpclient

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancelWait bounds how long close waits for the notifications/cancelled of
// abandoned calls (the SDK's own bound on sending one).
const cancelWait = 5 * time.Second

// CancelWatch lets close wait for the notifications/cancelled of calls that
// were abandoned (a --tool-timeout, an interrupt, a cancel line). The SDK
// sends each off the caller's path, in a goroutine, so a command that exits
// right after the timeout would close the connection first and the server
// would never hear of it. The transports report each such notification they
// write (sent); callTool counts the calls it abandons (expect). A nil
// CancelWatch watches nothing.
type CancelWatch struct {
	mu         sync.Mutex
	want, seen int
	observed   bool // a transport reports what it writes (not the in-memory ones of tests)
	signal     chan struct{}
}

// cancelledMethod marks a notifications/cancelled on the wire.
var cancelledMethod = []byte(`"notifications/cancelled"`)

// Observe is called by a transport that will report its notifications.
func (w *CancelWatch) Observe() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.observed = true
	w.mu.Unlock()
}

func NewCancelWatch() *CancelWatch { return &CancelWatch{signal: make(chan struct{}, 1)} }

func (w *CancelWatch) Expect() {
	if w == nil {
		return
	}
	w.mu.Lock()
	if w.observed {
		w.want++
	}
	w.mu.Unlock()
}

// SentFunc is sent, or nil for a nil watch.
func (w *CancelWatch) SentFunc() func() {
	if w == nil {
		return nil
	}
	return w.sent
}

// sent is called by a transport for each notifications/cancelled it wrote
// (or tried to: a failed write ends the wait as well).
func (w *CancelWatch) sent() {
	w.mu.Lock()
	w.seen++
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

func (w *CancelWatch) Pending() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen < w.want
}

// Wait returns when every expected notification went out, the connection
// ended, or cancelWait passed.
func (w *CancelWatch) Wait(cs *mcp.ClientSession) {
	if !w.Pending() {
		return
	}
	ended := make(chan struct{})
	go func() {
		_ = cs.Wait() // returns once the connection is closed, by either side
		close(ended)
	}()
	timer := time.NewTimer(cancelWait)
	defer timer.Stop()
	for w.Pending() {
		select {
		case <-w.signal:
		case <-ended:
			return
		case <-timer.C:
			return
		}
	}
}

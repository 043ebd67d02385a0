package toolproto

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agentutils/agentutils/lib/event"
)

// Server is the running side of a tool process: one writer shared by
// every call, and the calls in flight, each answered by exactly one result.
type Server struct {
	w       *bufio.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	running map[string]context.CancelFunc
	asks    map[string]chan *event.Answer // requests waiting for their answer
	nask    int
	wg      sync.WaitGroup
}

// NewServer writes its messages to w.
func NewServer(w io.Writer) *Server {
	return &Server{w: bufio.NewWriter(w), running: map[string]context.CancelFunc{}, asks: map[string]chan *event.Answer{}}
}

// Ask sends a request of kind to the parent and waits for its answer (a
// cancelled one when ctx ends first).
func (s *Server) Ask(ctx context.Context, kind string, payload []byte) *event.Answer {
	ch := make(chan *event.Answer, 1)
	s.mu.Lock()
	s.nask++
	id := "q" + strconv.Itoa(s.nask)
	s.asks[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.asks, id)
		s.mu.Unlock()
	}()
	s.Send(&event.ToolAsk{RequestID: id, Kind: kind, Payload: payload})
	select {
	case a := <-ch:
		return a
	case <-ctx.Done():
		return &event.Answer{RequestID: id, Cancelled: true}
	}
}

// Answered hands an answer to the request waiting for it; it reports
// false when none is.
func (s *Server) Answered(a *event.Answer) bool {
	s.mu.Lock()
	ch, ok := s.asks[a.RequestID]
	delete(s.asks, a.RequestID)
	s.mu.Unlock()
	if ok {
		ch <- a
	}
	return ok
}

// Send writes one protocol message.
func (s *Server) Send(v any) {
	b, err := event.EncodeTool(v)
	if err != nil {
		return
	}
	s.SendLine(b)
}

// SendLine writes one line as it is.
func (s *Server) SendLine(b []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.w.Write(b)
	s.w.Flush()
}

// Go runs call id in its own goroutine and sends the result run returns,
// with its id and duration. It reports false, running nothing, when a
// call with that id is already running.
func (s *Server) Go(parent context.Context, id string, run func(ctx context.Context) *event.Result) bool {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	if _, dup := s.running[id]; dup {
		s.mu.Unlock()
		cancel()
		return false
	}
	s.running[id] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		start := time.Now()
		r := run(ctx)
		r.ID, r.DurationMs = id, time.Since(start).Milliseconds()
		s.mu.Lock()
		delete(s.running, id)
		s.mu.Unlock()
		cancel()
		s.Send(r)
	}()
	return true
}

// Cancel cancels call id ("" every running call).
func (s *Server) Cancel(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rid, cancel := range s.running {
		if id == "" || id == rid {
			cancel()
		}
	}
}

// Handlers are what Serve does with the parent's lines.
type Handlers struct {
	// Message gets each protocol message and its line number; an error
	// stops the reading.
	Message func(msg any, n int) error
	// BadLine gets a line that is not a protocol message; LongLine one
	// over MaxLine. Both lines are skipped.
	BadLine  func(n int, err error)
	LongLine func(n, size int)
}

// Serve reads the parent's messages from in until EOF (blank lines are
// skipped), then waits for the running calls to answer.
func (s *Server) Serve(in io.Reader, h Handlers) error {
	lr := NewLineReader(in, MaxLine, h.LongLine)
	for lr.Scan() {
		if len(bytes.TrimSpace(lr.Bytes())) == 0 {
			continue
		}
		msg, err := event.DecodeTool(lr.Bytes())
		if err != nil {
			h.BadLine(lr.Line(), err)
			continue
		}
		if err := h.Message(msg, lr.Line()); err != nil {
			return err
		}
	}
	s.Wait()
	return lr.Err()
}

// Wait waits for every running call's result (at EOF: a parent that
// wants them stopped sends cancel first).
func (s *Server) Wait() { s.wg.Wait() }

// Package fakellm is the fake model provider of the tests: an httptest
// server that answers the four wire APIs' endpoints from a script of steps
// (recorded SSE files replayed byte for byte, error statuses, a stream cut
// after N bytes, a hang) and records every request it received. It is the
// only fake in agentutils' tests; everything around it is real.
package fakellm

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"
)

// Step is one scripted answer, consumed in order.
type Step struct {
	SSE            string            // a file of SSE bytes to replay
	Body           []byte            // literal body (with Status)
	Status         int               // 0 = 200
	Headers        map[string]string // extra response headers (retry-after …)
	DropAfterBytes int               // cut the stream after this many bytes
	Hang           bool              // send headers, then nothing until the client gives up
	EventDelay     time.Duration     // pause between SSE events
	// AwaitRequests holds the answer until the server has received this
	// many requests in all: a test of concurrent calls has the first
	// answer wait for the second request.
	AwaitRequests int
}

// Request is what the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	// Open is how many earlier requests were still being answered when
	// this one arrived.
	Open int
}

// Server is a running fake provider.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	steps    []Step
	requests []Request
	open     int
	arrived  chan struct{} // closed and replaced at each request
	done     chan struct{}
	// OnRequest, when set, sees each request as it arrives (tests dump them).
	OnRequest func(n int, r Request)
}

// New starts a server answering with steps.
func New(steps ...Step) *Server {
	s := &Server{steps: steps, done: make(chan struct{}), arrived: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the server, releasing hanging handlers first.
func (s *Server) Close() {
	close(s.done)
	s.Server.Close()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Open: s.open}
	s.requests = append(s.requests, req)
	s.open++
	defer func() {
		s.mu.Lock()
		s.open--
		s.mu.Unlock()
	}()
	close(s.arrived)
	s.arrived = make(chan struct{})
	if s.OnRequest != nil {
		s.OnRequest(len(s.requests), req)
	}
	if len(s.steps) == 0 {
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"fakellm: no scripted step left"}}`, http.StatusInternalServerError)
		return
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	for len(s.requests) < st.AwaitRequests {
		arrived := s.arrived
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
		s.mu.Lock()
	}
	s.mu.Unlock()
	for k, v := range st.Headers {
		w.Header().Set(k, v)
	}
	if st.Status != 0 && st.Status != 200 {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(st.Status)
		w.Write(st.Body)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	if st.Hang {
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	data := st.Body
	if st.SSE != "" {
		var err error
		if data, err = os.ReadFile(st.SSE); err != nil {
			fmt.Fprintf(w, "event: error\ndata: fakellm: %v\n\n", err)
			return
		}
	}
	if st.DropAfterBytes > 0 && st.DropAfterBytes < len(data) {
		data = data[:st.DropAfterBytes]
	}
	if st.EventDelay == 0 {
		w.Write(data)
		return
	}
	for _, ev := range bytes.SplitAfter(data, []byte("\n\n")) {
		w.Write(ev)
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-time.After(st.EventDelay):
		case <-r.Context().Done():
			return
		}
	}
}

// ModelsTOML is a models.toml pointing a provider of the given api at the
// server; the key comes from the FAKE_KEY variable.
func (s *Server) ModelsTOML(provider, api, model string) string {
	return strings.Join([]string{
		"[providers." + provider + "]",
		`baseUrl = "` + s.URL + `"`,
		`api = "` + api + `"`,
		`apiKey = "FAKE_KEY"`,
		"",
		"[[providers." + provider + ".models]]",
		`id = "` + model + `"`,
		"reasoning = true",
		`input = ["text", "image"]`,
		"contextWindow = 1000",
		"maxTokens = 512",
		"cost = { input = 3, output = 15, cacheRead = 0.3, cacheWrite = 3.75 }",
		"",
	}, "\n")
}

package provider

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/lib/llm"
)

func hiContext() llm.Context {
	return llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("hi")}, Timestamp: 1}}}
}

// stream runs one call with c against m, at a fixed time.
func stream(t *testing.T, c *Client, m llm.Model) (llm.Message, []llm.Event) {
	t.Helper()
	var events []llm.Event
	got, err := c.Stream(context.Background(), m, hiContext(), llm.Options{APIKey: "k"}, func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	return got, events
}

// A request sent directly (on the client's own connection, without the
// transport) ends as one sent by the transport: an answer, an HTTP error,
// a stream cut short, a connection reset mid-stream, a server that closes
// the connection unanswered.
func TestDirectAsTheTransport(t *testing.T) {
	sse, err := os.ReadFile("../../testdata/sse/anthropic/text.sse")
	if err != nil {
		t.Fatal(err)
	}
	hijack := func(w http.ResponseWriter, then func(net.Conn)) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			then(conn)
		}
	}
	for name, h := range map[string]http.HandlerFunc{
		"answer": func(w http.ResponseWriter, r *http.Request) { w.Write(sse) },
		"529": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(529)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		},
		"cut": func(w http.ResponseWriter, r *http.Request) { w.Write(sse[:200]) },
		"reset": func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush()
			hijack(w, func(c net.Conn) {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
				fmt.Fprintf(c, "%x\r\n%s\r\n", 200, sse[:200])
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			})
		},
		"no answer": func(w http.ResponseWriter, r *http.Request) { hijack(w, func(c net.Conn) { c.Close() }) },
	} {
		t.Run(name, func(t *testing.T) {
			var msgs [2]llm.Message
			var evs [2][]llm.Event
			for i, direct := range []bool{false, true} {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.ReadAll(r.Body)
					h(w, r)
				}))
				m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 200000}
				c := &Client{HTTP: http.DefaultClient, Now: func() time.Time { return time.Unix(0, 0) }}
				if direct {
					done := c.Warm(http.DefaultTransport.(*http.Transport), srv.URL)
					defer done()
					if c.direct == nil {
						t.Fatal("nothing to send directly on")
					}
				}
				msgs[i], evs[i] = stream(t, c, m)
				srv.Close()
			}
			if d := cmp.Diff(msgs[0], msgs[1]); d != "" {
				t.Errorf("direct differs from the transport (-transport +direct):\n%s", d)
			}
			if d := cmp.Diff(evs[0], evs[1]); d != "" {
				t.Errorf("events differ (-transport +direct):\n%s", d)
			}
		})
	}
}

// sseServer answers every POST with the SSE file, counting connections.
func sseServer(t *testing.T, cc *connCounter, tls bool) *httptest.Server {
	sse, err := os.ReadFile("../../testdata/sse/anthropic/text.sse")
	if err != nil {
		t.Fatal(err)
	}
	return startServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		if r.URL.Path == "/old/v1/messages" {
			http.Redirect(w, r, "/v1/messages", http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Proto", r.Proto)
		w.Write(sse)
	}), cc, tls)
}

// The connection of an answer read to its end is kept for the next
// request: three calls, one connection. Over TLS with HTTP/2 the warm
// connection is the transport's (which speaks HTTP/2 on it): one
// connection too. A redirect is followed (by the client).
func TestDirectConnections(t *testing.T) {
	for _, tls := range []bool{false, true} {
		cc := &connCounter{}
		srv := sseServer(t, cc, tls)
		c := &Client{HTTP: http.DefaultClient, Now: time.Now}
		done := c.Warm(transportFor(srv), srv.URL)
		m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 200000}
		for i := 0; i < 3; i++ {
			if got, _ := stream(t, c, m); got.Text() != "All done." {
				t.Fatalf("tls %v, call %d: %+v", tls, i, got)
			}
		}
		if n := cc.count(); n != 1 {
			t.Errorf("tls %v: the server saw %d connections, want 1", tls, n)
		}
		m.BaseURL = srv.URL + "/old"
		if got, _ := stream(t, c, m); got.Text() != "All done." {
			t.Fatalf("tls %v, redirected: %+v", tls, got)
		}
		done()
		srv.Close()
	}
}

// An early request: sent before the call, its answer taken by the call
// that match says it is (one request at the server, Sent once); a call
// it is not sends its own (the early one given up).
func TestEarly(t *testing.T) {
	for _, matches := range []bool{true, false} {
		srv := fakellm.New(fakellm.Step{SSE: "../../testdata/sse/anthropic/text.sse"}, fakellm.Step{SSE: "../../testdata/sse/anthropic/text.sse"})
		sent := 0
		c := &Client{HTTP: http.DefaultClient, Now: time.Now, Sent: func() { sent++ }}
		done := c.Warm(http.DefaultTransport.(*http.Transport), srv.URL)
		m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 200000}
		const hole = "PLACEHOLDERxyz"
		lc := llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock(hole)}, Timestamp: 1}}}
		req, body, ok := SmallRequest(m, lc, llm.Options{APIKey: "k"})
		tmpl, ok2 := llm.CutBody(body, hole)
		if !ok || !ok2 {
			t.Fatal("no template")
		}
		p := c.Prepare(req, tmpl, hole)
		if p == nil || !c.Early(context.Background(), p, "hi", func(llm.Model, llm.Context, llm.Options) bool { return matches }) {
			t.Fatal("not sent early")
		}
		if got, _ := stream(t, c, m); got.Text() != "All done." {
			t.Fatalf("matches %v: %+v", matches, got)
		}
		reqs := srv.Requests()
		want := map[bool]int{true: 1, false: 2}[matches]
		if len(reqs) != want || sent != 1 {
			t.Errorf("matches %v: %d requests, Sent %d times; want %d, 1", matches, len(reqs), sent, want)
		}
		if _, body, _ := SmallRequest(m, hiContext(), llm.Options{APIKey: "k"}); string(reqs[0].Body) != string(body) {
			t.Errorf("matches %v: the early request's body\n%s\nis not the call's\n%s", matches, reqs[0].Body, body)
		}
		done()
		srv.Close()
	}
}

// WarmAnswer runs a canned answer through Stream into emit, and leaves
// the client as it was: its next call is sent, on the warm connection.
func TestWarmAnswer(t *testing.T) {
	sse, err := os.ReadFile("../../testdata/sse/anthropic/text.sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(sse) }))
	defer srv.Close()
	c := &Client{Now: time.Now}
	done := c.Warm(http.DefaultTransport.(*http.Transport), srv.URL)
	defer done()
	m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 200000}
	var text string
	ok := c.WarmAnswer(m, []llm.SSE{
		{Event: "message_start", Data: []byte(`{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`)},
		{Event: "content_block_start", Data: []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)},
		{Event: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"warm"}}`)},
	}, func(e llm.Event) {
		if e.Type == "text_delta" {
			text += e.Delta
		}
	})
	if !ok || text != "warm" {
		t.Fatalf("WarmAnswer: %v, text %q", ok, text)
	}
	if got, _ := stream(t, c, m); got.StopReason != llm.StopStop || got.Text() == "" {
		t.Errorf("the call after the warm answer: %+v", got)
	}
}

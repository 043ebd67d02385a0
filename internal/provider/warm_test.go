package provider

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/llm"
)

// connCounter counts the connections a test server accepts; close, when
// set, closes the first one at once (a server that dropped it).
type connCounter struct {
	mu     sync.Mutex
	n      int
	close  bool
	closed chan struct{}
}

func (c *connCounter) state(conn net.Conn, s http.ConnState) {
	if s != http.StateNew {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if c.close && c.n == 1 {
		conn.Close()
		close(c.closed)
	}
}

func (c *connCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func get(t *testing.T, client *http.Client, url string) *http.Response {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// transportFor is a transport like http.DefaultTransport that trusts srv
// (srv.Client's has a dialer of its own).
func transportFor(srv *httptest.Server) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if srv.TLS != nil {
		t.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	}
	return t
}

func ok(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }

// warmedClient is the client Warm makes, the closing of its warm
// connection, and whether one is dialed.
func warmedClient(base *http.Transport, baseURL string) (*http.Client, func(), bool) {
	c := &Client{}
	done := c.Warm(base, baseURL)
	_, warmed := c.HTTP.Transport.(*warm)
	return c.HTTP, done, warmed
}

// startServer starts a test server counting its connections in cc, over
// TLS with HTTP/2 when tls.
func startServer(h http.Handler, cc *connCounter, tls bool) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = cc.state
	if tls {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	return srv
}

// The request goes over the connection dialed ahead: the server sees one
// connection, over plain HTTP and over TLS with HTTP/2.
func TestWarmClientUsesTheWarmConnection(t *testing.T) {
	for _, tls := range []bool{false, true} {
		cc := &connCounter{}
		srv := startServer(http.HandlerFunc(ok), cc, tls)
		client, done, warmed := warmedClient(transportFor(srv), srv.URL+"/v1")
		if !warmed {
			t.Fatalf("tls %v: nothing warmed", tls)
		}
		resp := get(t, client, srv.URL+"/v1/messages")
		if n := cc.count(); n != 1 {
			t.Errorf("tls %v: the server saw %d connections, want 1 (the warm one)", tls, n)
		}
		if tls && resp.ProtoMajor != 2 {
			t.Errorf("over TLS the warm connection speaks %s, want HTTP/2", resp.Proto)
		}
		done()
		srv.Close()
	}
}

// A warm connection the server has closed is not used: the request dials
// again and succeeds.
func TestWarmClientRedialsAClosedConnection(t *testing.T) {
	cc := &connCounter{close: true, closed: make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(ok))
	srv.Config.ConnState = cc.state
	srv.Start()
	defer srv.Close()
	client, done, _ := warmedClient(transportFor(srv), srv.URL)
	defer done()
	<-cc.closed
	w := client.Transport.(*warm)
	<-w.ready
	for w.cc.Err() == nil { // the client's reader sees the end soon
		time.Sleep(time.Millisecond)
	}
	if resp := get(t, client, srv.URL); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if n := cc.count(); n != 2 {
		t.Errorf("the server saw %d connections, want 2 (the closed warm one, the request's)", n)
	}
}

// Nothing is warmed without a server to dial.
func TestWarmClientNothingToWarm(t *testing.T) {
	base := &http.Transport{}
	for _, u := range []string{"", "not a url", "unix:///tmp/x"} {
		if _, _, warmed := warmedClient(base, u); warmed {
			t.Errorf("%q: warmed", u)
		}
	}
}

// Quiet is called once every event the stream has sent so far is emitted,
// before the client waits for more: here the server holds the rest of its
// answer until the client has shown the first word.
func TestQuietBeforeWaiting(t *testing.T) {
	sse, err := os.ReadFile("../../testdata/sse/anthropic/text.sse")
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(sse, []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"done."))
	shown := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(sse[:cut])
		w.(http.Flusher).Flush()
		<-shown
		w.Write(sse[cut:])
	}))
	defer srv.Close()
	var text string
	once := sync.Once{}
	c := &Client{HTTP: srv.Client(), Now: time.Now}
	c.Quiet = func() {
		if strings.Contains(text, "All ") {
			once.Do(func() { close(shown) })
		}
	}
	m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 1000}
	final, err := c.Stream(context.Background(), m, llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("hi")}}}}, llm.Options{APIKey: "k"}, func(e llm.Event) {
		text += e.Delta
	})
	if err != nil || final.Text() != "All done." {
		t.Fatalf("%q %v", final.Text(), err)
	}
}

// Sent is called once the request is written, before the answer: here
// the server answers only after the client said so.
func TestSentBeforeTheAnswer(t *testing.T) {
	sse, err := os.ReadFile("../../testdata/sse/anthropic/text.sse")
	if err != nil {
		t.Fatal(err)
	}
	sent := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		<-sent
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(sse)
	}))
	defer srv.Close()
	calls := 0
	c := &Client{HTTP: srv.Client(), Now: time.Now, Sent: func() { calls++; close(sent) }}
	m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 1000}
	final, err := c.Stream(context.Background(), m, llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("hi")}}}}, llm.Options{APIKey: "k"}, func(llm.Event) {})
	if err != nil || final.Text() != "All done." || calls != 1 {
		t.Fatalf("%q %v, Sent called %d times", final.Text(), err, calls)
	}
	// A request that cannot be sent calls it too: the caller's held
	// output goes out.
	srv.Close()
	calls, sent = 0, make(chan struct{})
	if final, _ = c.Stream(context.Background(), m, llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("hi")}}}}, llm.Options{APIKey: "k"}, func(llm.Event) {}); final.StopReason != llm.StopError || calls != 1 {
		t.Fatalf("%+v, Sent called %d times", final, calls)
	}
}

// Command fakeprovider serves a recorded SSE body to every POST, on
// loopback, for benchmarks that point agent-chat and its peers at the same
// local model server. It prints its base URL and runs until killed.
//
//	go run ./scripts/fakeprovider -sse testdata/sse/openai/text.sse
//
// Several files (comma-separated) are served in turn, one per request,
// starting again after the last: a scripted multi-turn conversation.
// With -requests DIR each request body is kept as DIR/1.json, 2.json, …
// (what scripts/interop-pi compares between pi and agent-chat).
// With -agent DIR it answers Claude Code's and Codex's requests by their
// content instead (agent.go).
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

func main() {
	sse := flag.String("sse", "", "SSE `FILE`s to answer with, comma-separated, one per request in turn")
	delay := flag.Duration("delay", 0, "pause before the first byte, like a model thinking")
	every := flag.Duration("event-delay", 0, "pause between SSE events, like a model streaming")
	burst := flag.Int("burst", 0, "send the first `N` events together, without -event-delay between them")
	trace := flag.String("trace", "", "append \"request NS\" and \"first NS\" (Unix nanoseconds: a request's arrival, its first event flushed) to `FILE`")
	reqDir := flag.String("requests", "", "keep each request body as `DIR`/N.json")
	agent := flag.String("agent", "", "answer Claude Code and Codex by the conversation, editing in `DIR`")
	flag.Parse()
	var bodies [][]byte
	for _, f := range strings.Split(*sse, ",") {
		if *agent != "" {
			break
		}
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
		bodies = append(bodies, b)
	}
	var mu sync.Mutex
	next := 0
	var tr *os.File
	if *trace != "" {
		var err error
		if tr, err = os.OpenFile(*trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
	}
	mark := func(what string) {
		if tr != nil {
			fmt.Fprintf(tr, "%s %d\n", what, time.Now().UnixNano())
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeprovider:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	os.Stdout.Sync()
	if *agent != "" {
		http.Serve(ln, agentHandler(*agent))
		return
	}
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost {
			mark("request")
		}
		if r.Method != http.MethodPost {
			w.Header().Set("content-type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"test-model","object":"model"}]}`)
			return
		}
		time.Sleep(*delay)
		mu.Lock()
		body := bodies[next%len(bodies)]
		next++
		if *reqDir != "" {
			os.WriteFile(filepath.Join(*reqDir, fmt.Sprintf("%d.json", next)), req, 0o644)
		}
		mu.Unlock()
		w.Header().Set("content-type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		if *every == 0 {
			w.Write(body)
			fl.Flush()
			mark("first")
			return
		}
		evs := strings.SplitAfter(string(body), "\n\n")
		for i, ev := range evs {
			if _, err := io.WriteString(w, ev); err != nil {
				return
			}
			if i+1 < *burst && i+1 < len(evs) {
				continue
			}
			fl.Flush()
			if i+1 == max(*burst, 1) {
				mark("first")
			}
			time.Sleep(*every)
		}
	}))
}

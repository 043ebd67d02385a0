// Command fakeprovider is the fake model provider (internal/fakellm) as a
// program, on loopback, for the demo, bench and interop scripts that point
// agent-chat and its peers at the same local model server. It serves a
// recorded SSE body to every POST, prints its base URL and runs until
// killed.
//
//	go run ./scripts/fakeprovider -sse testdata/sse/openai/text.sse
//
// Several files (comma-separated) are served in turn, one per request,
// starting again after the last: a scripted multi-turn conversation.
// With -requests DIR each request body is kept as DIR/1.json, 2.json, …
// (what scripts/interop-pi compares between pi and agent-chat).
// With -agent DIR it answers Claude Code's and Codex's requests by their
// content instead (internal/fakellm/agent.go).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentutils/agentutils/internal/fakellm"
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
	var steps []fakellm.Step
	for _, f := range strings.Split(*sse, ",") {
		if *agent != "" {
			break
		}
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
		steps = append(steps, fakellm.Step{Body: b, Delay: *delay, EventDelay: *every, Burst: *burst})
	}
	srv := fakellm.New(steps...)
	srv.Cycle, srv.Agent, srv.RequestDir = true, *agent, *reqDir
	if *trace != "" {
		tr, err := os.OpenFile(*trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
		srv.Trace = tr
	}
	fmt.Println(srv.URL)
	os.Stdout.Sync()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	srv.Close() // releases the answers still streaming
}

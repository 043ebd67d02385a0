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
// (for a peer's requests to be compared with agent-chat's), and its
// method and path as a line "N METHOD PATH" of DIR/index.
// With -tls FILE it serves HTTPS (HTTP/2 offered) with a certificate it
// writes to FILE; with -rtt D, through a proxy that makes each connection
// and each exchange take the round trip D (a provider's distance).
// With -agent DIR it answers Claude Code's and Codex's requests by their
// content instead (internal/fakellm/agent.go). With -models FILE it
// writes a models.toml for its URL to FILE (provider fake, model
// fake-model, a context window of 200000, the key from FAKE_KEY) before it
// prints the URL.
//
//	fakeprovider -agent DIR -models DIR/models.toml
package main

import (
	"encoding/pem"
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
	cert := flag.String("tls", "", "serve HTTPS (HTTP/2 offered) and write the server's certificate to `FILE` (PEM: SSL_CERT_FILE, NODE_EXTRA_CA_CERTS)")
	rtt := flag.Duration("rtt", 0, "serve through a proxy that delays each direction by half of this round trip")
	models := flag.String("models", "", "write a models.toml for the server (fake/fake-model, the key from FAKE_KEY) to `FILE`")
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
	start := fakellm.New
	if *cert != "" {
		start = fakellm.NewTLS
	}
	srv := start(steps...)
	srv.Cycle, srv.Agent, srv.RequestDir = true, *agent, *reqDir
	if *trace != "" {
		tr, err := os.OpenFile(*trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
		srv.Trace = tr
	}
	if *cert != "" {
		pem := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		if err := os.WriteFile(*cert, pem, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
	}
	u := srv.URL
	if *rtt > 0 {
		d, err := fakellm.NewDelay(srv.Listener.Addr().String(), *rtt)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
		defer d.Close()
		u = strings.Replace(u, srv.Listener.Addr().String(), d.Addr, 1)
	}
	if *models != "" {
		toml := fakellm.ModelsTOML(u, "fake", "anthropic-messages", "fake-model", 200000)
		if err := os.WriteFile(*models, []byte(toml), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakeprovider:", err)
			os.Exit(2)
		}
	}
	fmt.Println(u)
	os.Stdout.Sync()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	srv.Close() // releases the answers still streaming
}

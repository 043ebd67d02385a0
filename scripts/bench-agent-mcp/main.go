// Command bench-agent-mcp times `agent-mcp call` round trips against
// @modelcontextprotocol/server-everything's echo tool, beside the MCP
// Inspector's CLI mode doing the same call (@modelcontextprotocol/inspector
// --cli; both pinned, from npm). Two cases: over Streamable HTTP to a
// running server (the client's own cost), and over stdio (each call also
// starts the node server). Then where the stdio time goes: the same call
// against servers that start fast (mcptestserver, a Go SDK server, and
// `agent-mcp serve`), and server-everything's own start-up and exit times,
// which both clients pay. Then `agent-mcp serve` throughput: read calls per
// second over stdio, driven by `agent-mcp bridge` (no peer). The clients
// run interleaved, round by round; each figure is the median [min–max] of
// -n rounds, CPU (user+sys, the children a client waited for included)
// beside wall. Skipped with a notice without npm and node.
// AGENT_INTEROP_NPM_PREFIX names an install to reuse.
//
//	go run ./scripts/bench-agent-mcp -n 10
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

// The peers, pinned.
var peers = []string{"@modelcontextprotocol/server-everything@2026.8.31", "@modelcontextprotocol/inspector@0.15.0"}

var (
	rounds = flag.Int("n", 10, "interleaved rounds")
	calls  = flag.Int("calls", 2000, "read calls of the serve throughput run")
)

func main() { bench.Main("bench-agent-mcp", run) }

type mcp struct {
	am, bin, tmp string
	t            bench.Table
}

func run() error {
	root, err := bench.Root()
	if err != nil {
		return err
	}
	if !bench.Have("npm") || !bench.Have("node") {
		bench.Skipped("bench-agent-mcp", "the benchmark", fmt.Errorf("npm and node are needed for the peer"))
		return nil
	}
	tmp, err := os.MkdirTemp("", "bench-agent-mcp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	prefix := bench.NPMPrefix("AGENT_INTEROP_NPM_PREFIX", "mcp")
	bin, err := bench.NPM(prefix, peers...)
	if err != nil {
		bench.Skipped("bench-agent-mcp", "the benchmark", err)
		return nil
	}
	if err := bench.GoBuild(tmp, "./cmd/agent-mcp/testdata/mcptestserver", "./cmd/agent-mcp/testdata/faketools"); err != nil {
		return err
	}
	os.Setenv("AGENTUTILS_HOME", filepath.Join(tmp, "home"))
	os.Setenv("HOME", filepath.Join(tmp, "home"))
	os.Setenv("PATH", root+"/bin"+string(os.PathListSeparator)+os.Getenv("PATH"))
	m := &mcp{am: root + "/bin/agent-mcp", bin: bin, tmp: tmp}
	url, stop, err := m.httpServer()
	if err != nil {
		return err
	}
	defer stop()
	return m.measure(url)
}

// httpServer starts server-everything over Streamable HTTP on a free port.
func (m *mcp) httpServer() (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	c := exec.Command(m.bin+"/mcp-server-everything", "streamableHttp")
	c.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := c.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { c.Process.Kill(); c.Wait() }
	for range 100 {
		if conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			conn.Close()
			return fmt.Sprintf("http://127.0.0.1:%d/mcp", port), stop, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("server-everything did not listen on port %d in 10 s", port)
}

func (m *mcp) add(args ...string) error {
	return bench.RunQuiet(exec.Command(m.am, append([]string{"add"}, args...)...))
}

func (m *mcp) measure(url string) error {
	ev := m.bin + "/mcp-server-everything"
	for _, a := range [][]string{{"evh", "--url", url}, {"ev", "--", ev, "stdio"}, {"go", "--", m.tmp + "/mcptestserver"}} {
		if err := m.add(a...); err != nil {
			return err
		}
	}
	toolsCmd, what := "agent-tool serve", "agent-tool"
	if !bench.Have("agent-tool") {
		toolsCmd, what = m.tmp+"/faketools", "faketools (agent-tool is not installed)"
	}
	if err := os.WriteFile(m.tmp+"/served.txt", []byte("hello\n"), 0o644); err != nil {
		return err
	}
	self := m.tmp + "/serve-self"
	script := fmt.Sprintf("#!/bin/sh\nexec agent-mcp serve --cwd '%s' --tools-cmd '%s'\n", m.tmp, toolsCmd)
	if err := os.WriteFile(self, []byte(script), 0o755); err != nil {
		return err
	}
	if err := m.add("self", "--", self); err != nil {
		return err
	}
	insp := []string{m.bin + "/mcp-inspector", "--cli"}
	echo := []string{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"}
	fmt.Printf("bench-agent-mcp: medians [min–max] of %d interleaved rounds, CPU = user+sys with the children each client waited for; load %s\n", *rounds, bench.Load())
	m.t.Row("", "", "wall", "CPU")
	cases := []struct {
		name        string
		ours, peer  []string
		beforeStdio bool
	}{
		{"call echo, Streamable HTTP (running server)", []string{"call", "evh", "echo", `{"message":"hi"}`}, cat(insp, []string{url, "--transport", "http"}, echo), false},
		{"call echo, stdio (server-everything started per call)", []string{"call", "ev", "echo", `{"message":"hi"}`}, cat(insp, []string{ev, "stdio"}, echo), false},
		{"tools/list, Streamable HTTP", []string{"tools", "--json", "evh"}, cat(insp, []string{url, "--transport", "http", "--method", "tools/list"}), false},
		{"call echo, stdio (Go SDK server per call)", []string{"call", "go", "echo", `{"message":"hi"}`}, cat(insp, []string{m.tmp + "/mcptestserver"}, echo), true},
		{"call read, stdio (agent-mcp serve per call)", []string{"call", "self", "read", `{"path":"served.txt"}`},
			cat(insp, []string{self, "--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=served.txt"}), false},
	}
	for _, c := range cases {
		if c.beforeStdio {
			m.t.Note("stdio with servers that start fast (the clients' own start-up, handshake and shutdown):")
		}
		if err := m.compare(c.name, "agent-mcp", cat([]string{m.am}, c.ours), "inspector --cli", c.peer); err != nil {
			return err
		}
	}
	if err := m.compare("process start alone", "agent-mcp --version", []string{m.am, "--version"}, "node -e ''", []string{"node", "-e", ""}); err != nil {
		return err
	}
	fmt.Print(m.t.String())
	if err := m.alone(ev); err != nil {
		return err
	}
	return m.throughput(toolsCmd, what)
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// compare runs both commands interleaved and adds their rows and the ratio.
func (m *mcp) compare(name, oursName string, ours []string, peerName string, peer []string) error {
	cmd := func(argv []string) func() (bench.Cost, error) {
		return func() (bench.Cost, error) {
			c := exec.Command(argv[0], argv[1:]...)
			c.Dir = m.tmp
			return bench.Run(c)
		}
	}
	r, err := bench.Interleave(*rounds, bench.Peer{Name: oursName, Run: cmd(ours)}, bench.Peer{Name: peerName, Run: cmd(peer)})
	if err != nil {
		return err
	}
	m.t.Row(name, oursName, r.Stat(oursName, bench.WallMS).Fmt(0, "ms"), r.Stat(oursName, bench.CPUMS).Fmt(0, "ms"))
	m.t.Row("", peerName, r.Stat(peerName, bench.WallMS).Fmt(0, "ms"), r.Stat(peerName, bench.CPUMS).Fmt(0, "ms"))
	m.t.Row("", "ours/peer", r.Ratio(oursName, peerName, bench.WallMS), r.Ratio(oursName, peerName, bench.CPUMS))
	return nil
}

// alone times server-everything by itself: spawn to the initialize result,
// then after a call, EOF on stdin until it exits (killed after 5 s).
func (m *mcp) alone(ev string) error {
	var up, down []float64
	how := "exits"
	for range *rounds {
		c := exec.Command(ev, "stdio")
		in, err := c.StdinPipe()
		if err != nil {
			return err
		}
		outPipe, err := c.StdoutPipe()
		if err != nil {
			return err
		}
		out := bufio.NewReader(outPipe)
		t0 := time.Now()
		if err := c.Start(); err != nil {
			return err
		}
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`+"\n")
		if _, err := out.ReadString('\n'); err != nil {
			c.Process.Kill()
			c.Wait()
			return fmt.Errorf("server-everything: no initialize result: %w", err)
		}
		up = append(up, ms(time.Since(t0)))
		io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`+"\n")
		for {
			l, err := out.ReadString('\n')
			if err != nil || strings.Contains(l, `"id":2`) {
				break
			}
		}
		t1 := time.Now()
		in.Close()
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, out); c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			c.Process.Kill()
			<-done
			how = "is killed"
		}
		down = append(down, ms(time.Since(t1)))
	}
	fmt.Printf("server-everything alone: start to initialize result %s; after a call and EOF on stdin it %s in %s\n",
		bench.Summarize(up).Fmt(0, "ms"), how, bench.Summarize(down).Fmt(0, "ms"))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// throughput: bridge → serve (stdio MCP) → the tool co-process.
func (m *mcp) throughput(toolsCmd, what string) error {
	if err := m.add("served", "--", m.am, "serve", "--cwd", m.tmp, "--tools-cmd", toolsCmd); err != nil {
		return err
	}
	var in bytes.Buffer
	in.WriteString(`{"type":"hello","cwd":"/"}` + "\n")
	for i := range *calls {
		fmt.Fprintf(&in, `{"type":"call","id":"c%d","name":"mcp__served__read","arguments":{"path":"served.txt"}}`+"\n", i)
	}
	var oks []float64
	peer := bench.Peer{Name: "bridge", Run: func() (bench.Cost, error) {
		var out bytes.Buffer
		c := exec.Command(m.am, "bridge", "--servers", "served")
		c.Stdin, c.Stdout = bytes.NewReader(in.Bytes()), &out
		cost, err := bench.Run(c)
		n := 0
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.Contains(l, `"type":"result"`) && strings.Contains(l, `"isError":false`) {
				n++
			}
		}
		oks = append(oks, float64(n))
		return cost, err
	}}
	rounds := max(1, *rounds/2)
	r, err := bench.Interleave(rounds, peer)
	if err != nil {
		return err
	}
	w, c := r.Stat("bridge", bench.WallMS), r.Stat("bridge", bench.CPUMS)
	n := bench.Summarize(oks).Median
	fmt.Printf("serve, %d read calls over stdio via bridge (%s), medians of %d rounds: %.0f ok in %s, %.0f calls/s; CPU %s for bridge+serve+tools, %.0f µs per call\n",
		*calls, what, rounds, n, w.Fmt(0, "ms"), n*1000/w.Median, c.Fmt(0, "ms"), c.Median*1000/n)
	return nil
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/internal/testbin"
)

// serveClient starts `agent-mcp serve` over stdio with faketools behind it
// and connects the Go SDK's client to it.
func serveClient(t *testing.T, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, string) {
	t.Helper()
	return serveClientVersion(t, opts, "", args...)
}

// serveClientVersion is serveClient with the client offering protocol
// version (the SDK's newest when "").
func serveClientVersion(t *testing.T, opts *mcp.ClientOptions, version string, args ...string) (*mcp.ClientSession, string) {
	t.Helper()
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644)
	cmd := exec.Command(filepath.Join(bin, "agent-mcp"), append([]string{"serve", "--cwd", dir, "--tools-cmd", filepath.Join(testServer(t), "faketools")}, args...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, dir
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestServeReadOnly(t *testing.T) {
	cs, dir := serveClient(t, nil)
	if d := cmp.Diff([]string{"read"}, toolNames(t, cs)); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "hello.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Content)
	if string(b) != `[{"type":"text","text":"hello\n"}]` || res.IsError {
		t.Errorf("result %s", b)
	}
	if d, _ := json.Marshal(res.Meta["agent/details"]); string(d) != `{"path":"hello.txt"}` {
		t.Errorf("details %s", d)
	}
	// write is not offered: calling it fails and nothing is written.
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "x", "content": "y"}})
	if err == nil {
		t.Error("write was callable without --allow-write")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("write happened")
	}
}

func TestServeAllow(t *testing.T) {
	var mu sync.Mutex
	var progress []string
	cs, dir := serveClient(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params.Message)
		mu.Unlock()
	}}, "--allow-write", "--allow-exec", "--tools", "read,write,bash,weird")
	if d := cmp.Diff([]string{"bash", "read", "weird", "write"}, toolNames(t, cs)); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	res, _ := cs.ListTools(context.Background(), nil)
	for _, tl := range res.Tools {
		if tl.Name == "write" && (tl.Annotations == nil || tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint) {
			t.Errorf("write annotations %+v", tl.Annotations)
		}
		if tl.Name == "read" && (tl.Annotations == nil || !tl.Annotations.ReadOnlyHint) {
			t.Errorf("read annotations %+v", tl.Annotations)
		}
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "x", "content": "y"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x")); string(b) != "y" {
		t.Errorf("x = %q", b)
	}
	p := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "ls"}}
	p.SetProgressToken("tok")
	r, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r.Content)
	if string(b) != `[{"type":"text","text":"ran ls"},{"type":"image","mimeType":"image/png","data":"iVBORw=="}]` {
		t.Errorf("bash content %s", b)
	}
	// Notifications are handled asynchronously: wait for both (a generous
	// deadline: a loaded machine may take seconds).
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	if d := cmp.Diff([]string{"step 1", "step 2"}, progress); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	mu.Unlock()

	// notifications/cancelled reaches the tool as cancel.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "wait"}})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the call start; the test checks no timing
	cancel()
	if err := <-done; err == nil {
		t.Error("cancelled call returned no error")
	}
	// The server is still usable after the cancel.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "x"}}); err != nil {
		t.Fatal(err)
	}
}

// TestServeHTTP: agent-mcp as the client of agent-mcp serve over Streamable
// HTTP with a bearer token.
func TestServeHTTP(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("over http\n"), 0o644)
	bin, addr := startServeHTTP(t, nil, "--cwd", dir, "--tools-cmd", filepath.Join(testServer(t), "faketools"), "--token", "s3cret")
	home := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(bin, "agent-mcp"), args...)
		cmd.Env = append(os.Environ(), "AGENTUTILS_HOME="+home, "HOME="+home)
		cmd.Dir = home
		out, err := cmd.Output()
		return string(out), err
	}
	if _, err := run("add", "mine", "--url", "http://"+addr+"/", "--token", "s3cret"); err != nil {
		t.Fatal(err)
	}
	if _, err := run("add", "nokey", "--url", "http://"+addr+"/"); err != nil {
		t.Fatal(err)
	}
	out, err := run("call", "mine", "read", `{"path":"hello.txt"}`, "--text")
	if err != nil || out != "over http\n\n" && out != "over http\n" {
		t.Fatalf("call: %v %q", err, out)
	}
	if _, err := run("call", "nokey", "read", `{"path":"hello.txt"}`); err == nil {
		t.Error("call without the token succeeded")
	}
	// Origin is validated (DNS rebinding): another site gets 403 even with
	// the token; loopback origins and none at all pass.
	for origin, want := range map[string]int{"http://evil.example": 403, "null": 403, "http://127.0.0.1.evil.example": 403,
		"http://localhost:3000": 200, "http://127.0.0.1": 200, "http://[::1]:8080": 200, "": 200} {
		req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Origin %q: status %d, want %d", origin, resp.StatusCode, want)
		}
	}
	// Off loopback needs --listen-any and a token.
	cmd := exec.Command(filepath.Join(bin, "agent-mcp"), "serve", "--http", "0.0.0.0:0", "--tools-cmd", "true")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "not a loopback address") {
		t.Errorf("0.0.0.0 without --listen-any: %v %s", err, out)
	}
	cmd = exec.Command(filepath.Join(bin, "agent-mcp"), "serve", "--http", "0.0.0.0:0", "--listen-any", "--tools-cmd", "true")
	cmd.Env = append(os.Environ(), "AGENT_MCP_SERVE_TOKEN=")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "needs --token") {
		t.Errorf("0.0.0.0 without a token: %v %s", err, out)
	}
}

// TestServeElicitation: a tool's requests (kinds confirm and ask) reach the
// MCP client as elicitation, as multi round-trip input requests for the
// newest protocol and as elicitation/create requests for older ones; the
// answers go back to the tool. A client without elicitation is asked
// nothing and the requests are cancelled.
func TestServeElicitation(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			n := 0
			handler := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				n++
				asked = append(asked, req.Params.Message)
				schema, _ := json.Marshal(req.Params.RequestedSchema)
				switch {
				case strings.Contains(string(schema), `"confirm"`) && n == 1:
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
				case strings.Contains(string(schema), `"confirm"`):
					return &mcp.ElicitResult{Action: "decline"}, nil
				case strings.Contains(string(schema), `"enum":["red","blue"]`) && n == 3:
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "blue"}}, nil
				}
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			cs, _ := serveClientVersion(t, &mcp.ClientOptions{ElicitationHandler: handler}, version, "--tools", "confirm,question")
			for _, c := range []struct{ tool, want string }{{"confirm", "true false"}, {"question", `"blue" cancelled`}} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{}})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Content[0].(*mcp.TextContent).Text; got != c.want {
					t.Errorf("%s: %q, want %q", c.tool, got, c.want)
				}
			}
			want := []string{"Delete\nDelete build/ (1 of 2)?", "Delete\nDelete build/ (2 of 2)?", "Colour 1?", "Colour 2?"}
			if d := cmp.Diff(want, asked); d != "" {
				t.Errorf("asked (-want +got):\n%s", d)
			}
		})
	}
	cs, _ := serveClient(t, nil, "--tools", "confirm")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "cancelled cancelled" {
		t.Errorf("without elicitation: %q", got)
	}
}

// TestServeElicitationClientGone: a call whose client goes away (HTTP
// session closed) while a tool waits for an answer — asked directly, or
// parked for a multi round-trip answer — gets its asks cancelled instead of
// waiting for ever.
func TestServeElicitationClientGone(t *testing.T) {
	// Over HTTP the SDK's client speaks at most 2025-11-25: asked directly.
	t.Run("http", func(t *testing.T) { serveElicitationClientGone(t, "2025-11-25") })
	// A 2026-07-28 client over stdio: the call is parked; the client closes.
	t.Run("parked", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "answers.log")
		t.Setenv("FAKETOOLS_LOG", log)
		asked := make(chan struct{})
		release := make(chan struct{})
		handler := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			close(asked)
			<-release
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		cs, _ := serveClient(t, &mcp.ClientOptions{ElicitationHandler: handler}, "--tools", "confirm")
		if got := cs.InitializeResult().ProtocolVersion; got < "2026-07-28" {
			t.Fatalf("protocol %s: no multi round-trip", got)
		}
		go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
		<-asked
		closed := make(chan struct{})
		go func() { cs.Close(); close(closed) }()
		defer close(release)
		// The parked ask is cancelled by serve before it ends the tool
		// process; the tool's next ask may come after EOF.
		<-closed
		b, _ := os.ReadFile(log)
		if l := string(b); !strings.HasPrefix(l, "confirm 1: cancelled\nconfirm 2: cancelled") {
			t.Fatalf("the tool's asks after the client left: %q", b)
		}
	})
}

func serveElicitationClientGone(t *testing.T, version string) {
	// The tool writes its answers to a named pipe the test reads: each line
	// is an event, waited for, not polled. Opened for reading and writing,
	// the pipe needs no writer to open and never reads EOF between the
	// tool's writes.
	log := filepath.Join(t.TempDir(), "answers.fifo")
	if err := syscall.Mkfifo(log, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo, err := os.OpenFile(log, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Close()
	_, addr := startServeHTTP(t, []string{"FAKETOOLS_LOG=" + log}, "--tools-cmd", filepath.Join(testServer(t), "faketools"), "--tools", "confirm")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	asked := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	handler := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(asked)
		<-release // the person never answers; the client is closed meanwhile
		// Released when the test ends, before ctx is cancelled: (nil, nil)
		// would crash the SDK's client.
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler}).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("protocol %s, want %s", got, version)
	}
	callCtx, stop := context.WithCancel(ctx)
	go cs.CallTool(callCtx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	<-asked
	stop()
	go cs.Close() // DELETE: the server's session ends
	// A bound on a broken run, not a measurement.
	fifo.SetReadDeadline(time.Now().Add(30 * time.Second))
	lines := bufio.NewScanner(fifo)
	var got []string
	for len(got) < 2 && lines.Scan() {
		got = append(got, lines.Text())
	}
	if d := cmp.Diff([]string{"confirm 1: cancelled", "confirm 2: cancelled"}, got); d != "" {
		t.Fatalf("the tool's asks after the client left (-want +got):\n%s(%v)", d, lines.Err())
	}
}

// startServeHTTP starts agent-mcp serve --http on a free loopback port with
// args and extra environment, waits until it accepts connections, and
// returns the binaries' directory and the address.
func startServeHTTP(t *testing.T, env []string, args ...string) (bin, addr string) {
	t.Helper()
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	srv := exec.Command(filepath.Join(bin, "agent-mcp"), append(append([]string{"serve"}, args...), "--http", addr)...)
	srv.Env = append(os.Environ(), env...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return bin, addr
}

// TestServeDiesWithItsParent: when the process that started agent-mcp
// serve (Claude Code, say) is killed while the socket serve reads stays
// open (another process holds it), serve and the tool process it started
// end too: the pipe both write to reads to its end.
func TestServeDiesWithItsParent(t *testing.T) {
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	stdinR, stdinW, err := os.Pipe() // the client's end stays open: stdinW is held here
	if err != nil {
		t.Fatal(err)
	}
	defer stdinW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	// (An asynchronous command's stdin is /dev/null unless redirected.)
	sh := exec.Command("sh", "-c", `exec 3<&0; "$0" serve --cwd "$1" --tools-cmd "$2" <&3 & echo $!; wait`,
		filepath.Join(bin, "agent-mcp"), t.TempDir(), filepath.Join(testServer(t), "faketools"))
	sh.Stdin, sh.Stdout, sh.Stderr = stdinR, outW, outW
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	stdinR.Close()
	outW.Close()
	r := bufio.NewReader(outR)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	// Once serve answers (its tool process started), its parent goes.
	stdinW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	for !strings.HasPrefix(line, `{"jsonrpc"`) {
		if line, err = r.ReadString('\n'); err != nil {
			t.Fatalf("serve did not answer: %v", err)
		}
	}
	sh.Process.Kill()
	sh.Wait()
	// Not a measure of time: a bound on a wait that never ends when serve
	// outlives its parent.
	outR.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := io.Copy(io.Discard, r); err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("agent-mcp serve (or its tool process) outlived the process that started it: %v", err)
	}
}

// TestServeTasksHTTP: agent-mcp serve --http speaks MCP 2025-11-25 tasks
// as over stdio: a task-augmented call answers its task at once, the
// client polls it, and the tasks/result stream carries what the task asks
// (elicitation: the task is input_required until the answer), its progress
// and status, then the result; tasks/list lists them and tasks/cancel
// cancels the tool.
func TestServeTasksHTTP(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServeHTTP(t, nil, "--cwd", dir, "--tools-cmd", filepath.Join(testServer(t), "faketools"), "--tools", "confirm,bash", "--allow-exec")
	var mu sync.Mutex
	var asked []string
	progress := make(chan string, 10)
	handler := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params.Message)
		if len(asked) == 1 {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	onProgress := func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		progress <- req.Params.Message
	}
	rt := &mcpclient.RawTransport{Transport: &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/"}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler, ProgressNotificationHandler: onProgress}).
		Connect(ctx, rt, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	raw := rt.Conn()
	text := func(res json.RawMessage) string {
		var r struct {
			Content []struct{ Text string } `json:"content"`
			Meta    map[string]any          `json:"_meta"`
		}
		if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
			t.Fatalf("result %s: %v", res, err)
		}
		if r.Meta["io.modelcontextprotocol/related-task"] == nil {
			t.Errorf("result %s: no related-task", res)
		}
		return r.Content[0].Text
	}
	res, err := mcpclient.CallTask(ctx, raw, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(res); got != "true false" {
		t.Errorf("confirm as a task: %q, want %q", got, "true false")
	}
	if want := []string{"Delete\nDelete build/ (1 of 2)?", "Delete\nDelete build/ (2 of 2)?"}; !cmp.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	p := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "ls"}}
	p.SetProgressToken("p1")
	if res, err = mcpclient.CallTask(ctx, raw, p); err != nil {
		t.Fatal(err)
	}
	if got := text(res); got != "ran ls" {
		t.Errorf("bash as a task: %q", got)
	}
	// (the client handles notifications apart from results: they may come after it)
	if got := []string{<-progress, <-progress}; !cmp.Equal(got, []string{"step 1", "step 2"}) {
		t.Errorf("progress %q, want step 1, step 2", got)
	}

	// A task given up: tasks/cancel reaches the tool (faketools' "wait"
	// ends only when cancelled) or keeps it from starting, and the task
	// stays cancelled.
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := mcpclient.CallTask(cctx, raw, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "wait"}})
		done <- err
	}()
	var list struct {
		Tasks []struct{ TaskID, Status string } `json:"tasks"`
	}
	for len(list.Tasks) < 3 {
		b, err := raw.Call(ctx, "tasks/list", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(b, &list)
	}
	stop()
	<-done
	b, err := raw.Call(ctx, "tasks/result", map[string]any{"taskId": "task-3"})
	if err != nil {
		t.Fatal(err)
	}
	// (cancelled while the tool waits, or before its call started: the
	// cancel may overtake the call on its way to the tool)
	if got := text(b); got != "Command aborted" && got != "The task was cancelled before it started." {
		t.Errorf("the cancelled task's result: %q", got)
	}
	b, _ = raw.Call(ctx, "tasks/list", map[string]any{})
	json.Unmarshal(b, &list)
	var st []string
	for _, tk := range list.Tasks {
		st = append(st, tk.TaskID+" "+tk.Status)
	}
	if want := []string{"task-1 completed", "task-2 completed", "task-3 cancelled"}; !cmp.Equal(st, want) {
		t.Errorf("tasks/list: %q, want %q", st, want)
	}
	if _, err := raw.Call(ctx, "tasks/cancel", map[string]any{"taskId": "task-3"}); mcpclient.RPCCode(err) != -32602 {
		t.Errorf("cancelling an ended task: %v", err)
	}
	// A plain call is still a plain call.
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "pwd"}})
	if err != nil || r.Content[0].(*mcp.TextContent).Text != "ran pwd" {
		t.Errorf("plain call: %v %v", r, err)
	}
}

package toolproto

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/event"
)

// echoTool is a real tool process in sh: it lists no tools, logs, asks,
// writes a line that is not a message, and answers each call with an
// update and a result; "die" makes it exit.
const echoTool = `printf '{"type":"tools","tools":[]}\n'
while IFS= read -r l; do
  case "$l" in
  *'"type":"call"'*)
    id=$(printf %s "$l" | sed 's/.*"id":"\([^"]*\)".*/\1/')
    case "$l" in *'"name":"die"'*) exit 3;; esac
    printf '{"type":"log","level":"info","msg":"running %s"}\nnot json\n{"type":"request","requestId":"r-%s","kind":"confirm","payload":{}}\n' "$id" "$id"
    printf '{"type":"update","id":"%s","partialResult":{"content":[]}}\n{"type":"result","id":"%s","content":[{"type":"text","text":"ok"}],"isError":false}\n' "$id" "$id";;
  *'"type":"answer"'*) printf '{"type":"log","level":"info","msg":"answer %s"}\n' "$(printf %s "$l" | sed 's/.*"requestId":"\([^"]*\)".*/\1/')";;
  esac
done`

func TestClient(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	var bad int
	add := func(s string) { mu.Lock(); logs = append(logs, s); mu.Unlock() }
	c, err := Start(Options{Command: echoTool, Hello: &event.Hello{Cwd: "/"},
		OnLog:     func(l *event.Log) { add(l.Msg) },
		OnBadLine: func(error) { mu.Lock(); bad++; mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Tools():
	case <-c.Dead():
		t.Fatalf("died: %v", c.Err())
	}
	ch, err := c.Call(&event.Call{ID: "c1", Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := (<-ch).(*event.Update); !ok {
		t.Fatal("want an update first")
	}
	r, ok := (<-ch).(*event.Result)
	if !ok || r.ID != "c1" || r.Content[0].Text != "ok" {
		t.Fatalf("result %+v", r)
	}
	ch, _ = c.Call(&event.Call{ID: "c2", Name: "die"})
	<-c.Dead()
	if c.Err() == nil || !strings.Contains(ExitText(c.Err()), "tool process exited: exit status 3") {
		t.Errorf("exit %v", c.Err())
	}
	select {
	case v := <-ch:
		t.Errorf("a dead call got %v", v)
	default:
	}
	c.Close(time.Second)
	mu.Lock()
	defer mu.Unlock()
	// the request was answered cancelled (no OnAsk) before the next call
	if strings.Join(logs, "|") != "running c1|answer r-c1" || bad != 1 {
		t.Errorf("logs %q, bad lines %d", logs, bad)
	}
}

func TestClientStartFails(t *testing.T) {
	if _, err := Start(Options{Command: "true", Dir: "/nonexistent/dir"}); err == nil {
		t.Fatal("a command that cannot start: no error")
	}
	c, err := Start(Options{Command: "exit 0"})
	if err != nil {
		t.Fatal(err)
	}
	<-c.Dead()
	if c.Err() != nil {
		t.Errorf("exit %v", c.Err())
	}
	c.Close(time.Second)
}

func TestServer(t *testing.T) {
	pr, pw := io.Pipe()
	s := NewServer(pw)
	lines := bufio.NewScanner(pr)
	ctx := context.Background()
	release := make(chan struct{})
	started := make(chan struct{})
	if !s.Go(ctx, "a", func(ctx context.Context) *event.Result {
		close(started)
		select {
		case <-ctx.Done():
			return &event.Result{Content: []event.Content{event.Text("cancelled")}, IsError: true}
		case <-release:
			return &event.Result{}
		}
	}) {
		t.Fatal("not started")
	}
	<-started
	if s.Go(ctx, "a", func(context.Context) *event.Result { return &event.Result{} }) {
		t.Fatal("a second call with a running id started")
	}
	s.Cancel("other")
	go s.Cancel("a")
	if !lines.Scan() {
		t.Fatal(lines.Err())
	}
	m, err := event.DecodeTool(lines.Bytes())
	r, ok := m.(*event.Result)
	if err != nil || !ok || r.ID != "a" || !r.IsError {
		t.Fatalf("result %s", lines.Bytes())
	}
	// the id is free again once answered
	if !s.Go(ctx, "a", func(context.Context) *event.Result { return &event.Result{} }) {
		t.Fatal("id not released")
	}
	if !lines.Scan() || !bytes.Contains(lines.Bytes(), []byte(`"id":"a"`)) {
		t.Fatalf("second result %s", lines.Bytes())
	}
	s.Wait()
	go s.SendLine([]byte("{\"type\":\"x\"}\n"))
	if !lines.Scan() || lines.Text() != `{"type":"x"}` {
		t.Fatalf("line %q", lines.Text())
	}
	close(release)
}

func TestServe(t *testing.T) {
	var out bytes.Buffer
	s := NewServer(&out)
	in := "\n" + `{"type":"call","id":"a","name":"x","arguments":{}}` + "\nnot json\n" + `{"type":"cancel","id":"b"}` + "\n" + `{"type":"hello"}` + "\n"
	var got []string
	err := s.Serve(strings.NewReader(in), Handlers{
		Message: func(m any, n int) error {
			switch m := m.(type) {
			case *event.Call:
				s.Go(context.Background(), m.ID, func(context.Context) *event.Result { return &event.Result{} })
			case *event.Hello:
				return io.ErrUnexpectedEOF // stops the reading
			}
			got = append(got, strings.TrimPrefix(strings.TrimPrefix(fmt.Sprintf("%T", m), "*event."), "main."))
			return nil
		},
		BadLine:  func(n int, err error) { got = append(got, fmt.Sprint("bad:", n)) },
		LongLine: func(n, size int) { got = append(got, fmt.Sprint("long:", n)) },
	})
	if err != io.ErrUnexpectedEOF {
		t.Errorf("err = %v", err)
	}
	if strings.Join(got, " ") != "Call bad:3 Cancel" {
		t.Errorf("got %q", got)
	}
	s.Wait()
	if !strings.Contains(out.String(), `"id":"a"`) {
		t.Errorf("no result written: %q", out.String())
	}
}

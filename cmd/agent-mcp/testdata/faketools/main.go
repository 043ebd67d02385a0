// Command faketools is a tool co-process (formats/tool-protocol) standing in
// for agent-tool in agent-mcp serve's tests: read, write, bash and weird.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentutils/agentutils/lib/event"
)

var (
	mu      sync.Mutex
	cwd     string
	cancels = map[string]chan struct{}{}
	answers = map[string]chan *event.Answer{}
	nask    int
	eof     bool // stdin ended: asks are cancelled at once
)

// ask sends a request and waits for its answer.
func ask(kind, payload string) *event.Answer {
	mu.Lock()
	nask++
	id := fmt.Sprintf("r%d", nask)
	if eof {
		mu.Unlock()
		return &event.Answer{RequestID: id, Cancelled: true, Value: json.RawMessage(`"eof"`)}
	}
	ch := make(chan *event.Answer, 1)
	answers[id] = ch
	mu.Unlock()
	send(&event.ToolAsk{RequestID: id, Kind: kind, Payload: json.RawMessage(payload)})
	return <-ch
}

func send(v any) {
	b, _ := event.EncodeTool(v)
	mu.Lock()
	os.Stdout.Write(b)
	mu.Unlock()
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var wg sync.WaitGroup
	obj := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"command":{"type":"string"}}}`)
	for sc.Scan() {
		m, err := event.DecodeTool(sc.Bytes())
		if err != nil {
			send(&event.Log{Level: "error", Msg: err.Error()})
			continue
		}
		switch m := m.(type) {
		case *event.Hello:
			cwd = m.Cwd
			send(&event.Tools{Tools: []event.ToolDef{
				{Name: "read", Label: "Read", Description: "Read a file.", Parameters: obj, Concurrency: event.Shared},
				{Name: "write", Label: "Write", Description: "Write a file.", Parameters: obj, Concurrency: event.Exclusive},
				{Name: "bash", Label: "Bash", Description: "Run a command.", Parameters: obj, Concurrency: event.Exclusive},
				{Name: "weird", Description: "A tool of no known class.", Parameters: json.RawMessage(`{}`), Concurrency: event.Shared},
				{Name: "confirm", Description: "Ask to confirm, twice.", Parameters: json.RawMessage(`{}`), Concurrency: event.Shared},
				{Name: "question", Description: "Ask a question with options.", Parameters: json.RawMessage(`{}`), Concurrency: event.Shared},
			}})
		case *event.Answer:
			mu.Lock()
			if ch, ok := answers[m.RequestID]; ok {
				ch <- m
				delete(answers, m.RequestID)
			}
			mu.Unlock()
		case *event.Cancel:
			mu.Lock()
			if ch, ok := cancels[m.ID]; ok {
				close(ch)
				delete(cancels, m.ID)
			}
			mu.Unlock()
		case *event.Call:
			ch := make(chan struct{})
			mu.Lock()
			cancels[m.ID] = ch
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				send(run(m, ch))
			}()
		}
	}
	// EOF: nobody will answer any more.
	mu.Lock()
	eof = true
	for id, ch := range answers {
		ch <- &event.Answer{RequestID: id, Cancelled: true, Value: json.RawMessage(`"eof"`)}
		delete(answers, id)
	}
	mu.Unlock()
	wg.Wait()
}

func run(c *event.Call, cancel chan struct{}) *event.Result {
	var a struct{ Path, Content, Command string }
	json.Unmarshal(c.Arguments, &a)
	fail := func(f string, args ...any) *event.Result {
		return &event.Result{ID: c.ID, Content: []event.Content{event.Text(fmt.Sprintf(f, args...))}, IsError: true}
	}
	path := filepath.Join(cwd, a.Path)
	switch c.Name {
	case "read":
		b, err := os.ReadFile(path)
		if err != nil {
			return fail("%v", err)
		}
		return &event.Result{ID: c.ID, Content: []event.Content{event.Text(string(b))}, Details: json.RawMessage(`{"path":"` + a.Path + `"}`)}
	case "write":
		if err := os.WriteFile(path, []byte(a.Content), 0o644); err != nil {
			return fail("%v", err)
		}
		return &event.Result{ID: c.ID, Content: []event.Content{event.Text("wrote " + a.Path)}}
	case "bash":
		for i := 1; i <= 2; i++ {
			send(&event.Update{ID: c.ID, PartialResult: event.ToolOutput{Content: []event.Content{event.Text(fmt.Sprintf("step %d", i))}}})
		}
		if a.Command == "wait" {
			<-cancel
			return fail("Command aborted")
		}
		return &event.Result{ID: c.ID, Content: []event.Content{event.Text("ran " + a.Command), {Type: "image", Data: "iVBORw==", MimeType: "image/png"}}}
	case "confirm", "question":
		var got []string
		for i := 1; i <= 2; i++ {
			var a *event.Answer
			if c.Name == "confirm" {
				a = ask("confirm", fmt.Sprintf(`{"title":"Delete","message":"Delete build/ (%d of 2)?"}`, i))
			} else {
				a = ask("ask", fmt.Sprintf(`{"question":"Colour %d?","options":["red","blue"]}`, i))
			}
			if a.Cancelled && string(a.Value) == `"eof"` {
				got = append(got, "cancelled at EOF")
			} else if a.Cancelled {
				got = append(got, "cancelled")
			} else {
				got = append(got, string(a.Value))
			}
			if f := os.Getenv("FAKETOOLS_LOG"); f != "" {
				fh, _ := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				fmt.Fprintf(fh, "%s %d: %s\n", c.Name, i, got[len(got)-1])
				fh.Close()
			}
		}
		return &event.Result{ID: c.ID, Content: []event.Content{event.Text(strings.Join(got, " "))}}
	}
	return &event.Result{ID: c.ID, Content: []event.Content{event.Text("weird")}}
}

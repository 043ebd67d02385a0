package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/subagent"
	"github.com/agentutils/agentutils/internal/toolproto"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
	"github.com/agentutils/agentutils/lib/redact"
	"github.com/agentutils/agentutils/lib/websearch"
)

// coproc is one tool co-process (--tools-cmd).
type coproc = toolproto.Client

// startTools starts every --tools-cmd with environ (toolEnviron), says
// hello, and returns their tool lists, one source each.
func startTools(ctx context.Context, cmds []string, cwd, sessionID string, environ []string, stderr io.Writer, ask *asker, notes *notices) ([]*coproc, []loop.Source, error) {
	var procs []*coproc
	var sources []loop.Source
	for _, c := range cmds {
		p, err := startCoproc(ctx, c, cwd, sessionID, environ, stderr, ask, notes)
		if err != nil {
			stopTools(procs)
			return nil, nil, err
		}
		procs = append(procs, p)
		select {
		case t := <-p.Tools():
			sources = append(sources, loop.Source{Name: c, Tools: t.Tools})
		case <-p.Dead():
			stopTools(procs)
			return nil, nil, fmt.Errorf("tool command %q exited before listing its tools: %v", c, p.Err())
		case <-time.After(30 * time.Second):
			stopTools(procs)
			return nil, nil, fmt.Errorf("tool command %q did not answer hello within 30 s", c)
		}
	}
	return procs, sources, nil
}

// onlyTools keeps the tools named in keep (--tools; all when empty); a
// name no source offers is an error naming the offered ones.
func onlyTools(sources []loop.Source, keep []string) ([]loop.Source, error) {
	if len(keep) == 0 {
		return sources, nil
	}
	var offered []string
	found := map[string]bool{}
	out := make([]loop.Source, len(sources))
	for i, s := range sources {
		out[i] = loop.Source{Name: s.Name}
		for _, t := range s.Tools {
			offered = append(offered, t.Name)
			if slices.Contains(keep, t.Name) {
				out[i].Tools = append(out[i].Tools, t)
				found[t.Name] = true
			}
		}
	}
	for _, k := range keep {
		if !found[k] {
			return nil, fmt.Errorf("--tools: no tool %q (tools: %s)", k, strings.Join(offered, ", "))
		}
	}
	return out, nil
}

// toolEnviron is the environment of the tool co-processes: agent-chat's
// without its keys and the variables whose names look secret
// (lib/redact), but for those the user named (--shell-env, shell.env),
// which also go on in AGENT_SHELL_ENV for agent-tool's bash, the keys
// of web_search's back-ends and the variables the http hooks' headers
// may use (hookVars; bash gets neither).
func toolEnviron(environ, keep, secrets, hookVars []string) []string {
	pass := append([]string{"AGENT_SHELL_ENV"}, hookVars...)
	for _, b := range websearch.Backends {
		pass = append(pass, b.KeyEnv) // web_search's; agent-tool keeps them from bash
	}
	out := redact.Environ(environ, append(keep, pass...), secrets)
	out = slices.DeleteFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "AGENT_SHELL_ENV=") })
	if len(keep) > 0 {
		out = append(out, "AGENT_SHELL_ENV="+strings.Join(keep, ","))
	}
	return out
}

func startCoproc(ctx context.Context, command, cwd, sessionID string, environ []string, stderr io.Writer, ask *asker, notes *notices) (*coproc, error) {
	// agent-chat fires no tool hooks itself: the co-process runs its own
	// (agent-tool serve --settings …; agent-mcp bridge only when told so).
	hooks := true
	var started atomic.Pointer[coproc] // set before any call, so before any request
	onAsk := func(m *event.ToolAsk) {
		if p := started.Load(); p != nil {
			go func() { p.Send(ask.answerFor(ctx, m)) }() // a person may take their time
		}
	}
	p, err := toolproto.Start(toolproto.Options{Command: command, Dir: cwd, Env: environ, Stderr: stderr,
		Hello: &event.Hello{Cwd: cwd, SessionID: sessionID, Hooks: &hooks},
		OnLog: func(m *event.Log) { fmt.Fprintf(stderr, "agent-chat: %s: %s: %s\n", command, m.Level, m.Msg) },
		OnBadLine: func(err error) {
			fmt.Fprintf(stderr, "agent-chat: %s: a line that is not a protocol message: %v\n", command, err)
		},
		OnAsk:    onAsk,
		OnNotice: notes.add,
	})
	if err != nil {
		return nil, fmt.Errorf("tool command %q: %v", command, err)
	}
	started.Store(p)
	return p, nil
}

// stopTools closes every co-process at once (EOF, then a kill after 5 s).
func stopTools(ps []*coproc) {
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.Close(5 * time.Second) }()
	}
	wg.Wait()
}

func toolsForModel(ts *loop.Toolset) []llm.Tool {
	var out []llm.Tool
	for _, t := range ts.Tools() {
		out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

// toolRunner is the tool co-processes of a run.
type toolRunner struct {
	procs     []*coproc
	toolset   *loop.Toolset
	ask       *asker
	restarted map[int]bool // co-processes restarted in this run (once each)
	environ   []string     // what they are started with (toolEnviron)
	// task runs the task tool, offered as the source after the
	// co-processes' (nil: not offered).
	task  *subagent.Runner
	notes *notices
}

// notices are the tool processes' notices not yet handed to the loop.
type notices struct {
	mu   sync.Mutex
	list []*event.Notice
	now  func() int64
}

func (n *notices) add(m *event.Notice) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, m)
}

// feed hands the notices that came in meanwhile to the loop (none
// without tool processes).
func (t *toolRunner) feed(l *loop.Loop) {
	if t != nil {
		t.notes.feed(l)
	}
}

// feed hands the notices that came in meanwhile to the loop.
func (n *notices) feed(l *loop.Loop) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range n.list {
		l.Notice(loop.Notice{CustomType: m.CustomType, Text: m.Text, Details: m.Details, Timestamp: n.now()})
	}
	n.list = nil
}

// stop ends the tool processes and hands the loop the notices they sent
// until then: those a run that is over still writes.
func (t *toolRunner) stop(l *loop.Loop) {
	if t == nil {
		return
	}
	stopTools(t.procs)
	t.feed(l)
}

// answersFrom reads an --answers file: a JSON object of answers by
// question id or text (and exit_plan_mode's under its name).
func answersFrom(data []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object of answers by question id or text: %v", err)
	}
	return m, nil
}

// revive restarts, once per run, a tool co-process that has died; its
// calls in the meantime got "tool process exited" results.
func (t *toolRunner) revive(ctx context.Context, env *app.Env, sessionID string) {
	for i, p := range t.procs {
		select {
		case <-p.Dead():
		default:
			continue
		}
		if t.restarted == nil {
			t.restarted = map[int]bool{}
		}
		if t.restarted[i] {
			continue
		}
		t.restarted[i] = true
		np, err := startCoproc(ctx, p.Command(), env.Dir, sessionID, t.environ, env.Stderr, t.ask, t.notes)
		if err != nil {
			continue
		}
		select {
		case <-np.Tools():
			t.procs[i] = np
			fmt.Fprintf(env.Stderr, "agent-chat: tool command %q exited (%v); restarted\n", p.Command(), p.Err())
		case <-np.Dead():
		case <-time.After(30 * time.Second):
			np.Kill()
		}
	}
}

// set is the merged toolset (nil without co-processes).
func (t *toolRunner) set() *loop.Toolset {
	if t == nil {
		return nil
	}
	return t.toolset
}

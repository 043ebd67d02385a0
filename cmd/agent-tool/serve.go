package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/loop"
)

func serveCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "speak the tool co-process protocol on stdin/stdout",
		Description: `Answers hello with the tools, runs calls concurrently (exclusive tools one at a time),
streams update messages for long bash calls, honours cancel, and answers each call with exactly one
result. A line that is not a protocol message is answered with a log record of level error and
skipped. At EOF on stdin it lets running calls finish, writes their results and exits 0.

Example:
   agent-chat --tools-cmd "agent-tool serve --tools read,edit,bash" "fix the test"`,
		Flags: []cli.Flag{toolsFlag, stateFlag},
		Action: func(c *cli.Context) error {
			ts, err := selected(c)
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			return serve(c.Context, ts, toolEnv(c, env), env.Stdin, env.Stdout)
		},
	}
}

// server is one serve session: its tools, the writer shared by every
// call's goroutine, and the running calls.
type server struct {
	tools     []tools.Tool
	env       *tools.Env
	w         *bufio.Writer
	wmu       sync.Mutex
	exclusive sync.Mutex // held by an exclusive tool while it runs
	shared    sync.RWMutex
	mu        sync.Mutex
	running   map[string]context.CancelFunc
	wg        sync.WaitGroup
	valid     *loop.Validator
}

func serve(ctx context.Context, ts []tools.Tool, env *tools.Env, in io.Reader, out io.Writer) error {
	s := &server{tools: ts, env: env, w: bufio.NewWriter(out), running: map[string]context.CancelFunc{}}
	var defs []loop.Tool
	for _, t := range ts {
		defs = append(defs, loop.Tool{ToolDef: t.Def})
	}
	v, err := loop.NewValidator(defs)
	if err != nil {
		return err
	}
	s.valid = v
	r := bufio.NewReaderSize(in, 256<<10)
	for n := 1; ; n++ {
		line, rerr := r.ReadBytes('\n')
		if len(line) > 0 {
			s.handle(ctx, line, n)
		}
		if rerr != nil {
			break
		}
	}
	// EOF: let every running call finish and answer, then exit (a parent
	// that wants them stopped sends cancel first).
	s.wg.Wait()
	return nil
}

func (s *server) send(v any) {
	b, err := event.EncodeTool(v)
	if err != nil {
		return
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.w.Write(b)
	s.w.Flush()
}

func (s *server) handle(ctx context.Context, line []byte, n int) {
	if len(trimSpace(line)) == 0 {
		return
	}
	msg, err := event.DecodeTool(line)
	if err != nil {
		s.send(&event.Log{Level: "error", Msg: fmt.Sprintf("stdin:%d: %v (line skipped)", n, err)})
		return
	}
	switch m := msg.(type) {
	case *event.Hello:
		if m.Cwd != "" {
			s.env.Cwd = m.Cwd
		}
		if m.StateDir != "" && s.env.StateDir == "" {
			s.env.StateDir = m.StateDir
		}
		offer := s.tools
		if len(m.Tools) > 0 {
			sel, err := tools.Select(m.Tools)
			if err != nil {
				s.send(&event.Log{Level: "error", Msg: err.Error()})
			} else {
				offer = sel
			}
		}
		reply := &event.Tools{Tools: []event.ToolDef{}}
		for _, t := range offer {
			reply.Tools = append(reply.Tools, t.Def)
		}
		s.send(reply)
	case *event.Call:
		s.call(ctx, m)
	case *event.Cancel:
		s.mu.Lock()
		for id, cancel := range s.running {
			if m.ID == "" || m.ID == id {
				cancel()
			}
		}
		s.mu.Unlock()
	case *event.Answer:
		// No tool of ours asks a person; an answer is acknowledged silently.
	default:
		s.send(&event.Log{Level: "error", Msg: fmt.Sprintf("stdin:%d: a %T is not sent to a tool process (line skipped)", n, msg)})
	}
}

func (s *server) call(parent context.Context, m *event.Call) {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	if _, dup := s.running[m.ID]; dup {
		s.mu.Unlock()
		cancel()
		s.send(&event.Result{ID: m.ID, Content: []event.Content{event.Text("a call with id " + m.ID + " is already running")}, IsError: true})
		return
	}
	s.running[m.ID] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, m.ID)
			s.mu.Unlock()
			cancel()
		}()
		start := time.Now()
		exclusive := false
		for _, t := range s.tools {
			if t.Def.Name == m.Name && t.Def.Concurrency == event.Exclusive {
				exclusive = true
			}
		}
		// Exclusive calls run alone; shared calls run together.
		if exclusive {
			s.shared.Lock()
			defer s.shared.Unlock()
		} else {
			s.shared.RLock()
			defer s.shared.RUnlock()
		}
		var r event.Result
		if ctx.Err() != nil {
			r = event.Result{Content: []event.Content{event.Text("Tool execution was aborted.")}, IsError: true}
		} else if args, err := s.valid.Validate(m.Name, m.Arguments); err != nil {
			r = event.Result{Content: []event.Content{event.Text(err.Error())}, IsError: true}
		} else {
			r = tools.Run(ctx, s.tools, s.env, m.Name, args, func(o event.ToolOutput) {
				s.send(&event.Update{ID: m.ID, PartialResult: o})
			})
		}
		r.ID, r.DurationMs = m.ID, time.Since(start).Milliseconds()
		s.send(&r)
	}()
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// runTool runs one call in the foreground (call and run), validating the
// arguments first.
func runTool(c *cli.Context, ts []tools.Tool, env *tools.Env, name string, args json.RawMessage, update func(event.ToolOutput)) event.Result {
	var defs []loop.Tool
	for _, t := range ts {
		defs = append(defs, loop.Tool{ToolDef: t.Def})
	}
	v, err := loop.NewValidator(defs)
	if err == nil {
		if args, err = v.Validate(name, args); err != nil {
			return event.Result{Content: []event.Content{event.Text(err.Error())}, IsError: true}
		}
	}
	return tools.Run(c.Context, ts, env, name, args, update)
}

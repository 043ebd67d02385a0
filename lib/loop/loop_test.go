package loop

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

// assistant builds an assistant message: text, or tool calls "id:name:args".
func assistant(stop string, totalTokens int, parts ...string) json.RawMessage {
	var content []string
	for _, p := range parts {
		if id, rest, ok := strings.Cut(p, ":"); ok && strings.HasPrefix(id, "t") {
			name, args, _ := strings.Cut(rest, ":")
			content = append(content, fmt.Sprintf(`{"type":"toolCall","id":%q,"name":%q,"arguments":%s}`, id, name, args))
		} else {
			content = append(content, fmt.Sprintf(`{"type":"text","text":%q}`, p))
		}
	}
	extra := ""
	if stop == StopError || stop == StopAborted {
		extra = `,"errorMessage":"boom"`
	}
	return json.RawMessage(fmt.Sprintf(`{"role":"assistant","content":[%s],"stopReason":%q,"usage":{"input":1,"output":1,"totalTokens":%d}%s,"timestamp":1}`,
		strings.Join(content, ","), stop, totalTokens, extra))
}

func user(text string) json.RawMessage { return UserMessage(text, nil, 0) }

// driver feeds a loop and records every step's trace.
type driver struct {
	t    *testing.T
	l    *Loop
	got  []string
	done *Done
}

func (d *driver) step(s Step) {
	d.got = append(d.got, trace(s)...)
	if s.Done != nil {
		d.done = s.Done
	}
}

func (d *driver) model(m json.RawMessage) {
	d.t.Helper()
	s, err := d.l.AssistantDone(m, 5)
	if err != nil {
		d.t.Fatal(err)
	}
	d.step(s)
}

func newDriver(t *testing.T, cfg Config) *driver {
	ts, v := testTools(t)
	cfg.Tools, cfg.Validator = ts, v
	return &driver{t: t, l: New(cfg, []json.RawMessage{user("old")}, &Queue{})}
}

func check(t *testing.T, want []string, d *driver) {
	t.Helper()
	if diff := cmp.Diff(want, d.got); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestLoopPlainText(t *testing.T) {
	d := newDriver(t, Config{})
	d.step(d.l.Start([]json.RawMessage{user("hi")}))
	if n := len(d.l.Context()); n != 2 {
		t.Errorf("context has %d messages, want 2", n)
	}
	d.model(assistant(StopStop, 10, "hello"))
	check(t, []string{
		"agent_start", "turn_start", "message_start user:hi", "message_end user:hi", "MODEL",
		"turn_end assistant[stop]:hello results=[]", "agent_end messages=2", "DONE stop",
	}, d)
}

func TestLoopTools(t *testing.T) {
	d := newDriver(t, Config{})
	d.step(d.l.Start([]json.RawMessage{user("fix")}))
	d.model(assistant(StopToolUse, 10, "t1:read:{\"path\":\"a\"}", "t2:grep:{}", "t3:bash:{}"))
	d.step(d.l.ToolUpdate(event.Update{ID: "t2", PartialResult: event.ToolOutput{Content: []event.Content{event.Text("partial")}}}))
	d.step(d.l.ToolResult(result("t2", "g"), 6))
	d.step(d.l.ToolResult(result("t1", "r"), 6))
	d.step(d.l.ToolResult(result("t3", "b"), 7))
	if d.l.Turns() != 2 {
		t.Errorf("turns = %d", d.l.Turns())
	}
	d.model(assistant(StopStop, 10, "fixed"))
	check(t, []string{
		"agent_start", "turn_start", "message_start user:fix", "message_end user:fix", "MODEL",
		`tool_execution_start t1 read {"path":"a"}`, `CALL 0 t1 read {"path":"a"}`,
		`tool_execution_start t2 grep {}`, `CALL 0 t2 grep {}`,
		"tool_execution_update t2 partial",
		`tool_execution_start t3 bash {}`, `CALL 0 t3 bash {}`,
		"tool_execution_end t1 err=false r", "message_start toolResult(t1):r", "message_end toolResult(t1):r",
		"tool_execution_end t2 err=false g", "message_start toolResult(t2):g", "message_end toolResult(t2):g",
		"tool_execution_end t3 err=false b", "message_start toolResult(t3):b", "message_end toolResult(t3):b",
		"turn_end assistant[toolUse]:call:t1|call:t2|call:t3 results=[toolResult(t1):r toolResult(t2):g toolResult(t3):b]",
		"turn_start", "MODEL",
		"turn_end assistant[stop]:fixed results=[]", "agent_end messages=6", "DONE stop",
	}, d)
	if n := len(d.l.Context()); n != 7 {
		t.Errorf("context has %d messages, want 7", n)
	}
}

func TestLoopOnlySyntheticCalls(t *testing.T) {
	d := newDriver(t, Config{})
	d.step(d.l.Start(nil))
	d.model(assistant(StopToolUse, 10, "t1:missing:{}"))
	check(t, []string{
		"agent_start", "turn_start", "MODEL",
		"tool_execution_start t1 missing {}", "tool_execution_end t1 err=true Tool missing not found",
		"message_start toolResult(t1)!:Tool missing not found", "message_end toolResult(t1)!:Tool missing not found",
		"turn_end assistant[toolUse]:call:t1 results=[toolResult(t1)!:Tool missing not found]",
		"turn_start", "MODEL",
	}, d)
}

// The calls of an errored or aborted assistant message never run and get
// no results, as in pi's agent loop.
func TestLoopErrorAndAbortedMessages(t *testing.T) {
	for _, tt := range []struct{ stop, reason string }{
		{StopError, EndError},
		{StopAborted, EndAborted},
	} {
		t.Run(tt.stop, func(t *testing.T) {
			d := newDriver(t, Config{ContextWindow: 100})
			d.step(d.l.Start([]json.RawMessage{user("go")}))
			d.l.FollowUp(user("later"))
			d.model(assistant(tt.stop, 99, "t1:read:{\"path\":\"a\"}"))
			check(t, []string{
				"agent_start", "turn_start", "message_start user:go", "message_end user:go", "MODEL",
				fmt.Sprintf("turn_end assistant[%s]:call:t1 results=[]", tt.stop),
				"agent_end messages=2", "DONE " + tt.reason + " unsent=user:later",
			}, d)
		})
	}
}

func TestLoopMaxTurns(t *testing.T) {
	d := newDriver(t, Config{MaxTurns: 1})
	d.step(d.l.Start([]json.RawMessage{user("go")}))
	d.model(assistant(StopToolUse, 10, "t1:grep:{}"))
	d.step(d.l.ToolResult(result("t1", "g"), 6))
	check(t, []string{
		"agent_start", "turn_start", "message_start user:go", "message_end user:go", "MODEL",
		"tool_execution_start t1 grep {}", "CALL 0 t1 grep {}",
		"tool_execution_end t1 err=false g", "message_start toolResult(t1):g", "message_end toolResult(t1):g",
		"turn_end assistant[toolUse]:call:t1 results=[toolResult(t1):g]",
		"agent_end messages=3", "DONE max_turns",
	}, d)
}

func TestLoopSteeringInterrupts(t *testing.T) {
	for _, mode := range []InterruptMode{Immediate, Wait} {
		t.Run(string(mode), func(t *testing.T) {
			d := newDriver(t, Config{Interrupt: mode})
			d.step(d.l.Start([]json.RawMessage{user("go")}))
			d.model(assistant(StopToolUse, 10, "t1:read:{\"path\":\"a\"}", "t2:grep:{}", "t3:bash:{}"))
			d.got = nil
			d.l.Steer(user("stop that"))
			d.step(d.l.ToolResult(result("t1", "r"), 6))
			d.step(d.l.ToolResult(result("t2", "g"), 6))
			if mode == Wait {
				d.step(d.l.ToolResult(result("t3", "b"), 6))
			}
			want := []string{
				"CANCEL 0 t2",
				"tool_execution_end t1 err=false r", "message_start toolResult(t1):r", "message_end toolResult(t1):r",
				"tool_execution_end t2 err=true " + TextSkipped, "message_start toolResult(t2)!:" + TextSkipped, "message_end toolResult(t2)!:" + TextSkipped,
				"tool_execution_start t3 bash {}", "tool_execution_end t3 err=true " + TextSkipped, "message_start toolResult(t3)!:" + TextSkipped, "message_end toolResult(t3)!:" + TextSkipped,
				"turn_end assistant[toolUse]:call:t1|call:t2|call:t3 results=[toolResult(t1):r toolResult(t2)!:Skipped due to queued user message. toolResult(t3)!:Skipped due to queued user message.]",
				"turn_start", "message_start user:stop that", "message_end user:stop that", "MODEL",
			}
			if mode == Wait {
				want = []string{
					`tool_execution_start t3 bash {}`, `CALL 0 t3 bash {}`,
					"tool_execution_end t1 err=false r", "message_start toolResult(t1):r", "message_end toolResult(t1):r",
					"tool_execution_end t2 err=false g", "message_start toolResult(t2):g", "message_end toolResult(t2):g",
					"tool_execution_end t3 err=false b", "message_start toolResult(t3):b", "message_end toolResult(t3):b",
					"turn_end assistant[toolUse]:call:t1|call:t2|call:t3 results=[toolResult(t1):r toolResult(t2):g toolResult(t3):b]",
					"turn_start", "message_start user:stop that", "message_end user:stop that", "MODEL",
				}
			}
			check(t, want, d)
		})
	}
}

func TestLoopQueues(t *testing.T) {
	d := newDriver(t, Config{})
	d.l.Steer(user("early"))
	d.step(d.l.Start([]json.RawMessage{user("go")}))
	d.l.FollowUp(user("f1"))
	d.l.FollowUp(user("f2"))
	d.model(assistant(StopStop, 10, "a1"))
	d.l.Steer(user("s1"))
	d.model(assistant(StopStop, 10, "a2"))
	d.model(assistant(StopStop, 10, "a3"))
	d.model(assistant(StopStop, 10, "a4"))
	check(t, []string{
		"agent_start", "turn_start", "message_start user:go", "message_end user:go", "message_start user:early", "message_end user:early", "MODEL",
		"turn_end assistant[stop]:a1 results=[]", "turn_start", "message_start user:f1", "message_end user:f1", "MODEL",
		"turn_end assistant[stop]:a2 results=[]", "turn_start", "message_start user:s1", "message_end user:s1", "MODEL",
		"turn_end assistant[stop]:a3 results=[]", "turn_start", "message_start user:f2", "message_end user:f2", "MODEL",
		"turn_end assistant[stop]:a4 results=[]", "agent_end messages=9", "DONE stop",
	}, d)
}

func TestLoopAbortDuringTools(t *testing.T) {
	d := newDriver(t, Config{})
	d.step(d.l.Start([]json.RawMessage{user("go")}))
	d.model(assistant(StopToolUse, 10, "t1:read:{\"path\":\"a\"}", "t2:bash:{}"))
	d.got = nil
	d.l.FollowUp(user("queued"))
	d.step(d.l.Abort(6))
	d.step(d.l.ToolResult(event.Result{ID: "t1", Content: []event.Content{event.Text("cancelled")}, IsError: true}, 7))
	check(t, []string{
		"CANCEL 0 t1",
		"tool_execution_end t1 err=true cancelled", "message_start toolResult(t1)!:cancelled", "message_end toolResult(t1)!:cancelled",
		"tool_execution_start t2 bash {}", "tool_execution_end t2 err=true " + TextAborted,
		"message_start toolResult(t2)!:" + TextAborted, "message_end toolResult(t2)!:" + TextAborted,
		"turn_end assistant[toolUse]:call:t1|call:t2 results=[toolResult(t1)!:cancelled toolResult(t2)!:Tool execution was aborted.]",
		"agent_end messages=4", "DONE aborted unsent=user:queued",
	}, d)
	if s := d.l.Abort(8); s.Done != nil || len(s.Events) != 0 {
		t.Error("abort after the end did something")
	}
}

func TestLoopAbortWhileStreaming(t *testing.T) {
	d := newDriver(t, Config{})
	d.step(d.l.Start([]json.RawMessage{user("go")}))
	d.step(d.l.Abort(6)) // the driver cancels the request itself
	// The model call happened to finish normally with tool calls: no tool runs.
	d.model(assistant(StopToolUse, 10, "t1:grep:{}"))
	check(t, []string{
		"agent_start", "turn_start", "message_start user:go", "message_end user:go", "MODEL",
		"tool_execution_start t1 grep {}", "tool_execution_end t1 err=true " + TextAborted,
		"message_start toolResult(t1)!:" + TextAborted, "message_end toolResult(t1)!:" + TextAborted,
		"turn_end assistant[toolUse]:call:t1 results=[toolResult(t1)!:Tool execution was aborted.]",
		"agent_end messages=3", "DONE aborted",
	}, d)
}

func TestLoopSourceExited(t *testing.T) {
	d := newDriver(t, Config{})
	d.step(d.l.Start([]json.RawMessage{user("go")}))
	d.model(assistant(StopToolUse, 10, "t1:grep:{}"))
	d.got = nil
	d.step(d.l.SourceExited(0, "signal: killed", 6))
	check(t, []string{
		"tool_execution_end t1 err=true tool process exited: signal: killed",
		"message_start toolResult(t1)!:tool process exited: signal: killed", "message_end toolResult(t1)!:tool process exited: signal: killed",
		"turn_end assistant[toolUse]:call:t1 results=[toolResult(t1)!:tool process exited: signal: killed]",
		"turn_start", "MODEL",
	}, d)
}

func TestLoopCompactionSuggested(t *testing.T) {
	tests := []struct {
		window, tokens int
		want           bool
	}{
		{0, 1 << 30, false},
		{200000, 170001, true},
		{200000, 170000, false},
		{100000, 83617, true},
	}
	for _, tt := range tests {
		d := newDriver(t, Config{ContextWindow: tt.window})
		d.step(d.l.Start([]json.RawMessage{user("go")}))
		d.model(assistant(StopStop, tt.tokens, "ok"))
		got := strings.Contains(strings.Join(d.got, "\n"), "compaction_suggested")
		if got != tt.want {
			t.Errorf("window %d tokens %d: suggested=%v, want %v (%q)", tt.window, tt.tokens, got, tt.want, d.got)
		}
	}
}

func TestLoopMisuse(t *testing.T) {
	d := newDriver(t, Config{})
	if _, err := d.l.AssistantDone(assistant(StopStop, 1, "x"), 1); err == nil {
		t.Error("assistant before Start: no error")
	}
	d.step(d.l.Start(nil))
	if s := d.l.Start(nil); len(s.Events) != 0 {
		t.Error("second Start did something")
	}
	if _, err := d.l.AssistantDone(user("x"), 1); err == nil {
		t.Error("user message as assistant: no error")
	}
	if s := d.l.ToolResult(result("t9", "x"), 1); len(trace(s)) != 0 {
		t.Error("result outside a batch did something")
	}
}

func TestLoopSetTools(t *testing.T) {
	d := newDriver(t, Config{})
	d.step(d.l.Start([]json.RawMessage{user("go")}))
	ts, err := Merge([]Source{{Name: "new", Tools: []event.ToolDef{def("fresh", "shared")}}})
	if err != nil {
		t.Fatal(err)
	}
	d.l.SetTools(ts, nil)
	d.got = nil
	d.model(assistant(StopToolUse, 10, "t1:fresh:{}", "t2:read:{}"))
	check(t, []string{
		"tool_execution_start t1 fresh {}", "CALL 0 t1 fresh {}",
	}, d)
}

package loop

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/jsonschema"
	"github.com/agentutils/agentutils/lib/llm"
)

var testModel = llm.Model{Provider: "fake", ID: "m", ContextWindow: 100000, Reasoning: true}

// testConfig: read (shared, with a schema) and grep (shared) from source
// 0; bash (exclusive) from source 1, not abortable.
func testConfig(t *testing.T) Config {
	t.Helper()
	bash := def("bash", event.Exclusive)
	bash.NonAbortable = true
	ts, err := Merge([]Source{
		{Name: "a", Tools: []event.ToolDef{
			{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			def("grep", event.Shared)}},
		{Name: "b", Tools: []event.ToolDef{bash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.NewValidator(ts.Defs())
	if err != nil {
		t.Fatal(err)
	}
	return Config{Model: testModel, Thinking: "off", Tools: ts, Validator: v, MaxTurns: 10, Retries: 2, RetryBase: time.Second}
}

func answer(stop, text string, calls ...llm.Content) llm.Message {
	m := llm.Message{Role: "assistant", StopReason: stop, Content: []llm.Content{llm.TextBlock(text)}}
	m.Content = append(m.Content, calls...)
	return m
}

func call(id, name, args string) llm.Content {
	return llm.ToolCallBlock(id, name, json.RawMessage(args))
}

func user(text string) *llm.Message {
	return &llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(text)}}
}

// types lists a step's event types, with the tool call id of tool events.
func types(s Step) []string {
	var out []string
	for _, e := range s.Events {
		t := e.Type
		if e.ToolCallID != "" {
			t += ":" + e.ToolCallID
		}
		out = append(out, t)
	}
	return out
}

func check(t *testing.T, s Step, action Action, want ...string) {
	t.Helper()
	if s.Action != action {
		t.Errorf("action %d, want %d", s.Action, action)
	}
	if d := cmp.Diff(want, types(s)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

func TestLoopPlainAnswer(t *testing.T) {
	l := New(testConfig(t))
	check(t, l.Start(user("hi")), CallModel, "agent_start", "turn_start", "message_start", "message_end")
	if n := len(l.Context().Messages); n != 1 {
		t.Fatalf("context has %d messages", n)
	}
	s := l.ModelDone(answer(llm.StopStop, "hello"), false, 1)
	check(t, s, Done, "message_end", "turn_end", "agent_end")
	if s.Err != nil {
		t.Errorf("err = %v", s.Err)
	}
	if n := len(s.Events[2].Messages); n != 2 {
		t.Errorf("agent_end has %d messages, want 2", n)
	}
}

func TestLoopToolBatch(t *testing.T) {
	l := New(testConfig(t))
	l.Start(user("go"))
	s := l.ModelDone(answer(llm.StopToolUse, "",
		call("c1", "read", `{"path":"a"}`), call("c2", "nope", `{}`), call("c3", "read", `{}`),
		call("c4", "bash", `{"command":"ls"}`), call("c5", "grep", `{}`)), false, 1)
	// stage 1: c1 runs, c2 (unknown) and c3 (invalid) are answered at once
	check(t, s, RunTools, "message_end", "tool_execution_start:c1", "tool_execution_start:c2", "tool_execution_start:c3")
	if !s.Revive || len(s.Dispatch) != 1 || s.Dispatch[0].Call.ID != "c1" || s.Dispatch[0].Source != 0 || !s.Dispatch[0].Abortable {
		t.Fatalf("dispatch = %+v", s.Dispatch)
	}
	check(t, l.ToolUpdate(0, event.ToolOutput{Content: []event.Content{event.Text("part")}}), RunTools, "tool_execution_update:c1")
	s = l.ToolResult(0, llm.Message{Role: "toolResult", ToolCallID: "c1", ToolName: "read", Content: []llm.Content{llm.TextBlock("x")}}, 2)
	// stage 2: bash alone (exclusive), not abortable
	check(t, s, RunTools, "tool_execution_end:c1", "tool_execution_end:c2", "tool_execution_end:c3", "tool_execution_start:c4")
	if len(s.Dispatch) != 1 || s.Dispatch[0].Source != 1 || s.Dispatch[0].Abortable {
		t.Fatalf("dispatch = %+v", s.Dispatch)
	}
	s = l.ToolResult(3, llm.Message{Role: "toolResult", ToolCallID: "c4", ToolName: "bash"}, 3)
	check(t, s, RunTools, "tool_execution_end:c4", "tool_execution_start:c5")
	check(t, l.ToolResult(3, llm.Message{}, 3), RunTools) // a second result is ignored
	s = l.ToolResult(4, llm.Message{Role: "toolResult", ToolCallID: "c5", ToolName: "grep"}, 4)
	check(t, s, CallModel, "tool_execution_end:c5",
		"message_start", "message_end", "message_start", "message_end", "message_start", "message_end", "message_start", "message_end", "message_start", "message_end",
		"turn_end", "turn_start")
	msgs := l.Context().Messages
	if len(msgs) != 7 {
		t.Fatalf("context has %d messages, want 7", len(msgs))
	}
	if got := msgs[3].Content[0].Text; got != "Tool nope not found" {
		t.Errorf("unknown tool result %q", got)
	}
	if got := msgs[4].Content[0].Text; !strings.Contains(got, "must have required property 'path'") {
		t.Errorf("validation result %q", got)
	}
}

func TestLoopMaxTurns(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxTurns = 1
	l := New(cfg)
	l.Start(user("go"))
	s := l.ModelDone(answer(llm.StopToolUse, "", call("c1", "read", `{"path":"a"}`)), false, 1)
	check(t, s, Done, "message_end", "message_start", "message_end", "turn_end", "max_turns", "agent_end")
	if exit.Code(s.Err) != exit.MaxTurns || !strings.Contains(s.Warning, "--max-turns 1 with 1 tool call(s) left") {
		t.Errorf("err %v, warning %q", s.Err, s.Warning)
	}
	var r llm.Message
	json.Unmarshal(s.Events[2].Message, &r)
	if r.Content[0].Text != "Not run: agent-chat stopped at --max-turns 1." || !r.IsError {
		t.Errorf("result %+v", r)
	}
}

func TestLoopNoToolsEndsAtToolUse(t *testing.T) {
	cfg := testConfig(t)
	cfg.Tools = nil
	l := New(cfg)
	l.Start(user("go"))
	s := l.ModelDone(answer(llm.StopToolUse, "", call("c1", "read", `{}`)), false, 1)
	check(t, s, Done, "message_end", "turn_end", "agent_end")
}

func TestLoopRetry(t *testing.T) {
	l := New(testConfig(t))
	l.Start(user("go"))
	overloaded := llm.Message{Role: "assistant", StopReason: llm.StopError, ErrorMessage: "529 overloaded_error: Overloaded"}
	s := l.ModelDone(overloaded, false, 1)
	check(t, s, Wait, "message_end", "auto_retry_start")
	if s.Delay != time.Second || !strings.Contains(string(s.Events[0].Message), `"retried":true`) {
		t.Errorf("delay %v, message %s", s.Delay, s.Events[0].Message)
	}
	check(t, l.Retry(), CallModel)
	s = l.ModelDone(overloaded, false, 2)
	if s.Delay != 2*time.Second {
		t.Errorf("second delay %v", s.Delay)
	}
	l.Retry()
	s = l.ModelDone(answer(llm.StopStop, "ok"), false, 3)
	check(t, s, Done, "message_end", "auto_retry_end", "turn_end", "agent_end")
	if !*s.Events[1].Success || s.Events[1].Attempt != 2 {
		t.Errorf("auto_retry_end %+v", s.Events[1])
	}
	// no retry left: the error ends the run (exit 1)
	l = New(testConfig(t))
	l.Start(user("go"))
	l.ModelDone(overloaded, false, 1)
	s = l.RetryCancelled()
	check(t, s, Done, "auto_retry_end", "turn_end", "agent_end")
	if exit.Code(s.Err) != exit.Interrupted {
		t.Errorf("err %v", s.Err)
	}
}

func TestLoopErrors(t *testing.T) {
	cfg := testConfig(t)
	cfg.Retries = 0
	l := New(cfg)
	l.Start(user("go"))
	s := l.ModelDone(llm.Message{Role: "assistant", StopReason: llm.StopError, ErrorMessage: "prompt is too long: 200000 tokens > 100000 maximum"}, false, 1)
	check(t, s, Done, "message_end", "context_overflow", "turn_end", "agent_end")
	if exit.Code(s.Err) != exit.Overflow {
		t.Errorf("err %v", s.Err)
	}
	l = New(cfg)
	l.Start(user("go"))
	s = l.ModelDone(llm.Message{Role: "assistant", StopReason: llm.StopError, ErrorMessage: "bad request"}, false, 1)
	if exit.Code(s.Err) != exit.Failure || s.Err.Error() != "fake/m: bad request" {
		t.Errorf("err %v", s.Err)
	}
	l = New(cfg)
	l.Start(user("go"))
	s = l.ModelDone(answer(llm.StopStop, "partial"), true, 1)
	if exit.Code(s.Err) != exit.Interrupted || !strings.Contains(string(s.Events[0].Message), `"stopReason":"aborted"`) {
		t.Errorf("err %v, message %s", s.Err, s.Events[0].Message)
	}
}

func TestLoopCompactionSuggested(t *testing.T) {
	l := New(testConfig(t))
	l.Start(user("go"))
	a := answer(llm.StopStop, "big")
	a.Usage = &llm.Usage{TotalTokens: 90000}
	s := l.ModelDone(a, false, 1)
	check(t, s, Done, "message_end", "compaction_suggested", "turn_end", "agent_end")
	if e := s.Events[1]; e.ContextTokens != 90000 || e.ContextWindow != 100000 || e.Reason != "threshold" {
		t.Errorf("event %+v", e)
	}
}

func TestLoopAbortDuringTools(t *testing.T) {
	l := New(testConfig(t))
	l.Start(user("go"))
	l.ModelDone(answer(llm.StopToolUse, "", call("c1", "grep", `{}`), call("c2", "bash", `{}`)), false, 1)
	l.Abort()
	s := l.ToolResult(0, llm.Message{Role: "toolResult", ToolCallID: "c1", ToolName: "grep"}, 2)
	// bash is never sent: it is answered as aborted, and the run ends
	if len(s.Dispatch) != 0 {
		t.Fatalf("dispatch after abort: %+v", s.Dispatch)
	}
	check(t, s, Done, "tool_execution_end:c1", "tool_execution_start:c2", "tool_execution_end:c2",
		"message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end")
	if exit.Code(s.Err) != exit.Interrupted || *s.Events[2].IsError != true || s.Events[2].Result.Content[0].Text != TextAborted {
		t.Errorf("err %v, end %+v", s.Err, s.Events[2].Result)
	}
}

func TestLoopControl(t *testing.T) {
	cfg := testConfig(t)
	cfg.Control = true
	l := New(cfg)
	l.Steer(*user("first"))
	l.SetThinking("high")
	s := l.Start(user("go"))
	check(t, s, CallModel, "agent_start", "turn_start", "message_start", "message_end", "entry", "message_start", "message_end")
	if l.Thinking() != "high" {
		t.Errorf("thinking %q", l.Thinking())
	}
	// a follow-up continues a run that would stop
	l.FollowUp(*user("more"))
	s = l.ModelDone(answer(llm.StopStop, "done"), false, 1)
	check(t, s, CallModel, "message_end", "message_start", "message_end", "turn_end", "turn_start")
	s = l.ModelDone(answer(llm.StopStop, "done again"), false, 2)
	check(t, s, Done, "message_end", "turn_end", "agent_end")
	if n := len(l.Context().Messages); n != 4 {
		t.Errorf("context has %d messages, want 4", n)
	}
}

func TestLoopStopHook(t *testing.T) {
	cfg := testConfig(t)
	cfg.StopHooks = true
	l := New(cfg)
	l.Start(user("go"))
	s := l.ModelDone(answer(llm.StopStop, "done"), false, 1)
	check(t, s, StopHook, "message_end")
	if s.HookActive {
		t.Error("hook active on the first stop")
	}
	s = l.StopHookDone(true, "run the tests", 2)
	check(t, s, CallModel, "turn_end", "turn_start", "message_start", "message_end")
	s = l.ModelDone(answer(llm.StopStop, "tested"), false, 3)
	if s.Action != StopHook || !s.HookActive {
		t.Fatalf("second stop: %+v", s)
	}
	check(t, l.StopHookDone(false, "", 4), Done, "turn_end", "agent_end")
}

func TestLoopUniqueToolCallIDs(t *testing.T) {
	cfg := testConfig(t)
	cfg.Context.History = []json.RawMessage{json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"grep","arguments":{}}]}`)}
	l := New(cfg)
	l.Start(user("go"))
	s := l.ModelDone(answer(llm.StopToolUse, "", call("c1", "grep", `{}`)), false, 1)
	if id := s.Dispatch[0].Call.ID; id == "c1" {
		t.Errorf("a call id of the history was reused")
	}
}

func TestDropOverflow(t *testing.T) {
	h := []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{}`)}
	over := llm.Message{Role: "assistant", StopReason: llm.StopError, ErrorMessage: "prompt is too long: 2100 tokens > 1000 maximum"}
	if got := DropOverflow(h, over, 1000); len(got) != 1 {
		t.Errorf("overflow kept: %d", len(got))
	}
	if got := DropOverflow(h, llm.Message{Role: "assistant", StopReason: llm.StopError, ErrorMessage: "Overloaded"}, 1000); len(got) != 2 {
		t.Errorf("other error dropped")
	}
}

// TestLoopNotices: a tool process's notice comes before the prompt at the
// start, at the start of the next turn (after the tool results), never
// continues a run that would stop, and one left at the end is written by
// Notices; the model reads each as a user message.
func TestLoopNotices(t *testing.T) {
	cfg := testConfig(t)
	cfg.Control = true // a notice still does not continue the run
	l := New(cfg)
	l.Notice(Notice{CustomType: "job_end", Text: "job 1 ended", Timestamp: 1})
	s := l.Start(user("go"))
	check(t, s, CallModel, "agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end")
	if got := string(s.Events[3].Message); got != `{"role":"custom","customType":"job_end","content":"job 1 ended","display":true,"timestamp":1}` {
		t.Errorf("the notice's message: %s", got)
	}
	l.ModelDone(answer(llm.StopToolUse, "", call("c1", "grep", `{}`)), false, 2)
	l.Notice(Notice{CustomType: "job_end", Text: "job 2 ended", Timestamp: 3})
	s = l.ToolResult(0, llm.Message{Role: "toolResult", ToolCallID: "c1", ToolName: "grep"}, 3)
	check(t, s, CallModel, "tool_execution_end:c1", "message_start", "message_end", "turn_end", "turn_start", "message_start", "message_end")
	var roles []string
	for _, m := range l.Context().Messages {
		roles = append(roles, m.Role+":"+m.Text())
	}
	want := []string{"user:job 1 ended", "user:go", "assistant:", "toolResult:", "user:job 2 ended"}
	if d := cmp.Diff(want, roles); d != "" {
		t.Errorf("context (-want +got):\n%s", d)
	}
	l.Notice(Notice{CustomType: "job_end", Text: "job 3 ended", Timestamp: 4})
	check(t, l.ModelDone(answer(llm.StopStop, "done"), false, 5), Done, "message_end", "turn_end", "agent_end")
	if d := cmp.Diff([]string{"message_start", "message_end"}, types(Step{Events: l.Notices()})); d != "" {
		t.Errorf("Notices (-want +got):\n%s", d)
	}
	if len(l.Notices()) != 0 {
		t.Error("Notices writes a notice twice")
	}
}

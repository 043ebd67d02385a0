package loop

import (
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/jsonschema"
	"github.com/agentutils/agentutils/lib/llm"
)

func TestAnswerJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:                      `{"a":1}`,
		"  \n{\"a\":1}\n":              `{"a":1}`,
		"```json\n{\"a\":1}\n```":      `{"a":1}`,
		"```\n[1]\n```\n":              `[1]`,
		"Here it is: ```json\n{}\n```": "Here it is: ```json\n{}\n```",
	} {
		if got := AnswerJSON(answer(llm.StopStop, in)); got != want {
			t.Errorf("AnswerJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

// --json-schema: an answer that does not match goes back to the model with
// the problems, AnswerRetries times; then the run fails.
func TestLoopAnswerSchema(t *testing.T) {
	s, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.Answer = s
	l := New(cfg)
	l.Start(user("check"))
	step := l.ModelDone(answer(llm.StopStop, "It works."), false, 1)
	check(t, step, CallModel, "message_end", "turn_end", "turn_start", "message_start", "message_end")
	msgs := l.Context().Messages
	if got := msgs[len(msgs)-1].Text(); !strings.Contains(got, "  - the answer is not JSON: ") {
		t.Errorf("sent back: %q", got)
	}
	step = l.ModelDone(answer(llm.StopStop, "```json\n{\"ok\":\"yes\"}\n```"), false, 2)
	msgs = l.Context().Messages
	if got := msgs[len(msgs)-1].Text(); step.Action != CallModel || !strings.Contains(got, "  - ok: must be boolean\n") {
		t.Errorf("sent back: %q", got)
	}
	step = l.ModelDone(answer(llm.StopStop, `{"ok":"no"}`), false, 3)
	check(t, step, Done, "message_end", "turn_end", "agent_end")
	if exit.Code(step.Err) != exit.Failure || !strings.Contains(step.Err.Error(), "does not match --json-schema (asked 3 times):\n  - ok: must be boolean") {
		t.Errorf("err = %v", step.Err)
	}

	l = New(cfg)
	l.Start(user("check"))
	step = l.ModelDone(answer(llm.StopStop, `{"ok":true}`), false, 1)
	check(t, step, Done, "message_end", "turn_end", "agent_end")
	if step.Err != nil {
		t.Errorf("a matching answer failed: %v", step.Err)
	}
}

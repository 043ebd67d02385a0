package loop

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

func TestAsks(t *testing.T) {
	var a Asks
	ask := event.ToolAsk{Type: "request", RequestID: "r1", Kind: "confirm", Payload: json.RawMessage(`{"message":"rm?"}`)}
	ev, reply := a.Forward(0, ask, false)
	if ev != nil || reply == nil || !reply.Answer.Cancelled || reply.Answer.RequestID != "r1" {
		t.Fatalf("no control: %+v %+v", ev, reply)
	}
	ev, reply = a.Forward(1, ask, true)
	if reply != nil || ev == nil || ev.Type != event.Request || ev.RequestID != "1:r1" || ev.Kind != "confirm" {
		t.Fatalf("control: %+v %+v", ev, reply)
	}
	a.Forward(0, ask, true)
	a.Forward(2, event.ToolAsk{RequestID: "r9", Kind: "ask"}, true)
	got, err := a.Answer(Control{Type: "answer", RequestID: "1:r1", Value: json.RawMessage("true")})
	if err != nil {
		t.Fatal(err)
	}
	want := Reply{Source: 1, Answer: event.Answer{Type: "answer", RequestID: "r1", Value: json.RawMessage("true")}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := a.Answer(Control{Type: "answer", RequestID: "1:r1"}); err == nil {
		t.Error("second answer accepted")
	}
	rest := a.CancelAll()
	if len(rest) != 2 || rest[0].Source != 0 || rest[1].Source != 2 || !rest[1].Answer.Cancelled || rest[1].Answer.RequestID != "r9" {
		t.Errorf("CancelAll = %+v", rest)
	}
	if len(a.CancelAll()) != 0 {
		t.Error("CancelAll twice")
	}
}

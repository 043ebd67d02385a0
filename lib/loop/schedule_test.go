package loop

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/jsonschema"
)

func TestPlan(t *testing.T) {
	const s, x = event.Shared, event.Exclusive
	tests := []struct {
		in   []string
		want [][]int
	}{
		{nil, nil},
		{[]string{s}, [][]int{{0}}},
		{[]string{s, s, s}, [][]int{{0, 1, 2}}},
		{[]string{x}, [][]int{{0}}},
		{[]string{x, x}, [][]int{{0}, {1}}},
		{[]string{s, s, x, s}, [][]int{{0, 1}, {2}, {3}}},
		{[]string{x, s, "", x, s, s}, [][]int{{0}, {1, 2}, {3}, {4, 5}}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, Plan(tt.in)); d != "" {
			t.Errorf("Plan(%v) (-want +got):\n%s", tt.in, d)
		}
	}
}

// testTools: read/grep shared (source 0), bash exclusive (source 0), write
// exclusive and non-abortable (source 1).
func testTools(t *testing.T) (*Toolset, *jsonschema.Validator) {
	t.Helper()
	w := def("write", "exclusive")
	w.NonAbortable = true
	ts, err := Merge([]Source{
		{Name: "agent-tool serve", Tools: []event.ToolDef{
			{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`), Concurrency: "shared"},
			def("grep", "shared"), def("bash", "exclusive"),
		}},
		{Name: "other", Tools: []event.ToolDef{w}},
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.NewValidator(ts.Defs())
	if err != nil {
		t.Fatal(err)
	}
	return ts, v
}

func call(id, name, args string) ToolCall {
	return ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func result(id, text string) event.Result {
	return event.Result{Type: "result", ID: id, Content: []event.Content{event.Text(text)}}
}

func dispatched(ds []Dispatch) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Call.ID)
	}
	return out
}

func TestBatchOrder(t *testing.T) {
	ts, v := testTools(t)
	b := NewBatch("b1", []ToolCall{
		call("1", "read", `{"path":"a"}`),
		call("2", "grep", `{}`),
		call("3", "nope", `{}`),
		call("4", "read", `{}`),
		call("5", "bash", `{"command":"make"}`),
		call("6", "read", `{"path":"b"}`),
	}, Config{Tools: ts, Validator: v})

	steps := [][]string{dispatched(b.Next())}
	if b.Next() != nil {
		t.Fatal("Next while the first stage runs")
	}
	if b.Result(result("2", "grep out")); b.Next() != nil {
		t.Fatal("next stage before the whole stage finished")
	}
	if _, ok := b.Update(event.Update{ID: "1", PartialResult: event.ToolOutput{Content: []event.Content{event.Text("..")}}}); !ok {
		t.Error("update of a running call dropped")
	}
	b.Result(result("1", "read a"))
	if b.Result(result("1", "again")) {
		t.Error("second result accepted")
	}
	steps = append(steps, dispatched(b.Next()))
	b.Result(result("5", "made"))
	steps = append(steps, dispatched(b.Next()))
	b.Result(result("6", "read b"))
	if !b.Done() || b.Next() != nil {
		t.Fatal("not done")
	}
	want := [][]string{{"1", "2"}, {"5"}, {"6"}}
	if d := cmp.Diff(want, steps); d != "" {
		t.Errorf("stages (-want +got):\n%s", d)
	}
	evs, msgs := b.Finish(7)
	var got []string
	for _, e := range evs {
		got = append(got, evLine(e))
	}
	wantEvs := []string{
		`tool_execution_end 1 err=false read a`,
		`message_start toolResult(1):read a`,
		`message_end toolResult(1):read a`,
		`tool_execution_end 2 err=false grep out`,
		`message_start toolResult(2):grep out`,
		`message_end toolResult(2):grep out`,
		`tool_execution_start 3 nope {}`,
		`tool_execution_end 3 err=true Tool nope not found`,
		`message_start toolResult(3)!:Tool nope not found`,
		`message_end toolResult(3)!:Tool nope not found`,
		`tool_execution_start 4 read {}`,
		"tool_execution_end 4 err=true Validation failed for tool \"read\":\n  - path: must have required property 'path'\n\nReceived arguments:\n{}",
		"message_start toolResult(4)!:Validation failed for tool \"read\":\n  - path: must have required property 'path'\n\nReceived arguments:\n{}",
		"message_end toolResult(4)!:Validation failed for tool \"read\":\n  - path: must have required property 'path'\n\nReceived arguments:\n{}",
		`tool_execution_end 5 err=false made`,
		`message_start toolResult(5):made`,
		`message_end toolResult(5):made`,
		`tool_execution_end 6 err=false read b`,
		`message_start toolResult(6):read b`,
		`message_end toolResult(6):read b`,
	}
	if d := cmp.Diff(wantEvs, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	var m ToolResultMessage
	if err := json.Unmarshal(msgs[0], &m); err != nil || m.Timestamp != 7 || m.ToolName != "read" || m.Role != "toolResult" {
		t.Errorf("message %s: %v", msgs[0], err)
	}
	if len(msgs) != 6 {
		t.Errorf("%d messages, want 6", len(msgs))
	}
}

func TestBatchDispatchCarriesBatchInfo(t *testing.T) {
	ts, v := testTools(t)
	b := NewBatch("turn-1", []ToolCall{call("1", "read", `{"path":"a"}`), call("2", "write", `{}`)}, Config{Tools: ts, Validator: v})
	d := b.Next()
	if len(d) != 1 || d[0].Source != 0 || d[0].Call.Batch == nil || d[0].Call.Batch.ID != "turn-1" ||
		!cmp.Equal(d[0].Call.Batch.Names, []string{"read", "write"}) || d[0].Start.Type != event.ToolExecutionStart {
		t.Fatalf("dispatch = %+v", d)
	}
	b.Result(result("1", "x"))
	d = b.Next()
	if len(d) != 1 || d[0].Source != 1 || d[0].Call.Batch.Index != 1 {
		t.Fatalf("second dispatch = %+v", d)
	}
}

func TestBatchStops(t *testing.T) {
	ts, v := testTools(t)
	calls := []ToolCall{call("1", "read", `{"path":"a"}`), call("2", "grep", `{}`), call("3", "bash", `{}`)}
	tests := []struct {
		name string
		run  func(b *Batch) []Cancel
		want []string
	}{
		{
			name: "steering interrupt skips the rest",
			run: func(b *Batch) []Cancel {
				b.Next()
				b.Result(result("1", "read a"))
				c := b.Interrupt()
				b.Result(result("2", "late grep"))
				return c
			},
			want: []string{"CANCEL 0 2", "1 err=false read a", "2 err=true " + TextSkipped, "3 err=true " + TextSkipped},
		},
		{
			name: "abort keeps what the tools answer",
			run: func(b *Batch) []Cancel {
				b.Next()
				c := b.Abort()
				b.Result(event.Result{ID: "1", Content: []event.Content{event.Text("cancelled")}, IsError: true})
				b.Result(result("2", "grep finished anyway"))
				return c
			},
			want: []string{"CANCEL 0 1", "CANCEL 0 2", "1 err=true cancelled", "2 err=false grep finished anyway", "3 err=true " + TextAborted},
		},
		{
			name: "co-process exit",
			run: func(b *Batch) []Cancel {
				b.Next()
				b.SourceExited(0, "exit status 2")
				b.Next()
				b.SourceExited(0, "exit status 2")
				return nil
			},
			want: []string{"1 err=true tool process exited: exit status 2", "2 err=true tool process exited: exit status 2", "3 err=true tool process exited: exit status 2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBatch("b", calls, Config{Tools: ts, Validator: v})
			var got []string
			for _, c := range tt.run(b) {
				got = append(got, "CANCEL 0 "+c.Cancel.ID)
			}
			if !b.Done() {
				t.Fatal("not done")
			}
			evs, _ := b.Finish(1)
			for _, e := range evs {
				if e.Type == event.ToolExecutionEnd {
					got = append(got, e.ToolCallID+" err="+map[bool]string{true: "true", false: "false"}[*e.IsError]+" "+e.Result.Content[0].Text)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestBatchDuplicateIDs(t *testing.T) {
	ts, v := testTools(t)
	b := NewBatch("b", []ToolCall{call("1", "grep", `{}`), call("1", "grep", `{"x":1}`)}, Config{Tools: ts, Validator: v})
	if d := dispatched(b.Next()); !cmp.Equal(d, []string{"1"}) {
		t.Fatalf("dispatched %v", d)
	}
	b.Result(result("1", "g"))
	if !b.Done() {
		t.Fatal("not done")
	}
	evs, _ := b.Finish(1)
	var got []string
	for _, e := range evs {
		if e.Type == event.ToolExecutionEnd {
			got = append(got, e.Result.Content[0].Text)
		}
	}
	want := []string{"g", "Tool call id 1 is used by an earlier call in this message; not run."}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestBatchNonAbortable(t *testing.T) {
	ts, v := testTools(t)
	b := NewBatch("b", []ToolCall{call("1", "write", `{}`), call("2", "read", `{"path":"x"}`)}, Config{Tools: ts, Validator: v})
	b.Next()
	if c := b.Interrupt(); len(c) != 0 {
		t.Errorf("cancelled a non-abortable call: %+v", c)
	}
	if b.Done() {
		t.Fatal("done while write runs")
	}
	b.Result(result("1", "wrote 3 bytes"))
	evs, _ := b.Finish(1)
	var got []string
	for _, e := range evs {
		if e.Type == event.ToolExecutionEnd {
			got = append(got, e.Result.Content[0].Text)
		}
	}
	if d := cmp.Diff([]string{"wrote 3 bytes", TextSkipped}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

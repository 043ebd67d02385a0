package loop_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/jsonschema"
	"github.com/agentutils/agentutils/lib/loop"
)

// A driver's shape: write a Step's events, send its cancels and calls,
// call the model when asked, and feed back what comes in. Here the model
// and the co-process are scripted; agent-chat streams a real provider and
// talks to real tool processes.
func Example() {
	tools, _ := loop.Merge([]loop.Source{{Name: "agent-tool serve", Tools: []event.ToolDef{
		{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`), Concurrency: event.Shared},
	}}})
	v, _ := jsonschema.NewValidator(tools.Defs())
	l := loop.New(loop.Config{Tools: tools, Validator: v, MaxTurns: 10}, nil, nil)

	replies := []string{
		`{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"go.mod"}}],"stopReason":"toolUse"}`,
		`{"role":"assistant","content":[{"type":"text","text":"It is a Go module."}],"stopReason":"stop"}`,
	}
	now := int64(0)
	step := l.Start([]json.RawMessage{loop.UserMessage("what is this?", nil, now)})
	for {
		for _, e := range step.Events {
			fmt.Println(e.Type)
		}
		for _, d := range step.Dispatch {
			fmt.Println(d.Start.Type, d.Call.Name, string(d.Call.Arguments))
		}
		switch {
		case step.Done != nil:
			fmt.Println("done:", step.Done.Reason)
			return
		case step.CallModel:
			// Stream the model over l.Context(); write message_start/update/end.
			step, _ = l.AssistantDone(json.RawMessage(replies[0]), now)
			replies = replies[1:]
		default:
			// Wait for the co-process; here it answers the one call at once.
			step = l.ToolResult(event.Result{ID: "t1", Content: []event.Content{event.Text("module example.com/x")}}, now)
		}
	}
	// Output:
	// agent_start
	// turn_start
	// message_start
	// message_end
	// tool_execution_start read {"path":"go.mod"}
	// tool_execution_end
	// message_start
	// message_end
	// turn_end
	// turn_start
	// turn_end
	// agent_end
	// done: stop
}

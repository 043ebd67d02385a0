package main

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
)

func runCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the tool calls of assistant messages read on stdin",
		Description: `Reads assistant messages (bare, or inside message_end and turn_end events) on stdin, runs
their tool calls in call order and writes one message_end event with a toolResult message per
call, ready for 'agent-session append'. Other lines are ignored; a line that is not JSON is an
error (exit 2) naming it.

Example:
   jq -c 'select(.type=="turn_end") | .message' turn.jsonl | agent-tool run | agent-session append s.jsonl`,
		Flags: append(callFlags(), toolsFlag, memoryFlag),
		Action: func(c *cli.Context) error {
			ts, err := selected(c)
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			tenv, err := toolEnv(c, env)
			if err != nil {
				return err
			}
			defer tenv.Close()
			g, err := newGate(c, ts)
			if err != nil {
				return err
			}
			defer g.wait() // async hooks: what they answer is warned
			in := bufio.NewReaderSize(env.Stdin, 256<<10)
			w := bufio.NewWriter(c.App.Writer)
			defer w.Flush()
			for n := 1; ; n++ {
				line, rerr := in.ReadBytes('\n')
				if len(trimSpace(line)) > 0 {
					msg, err := assistantOf(line)
					if err != nil {
						return exit.Errorf(exit.Usage, "stdin:%d: %v", n, err)
					}
					for _, tc := range msg.toolCalls() {
						r := g.run(c.Context, ts, tenv, tc.ID, tc.Name, tc.Arguments, true, nil)
						b, _ := json.Marshal(struct {
							Role       string          `json:"role"`
							ToolCallID string          `json:"toolCallId"`
							ToolName   string          `json:"toolName"`
							Content    []event.Content `json:"content"`
							Details    json.RawMessage `json:"details,omitempty"`
							IsError    bool            `json:"isError"`
							Timestamp  int64           `json:"timestamp"`
						}{"toolResult", tc.ID, tc.Name, r.Content, r.Details, r.IsError, env.Now().UnixMilli()})
						fmt.Fprintf(w, `{"type":"message_end","message":%s}`+"\n", b)
						w.Flush()
					}
				}
				if rerr != nil {
					return nil
				}
			}
		},
	}
}

type assistant struct {
	Role    string `json:"role"`
	Content []struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"content"`
}

type call struct {
	ID, Name  string
	Arguments json.RawMessage
}

func (a assistant) toolCalls() []call {
	if a.Role != "assistant" {
		return nil
	}
	var out []call
	for _, b := range a.Content {
		if b.Type == "toolCall" {
			out = append(out, call{b.ID, b.Name, b.Arguments})
		}
	}
	return out
}

// assistantOf finds the assistant message of a line: the line itself, or
// the message of a message_end or turn_end event.
func assistantOf(line []byte) (assistant, error) {
	var v struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return assistant{}, fmt.Errorf("not JSON: %v", err)
	}
	raw := json.RawMessage(line)
	if v.Type == event.MessageEnd || v.Type == event.TurnEnd {
		raw = v.Message
	} else if v.Role == "" {
		return assistant{}, nil
	}
	var a assistant
	if err := json.Unmarshal(raw, &a); err != nil {
		return assistant{}, fmt.Errorf("message: %v", err)
	}
	return a, nil
}

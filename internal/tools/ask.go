package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
)

// noOne is the ask tool's result when no person can answer.
const noOne = "No one answered: this run has no person to ask (it is not interactive, and no answers were given for these questions). Decide yourself: take the option you think best (the recommended one, if you named it), say which you chose and why, and go on."

// askTool puts questions to the person through the parent (a request of
// kind ask): a picker in the terminal, an answers file in a pipeline.
func askTool() Tool {
	return Tool{
		Def: def("ask", "Ask the user one or more questions when a decision is theirs and a wrong guess would be costly. Give each question options to pick from (multi: several may be picked; the user may also answer in their own words) and, when you have one, the index of the option you recommend. In a run with no one to ask, the result says so: then decide yourself.",
			`{"type":"object","properties":{"questions":{"type":"array","minItems":1,"items":{"type":"object","properties":{"id":{"type":"string","description":"a short name for the answer (default q1, q2, …)"},"question":{"type":"string"},"options":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"},"description":{"type":"string"}},"required":["label"],"additionalProperties":false}},"multi":{"type":"boolean","description":"several options may be picked"},"recommended":{"type":"integer","minimum":0,"description":"index of the option you recommend"}},"required":["question"],"additionalProperties":false}}},"required":["questions"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct{ Questions []event.AskQuestion }
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			for i := range a.Questions {
				if a.Questions[i].ID == "" {
					a.Questions[i].ID = fmt.Sprintf("q%d", i+1)
				}
			}
			if env.Ask == nil {
				return text(noOne), nil
			}
			payload, _ := json.Marshal(map[string]any{"questions": a.Questions})
			value, ok := env.Ask(ctx, "ask", payload)
			var ans struct {
				Answers map[string]json.RawMessage `json:"answers"`
			}
			if !ok || json.Unmarshal(value, &ans) != nil || len(ans.Answers) == 0 {
				return text(noOne), nil
			}
			var b strings.Builder
			for _, q := range a.Questions {
				fmt.Fprintf(&b, "Q: %s\nA: %s\n", q.Question, answerText(ans.Answers[q.ID]))
			}
			return event.ToolOutput{Content: []event.Content{event.Text(strings.TrimRight(b.String(), "\n"))},
				Details: details(map[string]any{"answers": ans.Answers})}, nil
		},
	}
}

// answerText is an answer as the model reads it: the text, the picked
// labels joined, or a note that there is none.
func answerText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil && s != "" {
		return s
	}
	var l []string
	if json.Unmarshal(v, &l) == nil && len(l) > 0 {
		return strings.Join(l, "; ")
	}
	return "(no answer: decide yourself)"
}

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
)

// exitPlanTool presents the plan made in plan mode to the person through
// the parent (a request of kind exit_plan_mode): approved, the run goes on
// in the mode they chose, with the tools that change things; refused, the
// model reads why and stays in plan mode.
func exitPlanTool() Tool {
	return Tool{
		Def: def("exit_plan_mode", "In plan mode (only tools that read run), present your plan for the user's approval once you have explored enough to make one: what you will change, where, and how you will check it, in markdown. If approved, the tools that change files and run commands are yours again and you carry the plan out (as the user edited it, when they did); if refused, you read why and stay in plan mode. Use it only for a task that needs changes, not to answer a question.",
			`{"type":"object","properties":{"plan":{"type":"string","description":"the plan, in markdown"}},"required":["plan"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct{ Plan string }
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			if strings.TrimSpace(a.Plan) == "" {
				return event.ToolOutput{}, errors.New("the plan is empty: write what you will do")
			}
			var ans event.PlanAnswer
			ok := false
			if env.Ask != nil {
				payload, _ := json.Marshal(map[string]string{"plan": a.Plan})
				var value []byte
				if value, ok = env.Ask(ctx, event.PlanKind, payload); ok {
					ok = json.Unmarshal(value, &ans) == nil
				}
			}
			return planResult(ans, ok)
		},
	}
}

// planResult is what the model reads of the answer (ok false: none).
func planResult(ans event.PlanAnswer, ok bool) (event.ToolOutput, error) {
	mode := ans.Mode
	if mode == "" {
		mode = "default"
	}
	switch {
	case !ok:
		return event.ToolOutput{}, errors.New("no one can approve this plan: this run has no person to ask, and no answer for exit_plan_mode was given. You stay in plan mode, where only tools that read run: end your turn with the plan as your answer")
	case ans.NotPlanning:
		return text(fmt.Sprintf("You are not in plan mode (the permission mode is %s): there is nothing to approve; go on with the task.", mode)), nil
	case !ans.Approved:
		why := "no reason given"
		if ans.Reason != "" {
			why = ans.Reason
		}
		return event.ToolOutput{}, fmt.Errorf("the user refused the plan (%s). You stay in plan mode: revise the plan and present it again, or ask what they want", why)
	}
	s := fmt.Sprintf("The user approved your plan. The permission mode is now %s: the tools that change files and run commands are yours again. Carry out the plan.", mode)
	if ans.Plan != "" {
		s += "\n\nThe user edited the plan; follow this version:\n\n" + ans.Plan
	}
	return event.ToolOutput{Content: []event.Content{event.Text(s)}, Details: details(ans)}, nil
}

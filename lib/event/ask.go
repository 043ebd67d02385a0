package event

import "encoding/json"

// The kinds of the requests for a person that agent-tool's tools make
// (each named after its tool).
const (
	AskKind  = "ask"            // the ask tool's questions
	PlanKind = "exit_plan_mode" // the exit_plan_mode tool's plan
)

// The kinds of the requests that a tool process's prompt and agent hooks
// make: the parent (agent-chat, which holds the model's key) asks the
// model, or runs a sub-agent, and answers with its text.
const (
	HookPromptKind = "hook_prompt"
	HookAgentKind  = "hook_agent"
)

// HookQuestion is the payload of a hook_prompt or hook_agent request.
type HookQuestion struct {
	Model  string `json:"model,omitempty"`
	Prompt string `json:"prompt"`
}

// HookAnswer is the value answering it: the model's (or the sub-agent's
// final) text, or why there is none.
type HookAnswer struct {
	Text  string `json:"text,omitempty"`
	Error string `json:"error,omitempty"`
}

// AskQuestion is one question of a request of kind "ask" (the ask tool's),
// whose payload is {"questions":[…]}; the answer's value is
// {"answers":{ID: "text" | ["label", …]}}.
type AskQuestion struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description,omitempty"`
	} `json:"options,omitempty"`
	Multi       bool `json:"multi,omitempty"`
	Recommended *int `json:"recommended,omitempty"`
}

// AnswerAsk answers an ask request's payload from answers given ahead
// (agent-chat --answers): each question by its id, else by its text. It
// reports false when none of the questions has an answer there.
func AnswerAsk(payload json.RawMessage, answers map[string]json.RawMessage) (json.RawMessage, bool) {
	var p struct{ Questions []AskQuestion }
	if json.Unmarshal(payload, &p) != nil {
		return nil, false
	}
	got := map[string]json.RawMessage{}
	for _, q := range p.Questions {
		if a, ok := answers[q.ID]; ok {
			got[q.ID] = a
		} else if a, ok := answers[q.Question]; ok {
			got[q.ID] = a
		}
	}
	if len(got) == 0 {
		return nil, false
	}
	b, _ := json.Marshal(map[string]any{"answers": got})
	return b, true
}

// PlanAnswer is the value answering a request of kind "exit_plan_mode"
// (the exit_plan_mode tool's, whose payload is {"plan": "…"}): the plan
// approved, the run going on in permission mode Mode ("" is default) and
// with Plan when the person edited it; or refused, with a Reason for the
// model. NotPlanning says the run was not in plan mode: nothing to approve.
type PlanAnswer struct {
	Approved    bool   `json:"approved"`
	Mode        string `json:"mode,omitempty"`
	Plan        string `json:"plan,omitempty"`
	Reason      string `json:"reason,omitempty"`
	NotPlanning bool   `json:"notPlanning,omitempty"`
}

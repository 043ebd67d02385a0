package event

import "encoding/json"

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

package loop

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
)

// IntentField is the argument intent tracing adds to every tool schema
// (--intent-tracing): the model says in one sentence why it makes the call.
const IntentField = "agent__intent"

const intentDescription = "What this call is for: one present-participle sentence, no trailing period (e.g. \"Reading the config loader\")."

// WithIntent returns copies of defs whose parameter schemas have a
// required string property agent__intent. A schema that is not a JSON
// object is an error naming the tool.
func WithIntent(defs []event.ToolDef) ([]event.ToolDef, error) {
	out := make([]event.ToolDef, len(defs))
	for i, d := range defs {
		schema := map[string]json.RawMessage{}
		if len(bytes.TrimSpace(d.Parameters)) > 0 && string(bytes.TrimSpace(d.Parameters)) != "null" {
			if err := json.Unmarshal(d.Parameters, &schema); err != nil {
				return nil, fmt.Errorf("tool %q: parameters: %w", d.Name, err)
			}
		}
		if _, ok := schema["type"]; !ok {
			schema["type"] = json.RawMessage(`"object"`)
		}
		props := map[string]json.RawMessage{}
		if p, ok := schema["properties"]; ok {
			if err := json.Unmarshal(p, &props); err != nil {
				return nil, fmt.Errorf("tool %q: properties: %w", d.Name, err)
			}
		}
		props[IntentField] = mustJSON(map[string]string{"type": "string", "description": intentDescription})
		schema["properties"] = mustJSON(props)
		var req []string
		if r, ok := schema["required"]; ok {
			if err := json.Unmarshal(r, &req); err != nil {
				return nil, fmt.Errorf("tool %q: required: %w", d.Name, err)
			}
		}
		has := false
		for _, r := range req {
			has = has || r == IntentField
		}
		if !has {
			req = append(req, IntentField)
		}
		schema["required"] = mustJSON(req)
		d.Parameters = mustJSON(schema)
		out[i] = d
	}
	return out, nil
}

// StripIntent removes agent__intent from a call's arguments and returns
// the rest and the intent ("" when absent or not a string). Arguments that
// are not a JSON object are returned unchanged.
func StripIntent(args json.RawMessage) (json.RawMessage, string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return args, ""
	}
	raw, ok := m[IntentField]
	if !ok {
		return args, ""
	}
	delete(m, IntentField)
	var intent string
	_ = json.Unmarshal(raw, &intent)
	return mustJSON(m), intent
}

package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/jsonschema"
)

// OutputSchema is a listed tool's outputSchema; listed is false when the
// tool was not listed on this session.
func (s *Session) OutputSchema(tool string) (schema json.RawMessage, listed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	schema, listed = s.outputSchema[tool]
	return schema, listed
}

// HasStructured reports a tools/call result that is not an error and
// carries structuredContent.
func HasStructured(result json.RawMessage) bool {
	var r struct {
		IsError    bool            `json:"isError"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	return json.Unmarshal(result, &r) == nil && !r.IsError && len(r.Structured) > 0 && string(r.Structured) != "null"
}

// CheckStructured validates a tools/call result against the tool's
// outputSchema, as the spec asks clients to: a result that is not an
// error must carry structuredContent that matches it. A mismatch gives an
// error result in its place that says what is wrong; a result without a
// schema to check, or an error result, is returned as it is.
func CheckStructured(tool string, schema, result json.RawMessage) json.RawMessage {
	if len(schema) == 0 || string(schema) == "null" {
		return result
	}
	var r struct {
		IsError    bool            `json:"isError"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(result, &r) != nil || r.IsError {
		return result
	}
	var msg string
	if len(r.Structured) == 0 || string(r.Structured) == "null" {
		msg = fmt.Sprintf("tool %q has an outputSchema but returned no structuredContent", tool)
	} else {
		s, err := jsonschema.Compile(schema)
		if err != nil {
			return result // a schema we cannot read is the server's problem, not the call's
		}
		problems, err := s.Check(r.Structured)
		switch {
		case err != nil:
			msg = fmt.Sprintf("tool %q: structuredContent is not JSON: %v", tool, err)
		case len(problems) > 0:
			msg = fmt.Sprintf("tool %q: structuredContent does not match its outputSchema:\n  - %s", tool, strings.Join(problems, "\n  - "))
		}
	}
	if msg == "" {
		return result
	}
	out, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": msg}}, "isError": true})
	return out
}

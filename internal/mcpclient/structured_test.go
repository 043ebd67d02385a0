package mcpclient

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckStructured(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	errResult := func(text string) string {
		b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": true})
		return string(b)
	}
	for _, tc := range []struct {
		name, schema, result, want string
	}{
		{"matches", string(schema), `{"content":[],"structuredContent":{"n":1}}`, `{"content":[],"structuredContent":{"n":1}}`},
		{"no schema", ``, `{"content":[],"structuredContent":{"n":"x"}}`, `{"content":[],"structuredContent":{"n":"x"}}`},
		{"error results are not checked", string(schema), `{"content":[],"isError":true}`, `{"content":[],"isError":true}`},
		{"mismatch", string(schema), `{"content":[],"structuredContent":{"n":"x"}}`,
			errResult("tool \"t\": structuredContent does not match its outputSchema:\n  - n: must be integer")},
		{"missing", string(schema), `{"content":[{"type":"text","text":"1"}]}`,
			errResult(`tool "t" has an outputSchema but returned no structuredContent`)},
	} {
		got := CheckStructured("t", json.RawMessage(tc.schema), json.RawMessage(tc.result))
		if d := cmp.Diff(tc.want, string(got)); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, d)
		}
	}
}

package event

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnswerAsk(t *testing.T) {
	payload := json.RawMessage(`{"questions":[{"id":"db","question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]},{"id":"q2","question":"Which parts?","multi":true}]}`)
	for _, tc := range []struct {
		name    string
		answers string
		want    string // "" for no answer
	}{
		{"by id and text", `{"db":"SQLite","Which parts?":["api","cli"]}`, `{"answers":{"db":"SQLite","q2":["api","cli"]}}`},
		{"some", `{"db":"PostgreSQL","other":"x"}`, `{"answers":{"db":"PostgreSQL"}}`},
		{"none", `{"other":"x"}`, ""},
	} {
		var m map[string]json.RawMessage
		json.Unmarshal([]byte(tc.answers), &m)
		got, ok := AnswerAsk(payload, m)
		if ok != (tc.want != "") {
			t.Errorf("%s: ok %v", tc.name, ok)
		}
		if d := cmp.Diff(tc.want, string(got)); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
}

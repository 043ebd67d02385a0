package formats

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentutils/agentutils/lib/batch"
)

// TestBatchReaders runs the task and task-result corpora through the Go
// readers (lib/batch): what the schema accepts they accept, and the reverse.
func TestBatchReaders(t *testing.T) {
	for dir, parse := range map[string]func([]byte) error{
		"task":        func(b []byte) error { _, err := batch.ParseTask(b); return err },
		"task-result": func(b []byte) error { _, err := batch.ParseResult(b); return err },
	} {
		for _, want := range []bool{true, false} {
			sub := "valid"
			if !want {
				sub = "invalid"
			}
			files, _ := filepath.Glob(filepath.Join(dir, sub, "*.json*"))
			if len(files) == 0 {
				t.Fatalf("%s/%s: no corpus", dir, sub)
			}
			for _, f := range files {
				for _, d := range docs(t, f) {
					b := rawJSON(t, d.v)
					err := parse(b)
					if want && err != nil {
						t.Errorf("%s:%d: rejected: %v", f, d.line, err)
					}
					if !want && err == nil {
						t.Errorf("%s:%d: accepted", f, d.line)
					}
				}
			}
		}
	}
}

// rawJSON gives a corpus document back as JSON text (malformed ones as read).
func rawJSON(t *testing.T, v any) []byte {
	t.Helper()
	if r, ok := v.(json.RawMessage); ok {
		return r
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

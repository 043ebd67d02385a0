package compact

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Serialize's skim reads a message as encoding/json does (parse), or
// leaves it to parse; so do the tool calls' arguments.
func FuzzSkimSerialized(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi \u00e9 \"q\""}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"a"},{"type":"toolCall","name":"bash","arguments":{"command":"ls  -l","b":[1, 2],"b":{"x" : 1}}}],"usage":{"input":5}}`,
		`{"role":"toolResult","toolName":"bash","content":[{"type":"text","text":"out"},{"type":"image","data":"AAA"}]}`,
		`{"Role":"user","content":"x"}`,
		`{"role":"user","CONTENT":"x","content":"y"}`,
		`{"role":"user","r\u006fle":"assistant"}`,
		`{"role":null,"content":null}`,
		`{"role":"user","content":[null,{"type":"text","text":"a"}]}`,
		`{"role":"user","content":[{"type":"text","Text":"a","text":"b"}]}`,
		`{"role":"user","content":[{"type":"text","text":5}]}`,
		`{"role":"user","content":{"type":"text"}}`,
		`{"role":"assistant","content":[{"type":"toolCall","name":"x","arguments":{"\u0061":1,"a":2}}]}`,
		`{"role":"assistant","content":[{"type":"toolCall","name":"x","arguments":null}]}`,
		`{"role":"assistant","content":[{"type":"toolCall","name":"x","arguments":"s"}]}`,
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"name\":\"x\",\"arguments\":{\"\xff\":1}}]}",
		`{"role":"user","content":"x"} x`,
		`{"role":"user","content":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if role, bs, ok := skimSerialized(raw); ok {
			m, want := parse(raw)
			if role != m.Role {
				t.Fatalf("skimSerialized(%q): role %q, encoding/json %q", raw, role, m.Role)
			}
			if d := cmp.Diff(want, bs, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("skimSerialized(%q): blocks (-encoding/json +skim):\n%s", raw, d)
			}
		}
		if args, ok := skimArgs(raw); ok {
			var want map[string]json.RawMessage
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatalf("skimArgs(%q) took what encoding/json rejects: %v", raw, err)
			}
			if d := cmp.Diff(want, args, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("skimArgs(%q) (-encoding/json +skim):\n%s", raw, d)
			}
		}
	})
}

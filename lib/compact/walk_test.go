package compact

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/session"
)

// The unchecked walk ReadEntry uses on a message it has checked gives what
// the checking walk gives; on bytes that are not JSON it must not panic.
func FuzzSkimMessageChecked(f *testing.F) {
	for _, c := range estimateCases {
		f.Add(c)
	}
	f.Add(`{"role":"assistant","content":[{"type":"toolCall","name":"Edit","arguments":{"file_path":"a\"b.go","x":[1,{"y":"]}"}]}}],"usage":{"input":1},"provider":"p","model":"m","stopReason":"stop"}`)
	f.Add(`{"role":"toolResult","toolName":"read","prunedAt":5,"content":[{"type":"text","text":"a\\"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		fast := skimMessage([]byte(s), true)
		if !json.Valid([]byte(s)) {
			return
		}
		slow := skimMessage([]byte(s), false)
		if d := cmp.Diff(slow, fast, cmp.AllowUnexported(msgInfo{}, fileOp{})); d != "" {
			t.Errorf("%s:\n%s", s, d)
		}
	})
}

// ActivePath is the path session.BuildContext resolves, whatever the
// stream: pending replacements, branches, cycles, dangling parents,
// duplicate ids.
func FuzzActivePath(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 1, 1, 3})
	f.Add([]byte{0, 0, 1, 0, 2, 1, 1, 0x81})
	f.Fuzz(func(t *testing.T, spec []byte) {
		var recs []session.Record
		for k := 0; k+1 < len(spec) && len(recs) < 20; k += 2 {
			id, parent := fmt.Sprint("e", spec[k]%8), fmt.Sprint("e", spec[k+1]%8)
			pending := spec[k+1]&0x80 != 0
			line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"pending":%v,"message":{"role":"user","content":"m%d","timestamp":%d}}`, id, parent, pending, k, k)
			r, err := session.ParseRecord([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
		entries := Index(recs)
		var got []json.RawMessage
		for _, i := range ActivePath(entries) {
			if entries[i].Message != nil {
				got = append(got, entries[i].Message)
			}
		}
		want, err := session.BuildContext(recs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			got = []json.RawMessage{}
		}
		if d := cmp.Diff(string(mustJSON(want.Messages)), string(mustJSON(got))); d != "" {
			t.Errorf("%d records:\n%s", len(recs), d)
		}
	})
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

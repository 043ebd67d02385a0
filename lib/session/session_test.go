package session

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func recs(t *testing.T, lines ...string) []Record {
	t.Helper()
	var out []Record
	for _, l := range lines {
		r, err := ParseRecord([]byte(l))
		if err != nil {
			t.Fatalf("ParseRecord(%s): %v", l, err)
		}
		out = append(out, r)
	}
	return out
}

func msg(id, parent, role, text string) string {
	p := `null`
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"}],"timestamp":1}}`
}

// roles lists role:text of the context's messages.
func roles(ctx Context) []string {
	var out []string
	for _, m := range ctx.Messages {
		var v struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Summary string          `json:"summary"`
		}
		json.Unmarshal(m, &v)
		t := ContentText(v.Content)
		if v.Summary != "" {
			t = v.Summary
		}
		out = append(out, v.Role+":"+t)
	}
	return out
}

func TestBuildContext(t *testing.T) {
	base := []string{
		msg("u1", "", "user", "one"),
		msg("a1", "u1", "assistant", "ans1"),
		msg("u2", "a1", "user", "two"),
		msg("a2", "u2", "assistant", "ans2"),
	}
	tests := []struct {
		name  string
		lines []string
		leaf  *string
		want  []string
		state func(Context) string
	}{
		{name: "linear", lines: base, want: []string{"user:one", "assistant:ans1", "user:two", "assistant:ans2"}},
		{name: "leaf picks a branch", lines: append(base, msg("u3", "a1", "user", "other")), leaf: ptr("u3"),
			want: []string{"user:one", "assistant:ans1", "user:other"}},
		{name: "a null leaf (reset: the next entry is a new root) is the empty context", lines: base, leaf: ptr("")},
		{name: "last entry is the default leaf", lines: append(base, msg("u3", "a1", "user", "other")),
			want: []string{"user:one", "assistant:ans1", "user:other"}},
		{name: "compaction keeps from firstKeptEntryId", lines: append(base,
			`{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-01-01T00:00:01.000Z","summary":"SUM","firstKeptEntryId":"u2","tokensBefore":100}`,
			msg("u3", "c1", "user", "three")),
			want: []string{"compactionSummary:SUM", "user:two", "assistant:ans2", "user:three"}},
		{name: "compaction with missing kept id keeps nothing before it", lines: append(base,
			`{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-01-01T00:00:01.000Z","summary":"SUM","firstKeptEntryId":"gone","tokensBefore":1}`),
			want: []string{"compactionSummary:SUM"}},
		{name: "pending compaction from agent-compact is applied", lines: append(base,
			`{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-01-01T00:00:01.000Z","summary":"P","firstKeptEntryId":"a2","tokensBefore":1,"pending":true}`),
			want: []string{"compactionSummary:P", "assistant:ans2"}},
		{name: "pending record replaces its earlier copy", lines: append(base,
			`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"pruned"}],"timestamp":1},"pending":true}`),
			want: []string{"user:one", "assistant:pruned", "user:two", "assistant:ans2"}},
		{name: "branch summary, custom message, retried dropped, bookkeeping silent", lines: []string{
			msg("u1", "", "user", "one"),
			`{"type":"branch_summary","id":"b1","parentId":"u1","timestamp":"2026-01-01T00:00:00.000Z","fromId":"u1","summary":"BR"}`,
			`{"type":"custom_message","customType":"note","id":"c1","parentId":"b1","timestamp":"2026-01-01T00:00:00.000Z","content":"CM","display":true}`,
			`{"type":"message","id":"r1","parentId":"c1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],"stopReason":"error","retried":true,"timestamp":1}}`,
			`{"type":"label","id":"l1","parentId":"r1","timestamp":"2026-01-01T00:00:00.000Z","targetId":"u1","label":"x"}`,
			`{"type":"thinking_level_change","id":"t1","parentId":"l1","timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"high"}`,
			`{"type":"model_change","id":"m1","parentId":"t1","timestamp":"2026-01-01T00:00:00.000Z","model":"openai/gpt-5.1"}`,
			`{"type":"mode_change","id":"mo","parentId":"m1","timestamp":"2026-01-01T00:00:00.000Z","mode":"plan","data":{"planFile":"p.md"}}`,
			`{"type":"some_future_type","id":"f1","parentId":"mo","timestamp":"2026-01-01T00:00:00.000Z"}`,
		}, want: []string{"user:one", "branchSummary:BR", "custom:CM"},
			state: func(c Context) string {
				return c.ThinkingLevel + " " + c.Models["default"] + " " + c.Mode + " " + string(c.ModeData)
			}},
		{name: "a self-parent and a cycle do not hang", lines: []string{
			`{"type":"message","id":"x","parentId":"y","timestamp":"t","message":{"role":"user","content":"X","timestamp":1}}`,
			`{"type":"message","id":"y","parentId":"x","timestamp":"t","message":{"role":"user","content":"Y","timestamp":1}}`,
			`{"type":"message","id":"s","parentId":"s","timestamp":"t","message":{"role":"user","content":"S","timestamp":1}}`,
		}, want: []string{"user:S"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, err := BuildContext(recs(t, tt.lines...), tt.leaf)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, roles(ctx)); d != "" {
				t.Errorf("messages (-want +got):\n%s", d)
			}
			if tt.state != nil {
				if got := tt.state(ctx); got != `high openai/gpt-5.1 plan {"planFile":"p.md"}` {
					t.Errorf("state = %q", got)
				}
			}
		})
	}
	if _, err := BuildContext(recs(t, base...), ptr("nope")); err == nil {
		t.Error("an unknown leaf is an error")
	}
}

func TestConvertToLLM(t *testing.T) {
	in := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"hi","timestamp":1}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"t","toolName":"read","content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"b"}],"isError":false,"prunedAt":5,"timestamp":2}`),
		json.RawMessage(`{"role":"bashExecution","command":"make","output":"boom","exitCode":2,"cancelled":false,"truncated":false,"timestamp":3}`),
		json.RawMessage(`{"role":"bashExecution","command":"secret","output":"","exitCode":0,"excludeFromContext":true,"timestamp":3}`),
		json.RawMessage(`{"role":"compactionSummary","summary":"S","tokensBefore":1,"timestamp":4}`),
		json.RawMessage(`{"role":"fileMention","files":[{"path":"a.go","content":"package a"},{"path":"e","content":""}],"timestamp":5}`),
		json.RawMessage(`{"role":"somethingElse","timestamp":6}`),
	}
	var got []string
	for _, m := range ConvertToLLM(in) {
		var v struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(m, &v)
		got = append(got, v.Role+"|"+ContentText(v.Content))
	}
	want := []string{
		"user|hi",
		"toolResult|ab",
		"user|Ran `make`\n```\nboom\n```\n\nCommand exited with code 2",
		"user|" + compactionPrefix + "S" + compactionSuffix,
		"user|<system-reminder>\n<file path=\"a.go\">\npackage a\n</file>\n\n<file path=\"e\">\n</file>\n</system-reminder>",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestReaderLenient(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	in := `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}` + "\n" +
		"garbage\n\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"` + big + `","timestamp":1}}` + "\n" +
		"{\"type\":\"x\",\"id\":\"\xff\xfe\"}\n" +
		`{"type":"message","id":"torn"`
	r := NewReader(strings.NewReader(in))
	var types []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, rec.Type+":"+rec.ID[:min(len(rec.ID), 3)])
	}
	if d := cmp.Diff([]string{"session:s", "message:a", "x:\ufffd"}, types); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	var lines []int
	for _, p := range r.Problems() {
		lines = append(lines, p.Line)
	}
	if d := cmp.Diff([]int{2, 5, 6}, lines); d != "" {
		t.Errorf("problem lines (-want +got):\n%s\n%v", d, r.Problems())
	}
	if p := r.Problems()[2]; !strings.Contains(p.Err.Error(), "torn last line") {
		t.Errorf("last problem = %v", p.Err)
	}
}

func TestObjectRoundTrip(t *testing.T) {
	line := `{"type":"weird","id":"a","parentId":null,"z":{"b":1,"a":[1,2,{"y":true,"x":null}]},"big":12345678901234567890,"s":"é\u003c"}`
	o, err := ParseObject([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Bytes()); got != line {
		t.Errorf("round trip:\n got %s\nwant %s", got, line)
	}
	out, err := PrepareForWrite([]byte(line), nil)
	if err != nil || string(out) != line {
		t.Errorf("PrepareForWrite changed an entry that needs nothing: %s %v", out, err)
	}
}

func TestPrepareForWrite(t *testing.T) {
	long := strings.Repeat("é", MaxPersistChars+10)
	img := strings.Repeat("QUJD", 400) // base64, 1600 chars
	in := `{"type":"message","id":"a","parentId":null,"timestamp":"t","pending":true,"message":{"role":"toolResult","content":[{"type":"text","text":"` + long + `","partialJson":"{"},{"type":"image","data":"` + img + `","mimeType":"image/png"}],"details":{"content":"x","lineCount":9}}}`
	var stored []byte
	out, err := PrepareForWrite([]byte(in), func(b []byte) (string, error) { stored = b; return BlobHash(b), nil })
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "pending") || strings.Contains(s, "partialJson") {
		t.Errorf("stream fields kept: %.200s", s)
	}
	if !strings.Contains(s, TruncationNotice[2:]) || len([]rune(s)) > MaxPersistChars+1000 {
		t.Errorf("long string not cut")
	}
	if !strings.Contains(s, `"data":"`+BlobPrefix+BlobHash(stored)+`"`) || string(stored[:3]) != "ABC" {
		t.Errorf("image not moved to the blob store: %q", stored[:3])
	}
	if !strings.HasPrefix(s, `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"toolResult","content":[{"type":"text","text":"ééé`) {
		t.Errorf("member order changed: %.120s", s)
	}
	back, warns, err := ResolveBlobs(out, func(h string) ([]byte, error) { return stored, nil })
	if err != nil || len(warns) > 0 || !bytes.Contains(back, []byte(`"data":"`+img+`"`)) {
		t.Errorf("ResolveBlobs: %v %v", warns, err)
	}
}

func TestMigrate(t *testing.T) {
	header := []byte(`{"type":"session","id":"s","timestamp":"t","cwd":"/"}`)
	entries := recs(t,
		`{"type":"message","timestamp":"t","message":{"role":"user","content":"a","timestamp":1}}`,
		`{"type":"message","timestamp":"t","message":{"role":"hookMessage","customType":"h","content":"b","display":true,"timestamp":2}}`,
		`{"type":"compaction","timestamp":"t","summary":"S","firstKeptEntryIndex":2,"tokensBefore":1}`,
	)
	n := 0
	h, out, changed, err := Migrate(header, entries, func() string { n++; return string(rune('a'+n-1)) + "1" })
	if err != nil || !changed {
		t.Fatal(err, changed)
	}
	hh, _ := ParseHeader(h)
	if hh.Version != 3 {
		t.Errorf("version = %d", hh.Version)
	}
	var got []string
	for _, r := range out {
		got = append(got, r.ID+"<"+r.ParentID)
	}
	if d := cmp.Diff([]string{"a1<", "b1<a1", "c1<b1"}, got); d != "" {
		t.Errorf("chain (-want +got):\n%s", d)
	}
	if !bytes.Contains(out[1].Raw, []byte(`"role":"custom"`)) || !bytes.Contains(out[2].Raw, []byte(`"firstKeptEntryId":"b1"`)) || bytes.Contains(out[2].Raw, []byte("Index")) {
		t.Errorf("migrated entries: %s / %s", out[1].Raw, out[2].Raw)
	}
}

func TestTreeAndPath(t *testing.T) {
	rs := recs(t, msg("u1", "", "user", "1"), msg("a1", "u1", "assistant", "2"), msg("u2", "a1", "user", "3"), msg("u3", "a1", "user", "4"),
		`{"type":"label","id":"l","parentId":"u3","timestamp":"2026","targetId":"a1","label":"here"}`, msg("o", "missing", "user", "orphan"))
	roots := Tree(rs)
	if len(roots) != 2 || roots[0].ID != "u1" || roots[1].ID != "o" {
		t.Fatalf("roots = %v", roots)
	}
	a1 := roots[0].Children[0]
	if a1.Label != "here" || len(a1.Children) != 2 {
		t.Errorf("a1 = %+v", a1)
	}
	var ids []string
	for _, r := range Path(rs, "u2") {
		ids = append(ids, r.ID)
	}
	if d := cmp.Diff([]string{"u1", "a1", "u2"}, ids); d != "" {
		t.Error(d)
	}
}

func TestNames(t *testing.T) {
	if got := EncodeCwd("/home/u/my:proj"); got != "--home-u-my-proj--" {
		t.Errorf("EncodeCwd = %s", got)
	}
	if got := NewSessionID(1420070400000+1, 5); got != "0000000000400005" {
		t.Errorf("NewSessionID = %s", got)
	}
	id := NewEntryID(bytes.NewReader(bytes.Repeat([]byte{0xab}, 1000)), func(s string) bool { return s == "abababab" })
	if len(id) != 16 {
		t.Errorf("collision fallback id = %s", id)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"type":"session","id":"s"}` + "\n" + `{"type":"message","id":"a","parentId":"a"}` + "\ngarbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b))
		var all []Record
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			all = append(all, rec)
		}
		Tree(all)
		BuildContext(all, nil)
		for _, rec := range all {
			if _, err := PrepareForWrite(rec.Raw, nil); err != nil {
				continue
			}
		}
	})
}

func ptr(s string) *string { return &s }

// The default model is set by whichever comes last on the path: a
// model_change, or an assistant message that names its provider and model.
func TestBuildContextDefaultModel(t *testing.T) {
	change := func(id, parent, model string) string {
		return `{"type":"model_change","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-01-01T00:00:00.000Z","model":"` + model + `"}`
	}
	answer := func(id, parent, provider, model string) string {
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],"provider":` + provider + `,"model":` + model + `,"timestamp":1}}`
	}
	for _, tt := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"answer after change", []string{msg("u", "", "user", "x"), change("c", "u", "a/one"), answer("a", "c", `"b"`, `"two"`)}, "b/two"},
		{"change after answer", []string{msg("u", "", "user", "x"), answer("a", "u", `"b"`, `"two"`), change("c", "a", "a/one")}, "a/one"},
		{"change of role default after answer", []string{msg("u", "", "user", "x"), answer("a", "u", `"b"`, `"two"`), strings.Replace(change("c", "a", "a/one"), `}`, `,"role":"default"}`, 1)}, "a/one"},
		{"change of another role after answer", []string{msg("u", "", "user", "x"), answer("a", "u", `"b"`, `"two"`), strings.Replace(change("c", "a", "a/one"), `}`, `,"role":"fast"}`, 1)}, "b/two"},
		{"escaped names", []string{msg("u", "", "user", "x"), answer("a", "u", `"b\u0021"`, `"t\"wo"`)}, `b!/t"wo`},
		{"an answer without names keeps the last", []string{msg("u", "", "user", "x"), answer("a", "u", `"b"`, `"two"`), answer("a2", "a", `7`, `""`)}, "b/two"},
		{"none", []string{msg("u", "", "user", "x")}, ""},
	} {
		ctx, err := BuildContext(recs(t, tt.lines...), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := ctx.Models["default"]; got != tt.want {
			t.Errorf("%s: default model %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A line holding two records with no newline between them (pi has
// written such lines: pimono-session-v1 line 440, pimono-compact-v1's
// last line, whose second record is a compaction) is skipped whole, as pi
// 0.73.1 reads it: reading its values would send the model another
// context than pi sends for the same file (scripts/interop-pi checks
// that the two send the same messages).
func TestLinesTwoRecordsOnALineSkippedAsPi(t *testing.T) {
	var l Lines
	if _, err := l.Read([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`), 1, false); err != nil {
		t.Fatal(err)
	}
	got, err := l.Read([]byte(`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}{"type":"compaction","id":"b","parentId":"a","summary":"s","firstKeptEntryId":"a","tokensBefore":1}`), 2, false)
	if err != nil || got.Kind != Skipped || len(l.Problems) != 1 || l.Problems[0].Kept ||
		!strings.Contains(l.Problems[0].Err.Error(), "after top-level value") {
		t.Errorf("kind %v, err %v, problems %v: want the line skipped and reported", got.Kind, err, l.Problems)
	}
}

package export

import (
	"strings"
	"testing"
)

func sample() Session {
	return Session{
		Header: []byte(`{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/p","title":"<b>x</b>"}`),
		Entries: [][]byte{
			[]byte(`{"type":"message","id":"u","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi <script>","timestamp":1}}`),
			[]byte(`{"type":"message","id":"a","parentId":"u","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"deep"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"f"}}],"stopReason":"toolUse","timestamp":2}}`),
			[]byte(`{"type":"message","id":"b","parentId":"u","timestamp":"t2","message":{"role":"user","content":"other branch","timestamp":3}}`),
		},
		LeafID: "a",
	}
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	out, err := HTML(sample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"<!DOCTYPE html>", `<details class="thinking"><summary>Thinking</summary><pre>deep</pre>`, "hi &lt;script&gt;", "&lt;b&gt;x&lt;/b&gt;", `<li class="leaf"><a href="#e-a">`, `href="#e-b"`} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "<link"} {
		if strings.Contains(s, bad) {
			t.Errorf("HTML contains %q: not self-contained or not escaped", bad)
		}
	}
}

func TestMarkdownFollowsTheLeaf(t *testing.T) {
	out, err := Markdown(sample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.Contains(s, "**read** `c`") || strings.Contains(s, "other branch") {
		t.Errorf("markdown:\n%s", s)
	}
}

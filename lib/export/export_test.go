package export

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func sample() Session {
	return Session{
		Header: []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/p","title":"<b>x</b>"}`),
		Entries: [][]byte{
			[]byte(`{"type":"message","id":"u","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi <script>","timestamp":1}}`),
			[]byte(`{"type":"message","id":"a","parentId":"u","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"deep"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"f"}}],"stopReason":"toolUse","timestamp":2}}`),
			[]byte(`{"type":"message","id":"b","parentId":"u","timestamp":"t2","message":{"role":"user","content":"other branch","timestamp":3}}`),
		},
		LeafID: "a",
	}
}

// branchy has a chain, a fork with two branches (one labelled, one with
// an edit and a long bash output), a label entry and a model change that
// are not drawn.
func branchy() Session {
	long := strings.Repeat("line\\n", 30)
	return Session{
		Header: []byte(`{"type":"session","version":3,"id":"s2","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/p"}`),
		Entries: [][]byte{
			[]byte(`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-01-02T03:04:05.000Z","provider":"anthropic","modelId":"claude"}`),
			[]byte(`{"type":"message","id":"u1","parentId":"m0","timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":"fix **it**","timestamp":1}}`),
			[]byte(`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"# Plan"},{"type":"toolCall","id":"c1","name":"edit","arguments":{"path":"m.go","old_text":"1","new_text":"2"}},{"type":"toolCall","id":"c2","name":"bash","arguments":{"command":"go test"}}],"provider":"anthropic","model":"claude","usage":{"input":100,"output":20,"cacheRead":1000,"cacheWrite":0,"cost":{"total":0.5}},"stopReason":"toolUse","timestamp":2}}`),
			[]byte(`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-02T03:04:08.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"edit","content":[{"type":"text","text":"ok"}],"details":{"diff":"--- a/m.go\n+++ b/m.go\n@@ -1 +1 @@\n-return 1\n+return 2\n"},"isError":false,"timestamp":3}}`),
			[]byte(`{"type":"message","id":"r2","parentId":"r1","timestamp":"2026-01-02T03:04:09.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"bash","content":[{"type":"text","text":"` + long + `"}],"isError":true,"timestamp":4}}`),
			[]byte(`{"type":"message","id":"x1","parentId":"u1","timestamp":"2026-01-02T03:04:10.000Z","message":{"role":"assistant","content":[{"type":"text","text":"another try"}],"stopReason":"stop","timestamp":5}}`),
			[]byte(`{"type":"label","id":"l1","parentId":"x1","timestamp":"2026-01-02T03:04:11.000Z","targetId":"x1","label":"retry"}`),
		},
		LeafID: "r2",
	}
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	out, err := HTML(sample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"<!DOCTYPE html>", `<details class="thinking" open><summary>Thinking</summary><div class="plain">deep</div>`, "hi &lt;script&gt;", "&lt;b&gt;x&lt;/b&gt;", `class="node on-path leaf r-assistant" data-id="a"`, `href="#e-b"`} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if n := strings.Count(s, "<script"); n != 1 {
		t.Errorf("%d <script> elements: only the page's own may be there", n)
	}
	for _, bad := range []string{"http://", "https://", "<link", " src=\"http"} {
		if strings.Contains(s, bad) {
			t.Errorf("HTML contains %q: not self-contained", bad)
		}
	}
}

func TestHTMLTreeHasTheBranchShape(t *testing.T) {
	out, err := HTML(branchy())
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	tree := s[strings.Index(s, `<div id="tree">`):strings.Index(s, "</aside>")]
	// u1 at the top level, then a fork of two branches: a1 (with its two
	// results in a chain under it) and x1; the label and model change are
	// not items.
	shape := regexp.MustCompile(`data-id="(\w+)"|<div class="branch">|</div>`).FindAllStringSubmatch(tree, -1)
	var got []string
	for _, m := range shape {
		switch {
		case m[1] != "":
			got = append(got, m[1])
		case m[0] == "</div>":
			got = append(got, ")")
		default:
			got = append(got, "(")
		}
	}
	if g := strings.Join(got, " "); g != "u1 ( a1 r1 r2 ) ( x1 ) )" {
		t.Errorf("tree shape %q", g)
	}
	for _, want := range []string{
		`class="node on-path leaf r-toolResult" data-id="r2" data-parent="r1"`,
		`class="node r-assistant labeled" data-id="x1" data-parent="u1"><a href="#e-x1"><span class="label">retry</span>`,
		`<section id="e-x1" class="msg r-assistant off"`, // off the active path: hidden until chosen
		`<section id="e-u1" class="msg r-user" data-id="u1" data-parent="">`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestHTMLToolsDiffsFoldsAndHeader(t *testing.T) {
	out, err := HTMLWith(branchy(), HTMLOptions{FoldLines: 10, Markdown: func(s string) string { return "<p>MD:" + s + "</p>" }})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`<div class="tool-head">edit m.go</div>`,
		`<div class="del">-return <mark>1</mark></div><div class="add">+return <mark>2</mark></div>`,
		`<div class="tool error" data-tool="bash"><div class="tool-head">$ go test</div>`,
		`<div class="fold" data-lines="30"><pre class="out error">`,
		`<button class="show-all">show all (20 more lines)</button>`,
		`<dt>Models</dt><dd>anthropic/claude</dd>`,
		`<dt>Messages</dt><dd>1 user, 2 assistant, 2 tool results</dd>`,
		`<dt>Tool calls</dt><dd>2</dd>`,
		`<dt>Tokens</dt><dd>↑100 ↓20 R1k W0</dd>`,
		`<dt>Cost</dt><dd>$0.5000</dd>`,
		`<dt>Date</dt><dd>2026-01-02 03:04 UTC</dd>`,
		`<div class="plain prompt">fix **it**</div>`, // a prompt as typed
		`<div class="md"><p>MD:# Plan</p></div>`,     // an answer as markdown
		`<button id="t-thinking"`, `<button id="t-tools"`, `<input id="q" type="search"`,
		`<section id="e-r1" class="msg r-toolResult merged"`, // drawn inside its call
	} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// TestHTMLPromptAsTyped: a multi-line prompt keeps its line breaks and
// tabs (escaped, not read as markdown paragraphs).
func TestHTMLPromptAsTyped(t *testing.T) {
	sess := sample()
	sess.Entries[0] = []byte(`{"type":"message","id":"u","parentId":null,"timestamp":"t","message":{"role":"user","content":"first line\n\tindented <b>\n\nlast","timestamp":1}}`)
	out, err := HTMLWith(sess, HTMLOptions{Markdown: func(s string) string { return "<p>MD</p>" }})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<div class=\"plain prompt\">first line\n\tindented &lt;b&gt;\n\nlast</div>"; !strings.Contains(string(out), want) {
		t.Errorf("HTML lacks %q", want)
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

func TestMarkdownFencesToolOutput(t *testing.T) {
	s := branchy()
	s.Entries = append(s.Entries, []byte(`{"type":"message","id":"r3","parentId":"r2","timestamp":"t","message":{"role":"toolResult","toolCallId":"c3","toolName":"read","content":[{"type":"text","text":"# not a heading\n`+"```"+`go\nx\n"}],"isError":false,"timestamp":6}}`))
	s.LeafID = "r3"
	out, err := Markdown(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := "````\n# not a heading\n```go\nx\n````\n"; !strings.Contains(string(out), want) {
		t.Errorf("markdown lacks %q:\n%s", want, out)
	}
}

// TestJSONOfALongLinearSession: a 20,000-entry chain (as
// scripts/gensession makes) exports as a document any parser reads: the
// tree is flat, each node's place its depth and ids, not one level of
// nesting per entry (which passed encoding/json's limit of 10,000 after
// minutes of re-encoding each subtree).
func TestJSONOfALongLinearSession(t *testing.T) {
	const n = 20000
	s := Session{Header: []byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/p"}`)}
	parent := "null"
	for i := range n {
		id := fmt.Sprintf("e%05d", i)
		s.Entries = append(s.Entries, []byte(fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"user","content":"turn %d","timestamp":%d}}`, id, parent, i, i)))
		parent = strconv.Quote(id)
	}
	s.LeafID = fmt.Sprintf("e%05d", n-1)
	out, err := JSON(s)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tree []struct {
			ID       string   `json:"id"`
			Parent   *string  `json:"parent"`
			Depth    int      `json:"depth"`
			Children []string `json:"children"`
		} `json:"tree"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Tree) != n || doc.Tree[0].Parent != nil || doc.Tree[n-1].Depth != n-1 || *doc.Tree[n-1].Parent != "e19998" ||
		len(doc.Tree[0].Children) != 1 || doc.Tree[0].Children[0] != "e00001" {
		t.Fatalf("the tree: %d nodes, first %+v, last %+v", len(doc.Tree), doc.Tree[0], doc.Tree[len(doc.Tree)-1])
	}
	if _, err := ParseJSON(out); err != nil {
		t.Fatal(err)
	}
}

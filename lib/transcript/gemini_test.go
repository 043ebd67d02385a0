package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// countGemini counts what a Gemini CLI chat recording holds: the last
// version of each message, rewound ones too.
func countGemini(t testing.TB, data []byte) (tally, map[string]bool) {
	var c tally
	results := map[string]bool{}
	var msgs []json.RawMessage
	var whole struct{ Messages []json.RawMessage }
	if json.Unmarshal(bytes.TrimSpace(data), &whole) == nil && whole.Messages != nil {
		msgs = whole.Messages
	} else {
		last := map[string]json.RawMessage{}
		var order []string
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			var v struct {
				ID  *string                    `json:"id"`
				Set map[string]json.RawMessage `json:"$set"`
			}
			if json.Unmarshal(l, &v) != nil {
				continue
			}
			var set []json.RawMessage // a $set of messages: a checkpoint of the conversation
			json.Unmarshal(v.Set["messages"], &set)
			if v.ID != nil {
				set = append(set, l)
			}
			for _, m := range set {
				var id struct{ ID string }
				json.Unmarshal(m, &id)
				if _, ok := last[id.ID]; !ok {
					order = append(order, id.ID)
				}
				last[id.ID] = m
			}
		}
		for _, id := range order {
			msgs = append(msgs, last[id])
		}
	}
	for _, raw := range msgs {
		var m geminiMessage
		json.Unmarshal(raw, &m)
		parts := func(raw json.RawMessage, f func(p geminiPart)) {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				if s != "" {
					f(geminiPart{Text: &s})
				}
				return
			}
			var list []geminiPart
			if json.Unmarshal(raw, &list) != nil {
				var p geminiPart
				json.Unmarshal(raw, &p)
				list = []geminiPart{p}
			}
			for _, p := range list {
				f(p)
			}
		}
		switch m.Type {
		case "user":
			parts(m.Content, func(p geminiPart) {
				if fr := p.FunctionResponse; fr != nil && !results[fr.ID] {
					c.Results++ // a response its call does not hold
					results[fr.ID] = true
				}
				if p.InlineData != nil || p.FileData != nil {
					c.Images++
				} else if p.Text != nil {
					c.Prompts++
				}
			})
		case "gemini":
			parts(m.Content, func(p geminiPart) {
				if p.Text != nil && !p.Thought {
					c.Texts++
				}
			})
			for _, tc := range m.ToolCalls {
				c.Calls++
				if len(tc.Result) > 0 && string(tc.Result) != "null" {
					c.Results++
					results[tc.ID] = true
				}
			}
		}
	}
	return c, results
}

// checkGemini imports a Gemini CLI file and fails t when anything of the
// source is missing from the session.
func checkGemini(t *testing.T, data []byte) Result {
	t.Helper()
	want, results := countGemini(t, data)
	res, err := FromGemini(data, opts())
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	compareCounts(t, res, want, results, false)
	return res
}

func TestGeminiRecording(t *testing.T) {
	data := readFixture(t, "gemini/session-rewind.jsonl")
	if !IsGemini(data) || Detect(bytes.SplitN(data, []byte{'\n'}, 2)[0]) != "gemini" {
		t.Fatal("not detected")
	}
	res := checkGemini(t, data)
	msgs, shape := context(t, res.Sessions[0])
	// u2 and the info after it were rewound: the conversation goes on from g2
	if want := "user[text] assistant[thinking,call:ls-1] toolResult:ls-1[text] assistant[text] user[text] assistant[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	// the first version of g1 (no result, no tokens) is replaced by its last
	if diff := cmp.Diff(struct{ Input, Output, CacheRead int }{200, 50, 1000}, msgs[1].Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	h := res.Sessions[0].Header
	if h.ID != "5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f" || h.Timestamp != "2026-11-02T10:00:00.000Z" {
		t.Errorf("header %+v", h)
	}
	if diff := cmp.Diff(map[string]int{"metadata": 1, "info": 1, "$rewindTo": 1, "$set": 1}, kept(res)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"$set lastUpdated": 1}, skipped(res)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	all := string(bytes.Join(res.Sessions[0].Entries, nil))
	if !strings.Contains(all, "delete them") {
		t.Error("the rewound prompt is not kept on its branch")
	}
}

func TestGeminiLegacyJSON(t *testing.T) {
	data := readFixture(t, "gemini/session-legacy.json")
	if !IsGemini(data) {
		t.Fatal("not detected")
	}
	res := checkGemini(t, data)
	msgs, shape := context(t, res.Sessions[0])
	if want := "user[text] assistant[call:sh-1,call:sh-2] toolResult:sh-1[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if msgs[2].Content[0].Text != "Exit Code: 1" {
		t.Errorf("result %+v", msgs[2])
	}
	if diff := cmp.Diff(map[string]int{"tool call without a result": 1}, skipped(res)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"metadata": 1, "error": 1}, kept(res)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
}

func TestGeminiCheckpoint(t *testing.T) {
	data := readFixture(t, "gemini/checkpoint-tag.json")
	if !IsGemini(data) {
		t.Fatal("not detected")
	}
	res, err := FromGemini(data, opts())
	if err != nil {
		t.Fatal(err)
	}
	msgs, shape := context(t, res.Sessions[0])
	want := "user[text] assistant[text] user[text] assistant[thinking,call:read_file-1] toolResult:read_file-1[text] assistant[text]"
	if shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if msgs[4].Content[0].Text != "package a" {
		t.Errorf("result %+v", msgs[4])
	}
	wrapped := []byte(`{"history":` + string(data) + `,"authType":"gemini-api-key"}`)
	res2, err := FromGemini(wrapped, opts())
	if err != nil {
		t.Fatal(err)
	}
	if _, shape2 := context(t, res2.Sessions[0]); shape2 != want {
		t.Errorf("{history} form: %s", shape2)
	}
}

// Gemini CLI 0.61 (a file it wrote offline, reduced): the context message
// in a $set of messages, a call's response recorded twice (in the call and
// as the user message the model got), written once.
func TestGemini061(t *testing.T) {
	res := checkGemini(t, readFixture(t, "gemini/session-0.61.jsonl"))
	_, shape := context(t, res.Sessions[0])
	want := "user[text] user[text] assistant[thinking,text,call:list_directory_1] toolResult:list_directory_1[text] toolResult:read_file_2[text] assistant[text]"
	if shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if diff := cmp.Diff(map[string]int{"$set lastUpdated": 2, "user functionResponse": 1}, skipped(res)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

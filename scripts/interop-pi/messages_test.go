package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMessages(t *testing.T) {
	body := `{"model":"m","messages":[
	{"role":"system","content":"you are pi"},
	{"role":"developer","content":"dev"},
	{"role":"user","content":"hi <b>"},
	{"role":"user","content":[{"type":"text","text":"hi"}]},
	{"role":"user","content":""},
	{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.go\",\"limit\":10}"}},{"id":"c2","function":{"name":"x","arguments":"not json"}}]},
	{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
	got, err := messages([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"content":[{"text":"hi <b>","type":"text"}],"role":"user"}`,
		`{"content":[{"text":"hi","type":"text"}],"role":"user"}`,
		`{"content":[],"role":"user"}`,
		`{"content":[],"role":"assistant","tool_calls":[{"function":{"arguments":{"limit":10,"path":"a.go"},"name":"read"},"id":"c1","type":"function"},{"function":{"arguments":"not json","name":"x"},"id":"c2"}]}`,
		`{"content":[{"text":"ok","type":"text"}],"role":"tool","tool_call_id":"c1"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := messages([]byte("{")); err == nil {
		t.Error("a broken body gave no error")
	}
	if diff := cmp.Diff("1 assistant, 1 tool, 3 user", roles(got)); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
}

func TestFileMention(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{`{"content":[{"text":"<system-reminder>\n<file path=\"a.go\">x</file>","type":"text"}],"role":"user"}`, true},
		{`{"content":[{"text":"<system-reminder>\nother","type":"text"}],"role":"user"}`, false},
		{`{"content":[],"role":"user"}`, false},
	}
	for _, tt := range tests {
		if got := isFileMention(tt.msg); got != tt.want {
			t.Errorf("isFileMention(%s) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

func TestFirstDiff(t *testing.T) {
	i, a, b := firstDiff([]string{"x", "y"}, []string{"x", "zzzz", "w"}, 2)
	if i != 1 || a != "y" || b != "z…" {
		t.Errorf("firstDiff = %d %q %q, want 1 \"y\" \"z…\"", i, a, b)
	}
	i, a, b = firstDiff([]string{"x"}, []string{"x", "w"}, 9)
	if i != 1 || a != "(none)" || b != "w" {
		t.Errorf("firstDiff = %d %q %q, want 1 \"(none)\" \"w\"", i, a, b)
	}
}

package show

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolHeader(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"bash", `{"command":"make test\necho done"}`, "$ make test …"},
		{"read", `{"path":"a.go","offset":5}`, "read a.go:5-"},
		{"read", `{"file_path":"a.go"}`, "read a.go"},
		{"edit", `{"path":"a.go","old_text":"x","new_text":"y"}`, "edit a.go"},
		{"grep", `{"pattern":"TODO","path":"lib"}`, "grep TODO lib"},
		{"ls", `{}`, "ls ."},
		{"task", `{"prompt":"Find the parser\nin lib","agent":"explore"}`, "task explore: Find the parser"},
		{"task", `{"prompt":"Run the tests","host":"box"}`, "task @box Run the tests"},
		{"mcp__x__y", `{"q": 1}`, `mcp__x__y {"q": 1}`},
	} {
		if got := ToolHeader(c.name, json.RawMessage(c.args)); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

func TestWordDiff(t *testing.T) {
	a, b := WordDiff("return x + 1", "return y + 1")
	if d := cmp.Diff([][2]int{{7, 8}}, a); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([][2]int{{7, 8}}, b); d != "" {
		t.Error(d)
	}
}

func TestPiDiff(t *testing.T) {
	lines := ParseDiff("     ...\n 234 a\n-235 old text\n+235 new text\n")
	if lines[0].Kind != '@' || lines[2].Kind != '-' || lines[3].Kind != '+' || len(lines[2].Changed) != 1 {
		t.Errorf("%+v", lines)
	}
}

func TestShort(t *testing.T) {
	for n, want := range map[int]string{950: "950", 1000: "1k", 12345: "12.3k", 250000: "250k", 1500000: "1.5M"} {
		if got := Tokens(n); got != want {
			t.Errorf("Tokens(%d) = %q, want %q", n, got, want)
		}
	}
}

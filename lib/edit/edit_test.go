package edit

import (
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	src := "package a\n\nfunc F() {\n\tx := 1\n\treturn\n}\n"
	tests := []struct {
		name, text, old, new string
		all                  bool
		want, err            string
	}{
		{name: "exact", text: src, old: "x := 1", new: "x := 2", want: strings.Replace(src, "x := 1", "x := 2", 1)},
		{name: "fuzzy with spaces for tabs, reindented", text: src, old: "func F() {\n    x := 1\n    return\n}", new: "func F() {\n    x := 3\n    return\n}",
			want: "package a\n\nfunc F() {\n\tx := 3\n\treturn\n}\n"},
		{name: "typographic quotes", text: "s := \"hi\"\n", old: "s := “hi”", new: "s := \"yo\"", want: "s := \"yo\"\n"},
		{name: "ambiguous", text: "a\na\n", old: "a", new: "b", err: "Found 2 occurrences in f (showing first 2 of 2)"},
		{name: "all", text: "a\na\n", old: "a", new: "b", all: true, want: "b\nb\n"},
		{name: "no match", text: src, old: "completely different text here", new: "x", err: "Could not find a close enough match in f."},
		{name: "empty old", text: src, old: "", new: "x", err: "old_text must not be empty."},
		{name: "identical", text: src, old: "x := 1", new: "x := 1", err: "No changes made to f."},
	}
	for _, tt := range tests {
		got, err := Replace("f", tt.text, tt.old, tt.new, tt.all, true, 0)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got.Text != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got.Text, err, tt.want)
		}
	}
}

func TestParseRender(t *testing.T) {
	f := Parse("\uFEFFa\r\nb\r\n")
	if !f.BOM || !f.CRLF || f.Text != "a\nb\n" || f.Render("a\nc\n") != "\uFEFFa\r\nc\r\n" {
		t.Errorf("%+v", f)
	}
}

func FuzzReplace(f *testing.F) {
	f.Add("a\n\tb\nc\n", "b", "x")
	f.Fuzz(func(t *testing.T, text, old, new string) {
		Replace("f", text, old, new, false, true, 0)
	})
}

package prompt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b\tc ", []string{"a", "b", "c"}},
		{`"a b" 'c d' e`, []string{"a b", "c d", "e"}},
		{`x"y z"w`, []string{"xy zw"}},
		{`""`, []string{""}},
		{`a\ b`, []string{`a\`, "b"}},
		{`"unclosed rest`, []string{"unclosed rest"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, SplitArgs(tt.in)); d != "" {
			t.Errorf("SplitArgs(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestSubstitute(t *testing.T) {
	args := []string{"a", "b c", "d"}
	tests := []struct {
		body string
		args []string
		want string
	}{
		{"first $1 second $2", args, "first a second b c"},
		{"missing [$4] [$0]", args, "missing [] []"},
		{"all: $@ / $ARGUMENTS", args, "all: a b c d / a b c d"},
		{"from 2: $@[2]", args, "from 2: b c d"},
		{"slice: $@[1:2]", args, "slice: a b c"},
		{"past end: [$@[9]] [$@[3:5]]", args, "past end: [] [d]"},
		{"mustache {{ARGUMENTS}} {{ args }}", args, "mustache a b c d a b c d"},
		{"$10 is not $1 then 0", []string{"x"}, " is not x then 0"},
		{"no recursion $1", []string{"$2"}, "no recursion $2"},
		{"$HOME and $ stay", args, "$HOME and $ stay"},
		{"none: [$@]", nil, "none: []"},
		// Huge numbers (Atoi gives the largest int) neither panic nor wrap.
		{"[$@[2:99999999999999999999]] [$@[1:9223372036854775807]]", args, "[b c d] [a b c d]"},
		{"[$@[99999999999999999999]] [$99999999999999999999] [$@[3:0]]", args, "[] [] []"},
	}
	for _, tt := range tests {
		if got := Substitute(tt.body, tt.args); got != tt.want {
			t.Errorf("Substitute(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	tpl, err := NewTemplate("review", "/p/review.md", "---\ndescription: Review a file\n---\nReview $1 for $@[2].\n")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := NewTemplate("fix", "/p/fix.md", "\n\nFix the failing test in $ARGUMENTS, and keep the change as small as you possibly can do it.\n")
	ts := []Template{tpl, plain}
	if plain.Description != "Fix the failing test in $ARGUMENTS, and keep the change as s..." {
		t.Errorf("description from body = %q", plain.Description)
	}
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"/review main.go 'error handling' style", "Review main.go for error handling style.\n", true},
		{"/fix", "\n\nFix the failing test in , and keep the change as small as you possibly can do it.\n", true},
		{"/fix\nlib/x_test.go", "\n\nFix the failing test in lib/x_test.go, and keep the change as small as you possibly can do it.\n", true},
		{"/review\ta.go\tb", "Review a.go for b.\n", true},
		{"/unknown x", "/unknown x", false},
		{"/", "/", false},
		{"/usr/bin is odd", "/usr/bin is odd", false},
		{"review x", "review x", false},
	}
	for _, tt := range tests {
		got, ok, err := Expand(tt.in, ts)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want || ok != tt.ok {
			t.Errorf("Expand(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzSubstitute(f *testing.F) {
	f.Add("a $1 $@ $@[2:1] $ARGUMENTS {{args}}", "x 'y z'")
	f.Fuzz(func(t *testing.T, body, args string) {
		_ = Substitute(body, SplitArgs(args))
	})
}

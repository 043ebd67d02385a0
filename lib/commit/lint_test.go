package commit

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func hits(r Result) []string {
	var out []string
	for _, p := range r.Errors {
		out = append(out, p.Rule)
	}
	for _, p := range r.Warnings {
		out = append(out, "~"+p.Rule)
	}
	sort.Strings(out)
	return out
}

func TestLintConventional(t *testing.T) {
	tests := []struct {
		msg   string
		valid bool
		hits  []string // errors; warnings start with ~
	}{
		{"feat: add paging", true, nil},
		{"feat(api)!: drop v1\n\nBREAKING CHANGE: v1 is gone", true, nil},
		{"Feat: add paging", false, []string{"type-case", "type-enum"}},
		{"foo: bar", false, []string{"type-enum"}},
		{"just words", false, []string{"subject-empty", "type-empty"}},
		{": no type", false, []string{"type-empty"}},
		{"fix: Capital", false, []string{"subject-case"}},
		{"fix: ALL CAPS", false, []string{"subject-case"}},
		{"fix: 2fa login", true, nil},
		{"fix: \"Quoted\" first", true, nil},
		{"fix: iOS build", true, nil},
		{"fix: end.", false, []string{"subject-full-stop"}},
		{"feat: " + strings.Repeat("a", 95), false, []string{"header-max-length"}},
		{" feat: lead", false, []string{"header-trim", "subject-empty", "type-empty"}},
		{"Bad one.", false, []string{"subject-empty", "subject-full-stop", "type-empty"}},
		{"fix: wait...", true, nil},
		{"feat(x):", false, []string{"subject-empty", "type-empty"}},
		{"fix: a\nbody", true, []string{"~body-leading-blank"}},
		{"fix: a\n\n" + strings.Repeat("b", 101), false, []string{"body-max-line-length"}},
		{"fix: a\n\nhttps://example.com/" + strings.Repeat("b", 101), true, nil},
		{"fix: a\n\nbody\nCloses #1", true, []string{"~footer-leading-blank"}},
		{"fix: a\n\nCloses #1 " + strings.Repeat("c", 100), false, []string{"footer-max-line-length"}},
		{"Merge branch 'main' into x", true, nil},
		{"Revert \"feat: x\"", true, nil},
		{"fixup! feat: x", true, nil},
		{"v1.2.3", true, nil},
		{"chore(release): 1.2.3 [skip ci]", true, nil},
	}
	for _, tt := range tests {
		r := Lint(tt.msg, Conventional())
		if r.Valid != tt.valid {
			t.Errorf("Lint(%q).Valid = %v, want %v", tt.msg, r.Valid, tt.valid)
		}
		if d := cmp.Diff(tt.hits, hits(r)); d != "" {
			t.Errorf("Lint(%q) rules (-want +got):\n%s", tt.msg, d)
		}
	}
}

func TestLintStrict(t *testing.T) {
	tests := []struct {
		msg  string
		hits []string
	}{
		{"fix(parser): handled empty input", nil},
		{"fix(parser): handle empty input", []string{"subject-tense"}},
		{"fix: rewrote the lexer", nil},
		{"feat: added various better things", []string{"~subject-filler", "~subject-filler"}},
		{"fix: fixed this commit", []string{"~subject-meta"}},
		{"fix(A/b/c): fixed it", []string{"scope-format"}},
		{"fix: fixed " + strings.Repeat("x", 70), []string{"header-max-length"}},
		{"fix: fixed it\n\n- added a thing\n- removed another.", []string{"~detail-full-stop"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.hits, hits(Lint(tt.msg, Strict()))); d != "" {
			t.Errorf("Lint(%q) (-want +got):\n%s", tt.msg, d)
		}
	}
}

func TestParse(t *testing.T) {
	m := Parse("feat(api)!: drop v1\n\nLonger text.\n\nBREAKING CHANGE: v1 is gone\n  for good\nRefs: #12\nSigned-off-by: A <a@b>")
	want := Message{
		Header: "feat(api)!: drop v1", Type: "feat", Scope: "api", Bang: true, Subject: "drop v1", Breaking: true,
		Body:     "Longer text.",
		Footer:   "BREAKING CHANGE: v1 is gone\n  for good\nRefs: #12\nSigned-off-by: A <a@b>",
		Notes:    []Note{{"BREAKING CHANGE", "v1 is gone\n  for good"}},
		Trailers: []Note{{"BREAKING CHANGE", "v1 is gone\nfor good"}, {"Refs", "#12"}, {"Signed-off-by", "A <a@b>"}},
	}
	opts := cmp.FilterPath(func(p cmp.Path) bool {
		f := p.Last().String()
		return f == ".Raw" || f == ".Lines" || f == ".HeaderMatched"
	}, cmp.Ignore())
	if d := cmp.Diff(want, m, opts); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
}

func TestClean(t *testing.T) {
	in := "\nfix: a\n\nbody\n# Please enter the commit message\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n"
	if got, want := Clean(in, "#"), "fix: a\n\nbody"; got != want {
		t.Errorf("Clean = %q, want %q", got, want)
	}
}

func TestApplyConfig(t *testing.T) {
	cfg, err := ApplyConfig(Conventional(), []byte(`{"extends":["@commitlint/config-conventional"],"rules":{"header-max-length":[2,"always",20],"type-enum":[2,"always",["feat","wip"]],"body-leading-blank":[0]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"header-max-length"}, hits(Lint("wip: a rather long header", cfg))); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]string(nil), hits(Lint("wip: x\nbody", cfg))); d != "" {
		t.Error(d)
	}
	for _, bad := range []string{`{`, `{"rules":{"x":[2,"always"]}}`, `{"rules":{"type-enum":[3]}}`, `{"rules":{"type-enum":[2,"sometimes"]}}`, `{"rules":{}} garbage`, `{"rules":{}}}`, `{}{}`} {
		if _, err := ApplyConfig(Conventional(), []byte(bad)); err == nil {
			t.Errorf("ApplyConfig(%s): want error", bad)
		}
	}
}

func FuzzLint(f *testing.F) {
	for _, s := range []string{"feat: x", "fix(a)!: b\n\nbody\n\nBREAKING CHANGE: c", "Merge branch 'x'", "", "\n\n#1", "a(: b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := Parse(s)
		if !strings.HasPrefix(s, m.Header) {
			t.Fatalf("header %q not a prefix", m.Header)
		}
		r := Lint(s, Strict())
		if r.Valid != (len(r.Errors) == 0) {
			t.Fatal("valid disagrees with errors")
		}
		_ = Clean(s, "#")
	})
}

package ignore

import (
	"path"
	"strings"
	"testing"
)

// FuzzIgnorePattern parses ignore-file lines and matches them: no panic,
// and for globs of plain characters, '*' and '?' (no '**', classes or
// escapes), git's wildmatch agrees with path.Match.
func FuzzIgnorePattern(f *testing.F) {
	for _, s := range []string{"*.log", "!keep.log", "build/", "/top.txt", "docs/**/gen.md", "a/**", "**/b", "\\#x", "x\\ ", "[a-c]?", "[!a]*", "a[[:alpha:]]b", "*/*"} {
		f.Add(s, "a/b/top.txt", false)
	}
	f.Fuzz(func(t *testing.T, line, rel string, isDir bool) {
		p, ok := ParseIgnoreLine(line)
		if !ok {
			return
		}
		got := p.Match(rel, isDir)
		ParseIgnore([]byte(line + "\n" + line))
		if strings.ContainsAny(p.glob, "[\\") || strings.Contains(p.glob, "**") || p.noDir || p.dirOnly {
			return
		}
		if strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") || strings.Contains(rel, "//") || rel == "" {
			return
		}
		want, err := path.Match(p.glob, rel)
		if err == nil && want != got {
			t.Fatalf("%q on %q: wildmatch %v, path.Match %v", p.glob, rel, got, want)
		}
	})
}

// FuzzGlob compiles -g/--iglob globs and matches them: no panic, and a
// glob that compiles decides every path.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"*.go", "!*.md", "src/**", "/top", "dir/", "*.{go,md}", "[abc", "{a,b", "a}", "\\!x", "**/x/**"} {
		f.Add(s, "src/a/b.go", false, false)
	}
	f.Fuzz(func(t *testing.T, glob, rel string, fold, isDir bool) {
		var ovs Overrides
		var err error
		if fold {
			ovs, err = CompileGlobs(nil, []string{glob})
		} else {
			ovs, err = CompileGlobs([]string{glob}, nil)
		}
		if err != nil {
			return
		}
		fl := &Filter{o: WalkOptions{Overrides: ovs}}
		fl.overrideDecision(rel, isDir)
		filterGlobs(compileFilterGlobs([]string{glob}), rel)
	})
}

// FuzzRuleSet: an ignore file's compiled set (globset.go) decides a path
// as trying its rules from the last one back does, whatever the rules.
func FuzzRuleSet(f *testing.F) {
	f.Add("**/gen_*.go\nd/sub/\n*.log\n!keep.txt\ntmp*\n/top\nx*y\n", "d/gen_1.go", false)
	f.Add("**/a\n**/*b/\na*\n!ab\n", "x/ab", true)
	f.Fuzz(func(t *testing.T, text, rel string, isDir bool) {
		pats := ParseIgnore([]byte(text))
		for len(pats) > 0 && len(pats) < minSet {
			pats = append(pats, pats...)
		}
		want := len(pats) - 1
		for want >= 0 && !pats[want].Match(rel, isDir) {
			want--
		}
		if got := newRuleSet(pats).last(pats, rel, isDir); got != want {
			t.Fatalf("%q dir %v under\n%s: set says rule %d, the rules %d", rel, isDir, text, got, want)
		}
	})
}

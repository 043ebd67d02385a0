package ignore

import (
	"math/rand/v2"
	"testing"
)

// TestRuleSetSameAsRules: an ignore file's compiled set (globset.go)
// decides every path as trying each rule from the last one back does.
func TestRuleSetSameAsRules(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b.log", "c.tar.gz", "log", "x.go", "gen_1.go", ".log", "tar.gz"}
	shapes := []func() string{
		func() string { return names[r.IntN(len(names))] },
		func() string { return "*" + names[r.IntN(len(names))] },
		func() string { return "*.log" },
		func() string { return names[r.IntN(len(names))] + "/" },
		func() string { return "!" + names[r.IntN(len(names))] },
		func() string { return "!*" + names[r.IntN(len(names))] },
		func() string { return "d/" + names[r.IntN(len(names))] },
		func() string { return "**/gen_*.go" },
		func() string { return "[ab]*" },
		func() string { return "*.g?" },
		func() string { return `\!x` },
		func() string { return "**/" + names[r.IntN(len(names))] },
		func() string { return "**/*" + names[r.IntN(len(names))] + "/" },
		func() string { return "gen_*" },
		func() string { return "!gen*.go" },
		func() string { return "**/x*o" },
		func() string { return "c.*" },
		func() string { return "/" + names[r.IntN(len(names))] },
		func() string { return "d/e/" + names[r.IntN(len(names))] + "/" },
		func() string { return "/d" },
		func() string { return "**/**" },
		func() string { return "**/d/x.go" },
	}
	for round := 0; round < 300; round++ {
		var text string
		for k := minSet + r.IntN(30); k > 0; k-- {
			text += shapes[r.IntN(len(shapes))]() + "\n"
		}
		pats := ParseIgnore([]byte(text))
		set := newRuleSet(pats)
		for _, dir := range []string{"", "d/", "d/e/", "x/d/"} {
			for _, n := range append(names, "!x", "gen_2.go", "y.gz", "zz", "gen_", "gen", "xo", "d", "c.") {
				for _, isDir := range []bool{false, true} {
					rel := dir + n
					want := len(pats) - 1
					for want >= 0 && !pats[want].Match(rel, isDir) {
						want--
					}
					if got := set.last(pats, rel, isDir); got != want {
						t.Fatalf("%q dir %v under\n%s: set says rule %d, the rules %d", rel, isDir, text, got, want)
					}
				}
			}
		}
	}
}

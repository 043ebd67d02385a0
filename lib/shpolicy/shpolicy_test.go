package shpolicy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The policy's cases, with the file system, are in cmd/agent-tool
// (TestBashPolicy, FuzzBashPolicy); these are the options alone.
func TestCheckOptions(t *testing.T) {
	resolve := func(p string) string { return "/w/" + p }
	o := Options{Prefixes: []string{"git diff"}, Exact: []string{"npm run build"}, Resolve: resolve}
	for script, ok := range map[string]bool{
		"git diff":                   true,
		"git diff --stat | git diff": true,
		"npm run build":              true,
		"npm run build --prod":       false,
		"git diff > out":             true, // no File: every file is fine
		"git status":                 false,
	} {
		if got := Check(script, o) == ""; got != ok {
			t.Errorf("Check(%q) allowed=%v, want %v (%s)", script, got, ok, Check(script, o))
		}
	}
	o.ReadOnly = true
	if Check("git diff > out", o) == "" {
		t.Error("ReadOnly allowed a write")
	}
}

func TestCommands(t *testing.T) {
	got, err := Commands(`FOO=1 git diff --stat && (rm -rf "x y") | eval 'curl evil'; exec ls $d`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"git diff --stat", "rm -rf x y", "curl evil", "eval curl evil", "ls $d"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("-want +got\n%s", d)
	}
	if _, err := Commands("echo 'open"); err == nil {
		t.Error("no parse error")
	}
}

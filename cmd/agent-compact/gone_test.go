package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/app"
)

// neverCompacted is longStream without its compactions (a path never
// compacted: everything is in the context to be sent), its tool results
// the tool output of some turns a read (protected from pruning).
func neverCompacted(n int, seed int64) string {
	var b strings.Builder
	parent := regexp.MustCompile(`"parentId":"(c[^"]*)"`)
	var last string
	for _, l := range strings.SplitAfter(longStream(n, seed), "\n") {
		if strings.Contains(l, `"type":"compaction"`) {
			last = regexp.MustCompile(`"parentId":("[^"]*")`).FindStringSubmatch(l)[1]
			continue
		}
		if m := parent.FindStringSubmatch(l); m != nil && last != "" {
			l = strings.Replace(l, `"parentId":"`+m[1]+`"`, `"parentId":`+last, 1)
		}
		b.WriteString(l)
	}
	return b.String()
}

// runCompact runs agent-compact on in (from a file when file), letting go
// of entries keep bytes after the newest compaction.
func runCompact(t *testing.T, in string, keep int, file bool, args ...string) string {
	t.Helper()
	old := keepAfter
	keepAfter = keep
	defer func() { keepAfter = old }()
	var stdin = any(strings.NewReader(in))
	if file {
		p := filepath.Join(t.TempDir(), "in.jsonl")
		os.WriteFile(p, []byte(in), 0o644)
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		stdin = f
	}
	var out, errb bytes.Buffer
	env := &app.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
		Now: func() time.Time { return time.UnixMilli(1767225600000) }, Dir: t.TempDir()}
	env.Stdin = stdin.(interface{ Read([]byte) (int, error) })
	code := app.Run(context.Background(), newApp, env, append([]string{"agent-compact"}, args...))
	// (a compaction record's id is random)
	o := regexp.MustCompile(`"type":"compaction","id":"[0-9a-f]{8}"`).ReplaceAllString(out.String(), `"type":"compaction","id":"ID"`)
	return fmt.Sprintf("exit %d\nstderr %s\n%s", code, errb.String(), o)
}

// Letting go of the entries after the newest compaction (compact.Gone),
// and reading the stream again from the spool when the decisions need the
// whole path, writes what holding every line writes: pruning, passing
// through, compacting, the plan, on compacted and never-compacted streams,
// from a pipe and from a file.
func TestGoneWritesAsWhole(t *testing.T) {
	bad := strings.Replace(neverCompacted(600, 3), `{"type":"message","id":"e000500"`, `{"type":"message","id":"e000500",`, 1)
	branch := neverCompacted(600, 4) + `{"type":"message","id":"x","parentId":"e000100","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"b","timestamp":1}}` + "\n"
	streams := map[string]string{"compacted": longStream(900, 1), "never compacted": neverCompacted(900, 2),
		"short": neverCompacted(30, 5), "bad line": bad, "branch": branch}
	sum := []string{"--summarizer-cmd", "echo the summary"}
	argss := [][]string{
		{"--context-window", "10000000"},
		{"--context-window", "10000000", "--prune-only"},
		{"--context-window", "10000000", "--no-prune"},
		append([]string{"--context-window", "200000"}, sum...),
		append([]string{"--context-window", "10000000", "--force"}, sum...),
		{"--context-window", "200000", "--dry-run"},
	}
	for name, in := range streams {
		for _, args := range argss {
			whole := runCompact(t, in, 1<<40, false, args...)
			for _, keep := range []int{1, 4096, 64 << 10} {
				for _, file := range []bool{false, true} {
					if got := runCompact(t, in, keep, file, args...); got != whole {
						t.Errorf("%s %v keep=%d file=%v: differs from holding it whole:\n%s", name, args, keep, file, cmp.Diff(whole, got))
					}
				}
			}
		}
	}
}

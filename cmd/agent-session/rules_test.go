package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/agentutils/agentutils/internal/app"
)

// One set of rules for malformed session files (issue 22): open's
// streaming path, the whole-file load (--resolved, --tree) and a .zst file
// report the same lines in the same words.
func TestOneSetOfRules(t *testing.T) {
	lines := []string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"session","version":3,"id":"s2","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}`,
		`not json`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"dup","timestamp":1}}`,
		`{"type":"message","parentId":"a1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"no id","timestamp":1}}`,
		`{"type":"message","id":"a2","parentId":"a2","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"self","timestamp":1}}`,
		"{\"type\":\"message\",\"id\":\"a3\",\"parentId\":\"a2\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"\xff\",\"timestamp\":1}}",
		`{"type":"message","id":"a4","parentId":"a3","timest`, // torn: no newline
	}
	data := []byte(strings.Join(lines, "\n"))
	dir := t.TempDir()
	plain := filepath.Join(dir, "s.jsonl")
	os.WriteFile(plain, data, 0o644)
	var z bytes.Buffer
	w, _ := zstd.NewWriter(&z)
	w.Write(data)
	w.Close()
	zst := filepath.Join(dir, "z.jsonl.zst")
	os.WriteFile(zst, z.Bytes(), 0o644)

	warnings := func(args ...string) []string {
		var out, errb bytes.Buffer
		env := &app.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
			if k == "AGENTUTILS_HOME" {
				return dir
			}
			return ""
		}, Now: func() time.Time { return time.Unix(0, 0) }, Dir: dir}
		if code := app.Run(context.Background(), newApp, env, append([]string{"agent-session", "open"}, args...)); code != 0 {
			t.Fatalf("open %v: exit %d: %s", args, code, errb.String())
		}
		var ws []string
		for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
			l = strings.NewReplacer(plain, "FILE", zst, "FILE").Replace(l)
			if strings.Contains(l, "FILE:") {
				ws = append(ws, l)
			}
		}
		sort.Strings(ws)
		return ws
	}
	want := warnings(plain)
	for _, w := range []string{
		`FILE:2: skipped: extra session header skipped`,
		`FILE:4: skipped: invalid JSON`,
		`FILE:5: duplicate id "a1" (the first one is used)`,
		`FILE:6: skipped: entry without an id`,
		`FILE:7: entry "a2" names itself as its parent (read as a root)`,
		`FILE:8: invalid UTF-8 replaced with U+FFFD`,
		`FILE:9: skipped: torn last line (no newline; an interrupted write?) skipped`,
	} {
		found := false
		for _, g := range want {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("open: no warning %q in\n%s", w, strings.Join(want, "\n"))
		}
	}
	for _, args := range [][]string{{"--resolved", plain}, {"--tree", plain}, {"--all", plain}, {zst}, {"--resolved", zst}} {
		if got := warnings(args...); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("open %v warns\n%s\nnot as open does\n%s", args, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

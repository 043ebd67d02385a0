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
	"github.com/agentutils/agentutils/lib/session"
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
		// two records on one line (pi has written such), then one and a rest that is not JSON
		`{"type":"message","id":"b1","parentId":"a3","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}{"type":"message","id":"b2","parentId":"b1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"second","timestamp":1}}`,
		`{"type":"message","id":"b3","parentId":"b2","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"third","timestamp":1}} oops`,
		`{"type":"message","id":"a4","parentId":"b3","timest`, // torn: no newline
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
		`FILE:9: 2 JSON values on one line, read one after another`,
		`FILE:10: 1 JSON value(s) read; the rest of the line, from byte 141, skipped: invalid JSON at byte 143`,
		`FILE:11: skipped: torn last line (no newline; an interrupted write?) skipped`,
	} {
		found := false
		for _, g := range want {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("open: no warning %q in\n%s", w, strings.Join(want, "\n"))
		}
	}
	// The values of a line holding several are entries of the path, each
	// printed on a line of its own.
	for _, args := range [][]string{{plain}, {zst}, {"--resolved", plain}} {
		var out, errb bytes.Buffer
		env := &app.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
			Now: func() time.Time { return time.Unix(0, 0) }, Dir: dir}
		app.Run(context.Background(), newApp, env, append([]string{"agent-session", "open"}, args...))
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if _, err := session.ParseRecord([]byte(l)); err != nil {
				t.Errorf("open %v: %q: %v", args, l, err)
			}
			for _, w := range []string{"first", "second", "third"} {
				if strings.Contains(l, `"`+w+`"`) {
					got = append(got, w)
				}
			}
		}
		if strings.Join(got, " ") != "first second third" {
			t.Errorf("open %v: %v, want first second third, each on a line", args, got)
		}
	}
	for _, args := range [][]string{{"--resolved", plain}, {"--tree", plain}, {"--all", plain}, {zst}, {"--resolved", zst}} {
		if got := warnings(args...); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("open %v warns\n%s\nnot as open does\n%s", args, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

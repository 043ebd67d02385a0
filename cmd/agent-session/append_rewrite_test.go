package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/app"
)

// chunkReader hands its chunks out one Read at a time, as a live producer
// fills a pipe, and calls before(k) ahead of chunk k.
type chunkReader struct {
	chunks [][]byte
	k      int
	before func(k int)
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.k == len(r.chunks) {
		r.before(r.k)
		return 0, io.EOF
	}
	r.before(r.k)
	n := copy(p, r.chunks[r.k])
	if n < len(r.chunks[r.k]) {
		panic("chunk larger than the read")
	}
	r.k++
	return n, nil
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// TestAppendOneRewritePerRun: pruned records (replacements) that arrive
// in many pipe reads cost the file one rewrite, done with the next record
// or at EOF, and a second writer started during the run (a real process,
// blocked on the lock meanwhile) appends after it; nothing is lost.
func TestAppendOneRewritePerRun(t *testing.T) {
	bin := sessionBinary(t)
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "s.jsonl")
	var seed strings.Builder
	seed.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	parent := "null"
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&seed, `{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"long output %d"}],"isError":false,"timestamp":1}}`+"\n", i, parent, i)
		parent = fmt.Sprintf(`"e%d"`, i)
	}
	os.WriteFile(file, []byte(seed.String()), 0o644)
	pruned := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"type":"entry","entry":{"type":"message","id":"e%d","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"[Output truncated - 9 tokens]"}],"isError":false,"timestamp":1,"prunedAt":2},"pending":true}}`+"\n", i))
	}
	chunks := [][]byte{pruned(0), append(pruned(1), pruned(2)...), pruned(3), []byte(userEvent("turn") + "\n")}
	ino := inode(t, file)
	var second *exec.Cmd
	var secondOut bytes.Buffer
	r := &chunkReader{chunks: chunks, before: func(k int) {
		if k > 0 && k < 4 && inode(t, file) != ino {
			t.Errorf("the file was rewritten before read %d: replacements were committed one read at a time", k)
		}
		if k == 2 {
			second = exec.Command(bin, "append", file)
			second.Env = append(os.Environ(), "AGENTUTILS_HOME="+home)
			second.Stdin = strings.NewReader(userEvent("second writer") + "\n")
			second.Stdout, second.Stderr = &secondOut, &secondOut
			if err := second.Start(); err != nil {
				t.Fatal(err)
			}
		}
	}}
	var out, errb bytes.Buffer
	env := &app.Env{Stdin: r, Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "AGENTUTILS_HOME" {
			return home
		}
		return ""
	}, Now: func() time.Time { return time.Unix(1767225600, 0) }, Dir: "/p"}
	if code := app.Run(context.Background(), newApp, env, []string{"agent-session", "append", "--tee", file}); code != 0 {
		t.Fatalf("append exit %d: %s", code, errb.String())
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("second writer: %v: %s", err, secondOut.String())
	}
	if got := strings.Count(out.String(), "\n"); got != 5 {
		t.Errorf("--tee echoed %d lines, want 5:\n%s", got, out.String())
	}
	es := entries(t, bin, file)
	var texts []string
	for _, e := range es {
		texts = append(texts, e.ID+"="+e.Message.Content[0].Text)
	}
	got := strings.Join(texts, "\n")
	for i := 0; i < 6; i++ {
		want := fmt.Sprintf("e%d=long output %d", i, i)
		if i < 4 {
			want = fmt.Sprintf("e%d=[Output truncated - 9 tokens]", i)
		}
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if len(es) != 8 || es[6].Message.Content[0].Text != "turn" || es[7].Message.Content[0].Text != "second writer" {
		t.Fatalf("want the 6 entries, the turn, then the second writer's:\n%s", got)
	}
	if *es[7].ParentID != es[6].ID {
		t.Errorf("the second writer's entry does not follow the turn")
	}
}

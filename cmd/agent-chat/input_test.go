package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/testbin"
	"github.com/agentutils/agentutils/lib/session"
)

// windowStream is a session stream of n turns: user, assistant (naming its
// model, with a usage) and tool result, with thinking level and model
// changes now and then, a compaction every 20 turns keeping the last 5,
// and, when branch is set, a branch after the last compaction (its leaf
// the last line).
func windowStream(n int, branch bool) string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	parent, ids := "null", []string{}
	add := func(id, typ, rest string) {
		fmt.Fprintf(&b, `{"type":%q,"id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z"%s}`+"\n", typ, id, parent, rest)
		parent = fmt.Sprintf("%q", id)
		ids = append(ids, id)
	}
	turn := func(i int, tag string) {
		id := fmt.Sprintf("%s%04d", tag, i)
		add(id+"u", "message", fmt.Sprintf(`,"message":{"role":"user","content":[{"type":"text","text":"ask %s \"q\"\n"}],"timestamp":1}`, id))
		add(id+"a", "message", fmt.Sprintf(`,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c%s","name":"bash","arguments":{"command":"ls"}}],"provider":"p%d","model":"m","usage":{"input":%d,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":%d},"stopReason":"toolUse","timestamp":1}`, id, i%3, i, i+1))
		add(id+"r", "message", fmt.Sprintf(`,"message":{"role":"toolResult","toolCallId":"c%s","toolName":"bash","content":[{"type":"text","text":"out %d"}],"isError":false,"timestamp":1}`, id, i))
	}
	for i := 1; i <= n; i++ {
		switch {
		case i%7 == 0:
			add(fmt.Sprintf("t%04d", i), "thinking_level_change", fmt.Sprintf(`,"thinkingLevel":%q`, []string{"low", "high"}[i%2]))
		case i%11 == 0:
			add(fmt.Sprintf("m%04d", i), "model_change", fmt.Sprintf(`,"provider":"q%d","modelId":"x"`, i))
		case i%13 == 0:
			add(fmt.Sprintf("l%04d", i), "label", `,"targetId":"x","label":"here"`)
		}
		turn(i, "e")
		if i%20 == 0 {
			kept := ids[len(ids)-15]
			add(fmt.Sprintf("c%04d", i), "compaction", fmt.Sprintf(`,"summary":"so far %d","firstKeptEntryId":%q,"tokensBefore":%d`, i, kept, i*100))
		}
	}
	if branch {
		turn(1, "a")
		turn(2, "a")
		parent = fmt.Sprintf("%q", "a0001a")
		turn(1, "b")
	}
	return b.String()
}

// wholeContext is the context BuildContext resolves over every entry of
// stream: what agent-chat sent before it read a window.
func wholeContext(t *testing.T, stream string) (session.Context, []string) {
	t.Helper()
	var recs []session.Record // a stream, not a file: pending records repeat ids
	for _, l := range strings.Split(strings.TrimSpace(stream), "\n")[1:] {
		rec, err := session.ParseRecord([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	ctx, err := session.BuildContext(recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, strs(session.ConvertToLLM(ctx.Messages))
}

func strs[T ~[]byte](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// The context agent-chat resolves from the window it holds is the one it
// resolves from every entry, byte for byte: on a stream with several
// compactions, state changes before the newest one, and a branch after it.
func TestWindowContextAsWhole(t *testing.T) {
	// a pruned result agent-compact marks pending, here out of its place:
	// it stands in the place of the entry with its id, in the kept part
	// before the newest compaction
	pruned := `{"type":"message","id":"e0078r","parentId":"e0078a","timestamp":"2026-01-01T00:00:00.000Z","pending":true,"message":{"role":"toolResult","toolCallId":"ce0078","toolName":"bash","content":[{"type":"text","text":"[pruned]"}],"isError":false,"timestamp":1}}` + "\n"
	for _, c := range []struct {
		n      int
		branch bool
		tail   string
	}{{5, false, ""}, {20, true, ""}, {95, false, ""}, {95, true, ""}, {95, false, pruned}} {
		in := windowStream(c.n, c.branch) + c.tail
		whole, wholeMsgs := wholeContext(t, in)
		st, err := readStream(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		held, entries := len(st.records), strings.Count(in, "\n")-1
		sets := setsThinking(st)
		ctx, raws, err := st.contextMessages()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wholeMsgs, strs(raws)); diff != "" {
			t.Errorf("n=%d branch=%v: messages differ (-whole +window):\n%s", c.n, c.branch, diff)
		}
		whole.Messages, ctx.Messages = nil, nil
		if diff := cmp.Diff(whole, ctx); diff != "" {
			t.Errorf("n=%d branch=%v: state differs (-whole +window):\n%s", c.n, c.branch, diff)
		}
		if sets != strings.Contains(in, "thinking_level_change") {
			t.Errorf("n=%d: setsThinking %v", c.n, sets)
		}
		if c.n >= 95 && held*3 > entries {
			t.Errorf("n=%d: held %d of %d entries", c.n, held, entries)
		}
	}
}

// A stream that branches back before the compaction it was cut at is
// refused, naming the line, rather than resolved without the entries let
// go of.
func TestWindowBranchBeforeCut(t *testing.T) {
	in := windowStream(45, false)
	in += `{"type":"message","id":"late","parentId":"e0002u","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}` + "\n"
	_, err := readStream(strings.NewReader(in))
	want := fmt.Sprintf("stdin:%d:", bytes.Count([]byte(in), []byte("\n")))
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "agent-session open") {
		t.Fatalf("err = %v, want %s ... agent-session open", err, want)
	}
}

// The stream 'agent-session open' prints of a session with compactions, cut
// at the newest one (formats/session: the stream is the context), resolves
// to the context of the whole path, byte for byte, state included.
func TestCutStreamContextAsWhole(t *testing.T) {
	dir, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{5, 95, 300} {
		in := windowStream(n, false)
		file := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(file, []byte(in), 0o644)
		cut, err := exec.Command(filepath.Join(dir, "agent-session"), "open", file).Output()
		if err != nil {
			t.Fatal(err)
		}
		if n >= 95 && (!bytes.Contains(cut, []byte(`"carried":`)) || len(cut)*3 > len(in)) {
			t.Fatalf("n=%d: not cut: %d of %d bytes", n, len(cut), len(in))
		}
		whole, wholeMsgs := wholeContext(t, in)
		st, err := readStream(bytes.NewReader(cut))
		if err != nil {
			t.Fatal(err)
		}
		sets := setsThinking(st)
		ctx, raws, err := st.contextMessages()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wholeMsgs, strs(raws)); diff != "" {
			t.Errorf("n=%d: messages differ (-whole +cut):\n%s", n, diff)
		}
		whole.Messages, ctx.Messages = nil, nil
		if diff := cmp.Diff(whole, ctx); diff != "" {
			t.Errorf("n=%d: state differs (-whole +cut):\n%s", n, diff)
		}
		if sets != strings.Contains(in, "thinking_level_change") {
			t.Errorf("n=%d: setsThinking %v", n, sets)
		}
	}
}

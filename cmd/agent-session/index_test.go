package main

// The session index against the real binary: whatever the index says, and
// whatever another process does to the file meanwhile, open prints what a
// whole read of the file prints, and reports an index it cannot trust.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/session"
)

// run runs the binary: stdout, stderr, and fails the test on a non-zero exit.
func run(t *testing.T, bin string, stdin string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "AGENTUTILS_HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// whole is what open prints without an index: a copy of the file, opened.
func whole(t *testing.T, bin, file string) string {
	t.Helper()
	dir := t.TempDir()
	cp := filepath.Join(dir, "copy.jsonl")
	b, _ := os.ReadFile(file)
	os.WriteFile(cp, b, 0o644)
	out, _ := run(t, bin, "", "open", cp)
	os.RemoveAll(sessionstore.ArtifactsDir(cp))
	return strings.ReplaceAll(out, cp, file)
}

func readIndex(t *testing.T, file string) session.Index {
	t.Helper()
	b, err := os.ReadFile(sessionstore.IndexPath(file))
	if err != nil {
		t.Fatal(err)
	}
	x, err := session.ParseIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// bigSession starts a session over sessionstore.IndexMin bytes (open indexes no
// smaller file): one long first turn, in messages under append's 500,000
// character cut.
func bigSession(t *testing.T, bin string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s.jsonl")
	long := userEvent(strings.Repeat("long ", 80000)) // 400 KB
	run(t, bin, strings.Repeat(long+"\n", sessionstore.IndexMin/400000+1), "append", file)
	return file
}

func TestIndexAgreesWithFile(t *testing.T) {
	bin := sessionBinary(t)
	file := bigSession(t, bin)
	small := filepath.Join(t.TempDir(), "small.jsonl")
	run(t, bin, userEvent("one"), "append", small)
	run(t, bin, "", "open", small)
	if _, err := os.Stat(sessionstore.IndexPath(small)); err == nil {
		t.Errorf("a small file got an index")
	}
	for i := range 4 {
		run(t, bin, userEvent(fmt.Sprint("turn ", i)), "append", file)
	}
	first, _ := run(t, bin, "", "open", file) // a whole read; writes the index
	x := readIndex(t, file)
	if x.Entries != 7 || x.LeafID == "" {
		t.Fatalf("index %+v", x)
	}
	if got, _ := run(t, bin, "", "open", file); got != first {
		t.Fatalf("from the index:\n%s\nwhole:\n%s", got, first)
	}
	// appended to: the index is extended by what was appended
	run(t, bin, userEvent("more"), "append", file)
	got, _ := run(t, bin, "", "open", file)
	if want := whole(t, bin, file); got != want {
		t.Fatalf("after an append:\n%s\nwant\n%s", got, want)
	}
	if y := readIndex(t, file); y.Entries != 8 || y.Size <= x.Size {
		t.Fatalf("index not extended: %+v", y)
	}

	// an index that is not one, or disagrees with the file: reported,
	// and the output is the file's
	good, _ := os.ReadFile(sessionstore.IndexPath(file))
	bad := map[string][]byte{
		"not an index":   []byte("{\"type\":\"session_index\",\"version\":1,\"size\":"),
		"wrong leaf":     bytes.Replace(good, []byte(`"leafId":"`+readIndex(t, file).LeafID), []byte(`"leafId":"zzzzzzzz`), 1),
		"run off a line": shiftRun(t, good),
	}
	for name, b := range bad {
		os.WriteFile(sessionstore.IndexPath(file), b, 0o644)
		got, stderr := run(t, bin, "", "open", file)
		if got != whole(t, bin, file) {
			t.Errorf("%s: output differs from the file's", name)
		}
		if !strings.Contains(stderr, "index") || !strings.Contains(stderr, "rebuilt from") {
			t.Errorf("%s: not reported: %q", name, stderr)
		}
		if _, stderr := run(t, bin, "", "open", file); stderr != "" {
			t.Errorf("%s: not rebuilt: %q", name, stderr)
		}
	}

	// the file rewritten (a new file renamed over it): stale, rebuilt silently
	b, _ := os.ReadFile(file)
	b = bytes.Replace(b, []byte("turn 0"), []byte("turn zero, longer"), 1)
	os.WriteFile(file+".new", b, 0o644)
	os.Rename(file+".new", file)
	got, stderr := run(t, bin, "", "open", file)
	if got != whole(t, bin, file) || !strings.Contains(got, "turn zero") || stderr != "" {
		t.Errorf("after a rewrite: %q\n%s", stderr, got)
	}
}

// shiftRun moves the index's first path run one byte on.
func shiftRun(t *testing.T, b []byte) []byte {
	x, err := session.ParseIndex(b)
	if err != nil || len(x.Context) == 0 {
		t.Fatal(err)
	}
	x.Context[0].Off++
	x.Context[0].Len--
	out, _ := jsonMarshal(x)
	return out
}

// indexedSession is a session large enough for an index, with the index
// made, and its last line.
func indexedSession(t *testing.T) (bin, file, last string) {
	bin = sessionBinary(t)
	file = bigSession(t, bin)
	run(t, bin, userEvent("one"), "append", file)
	run(t, bin, "", "open", file) // index
	out, _ := run(t, bin, "", "open", "--all", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return bin, file, lines[len(lines)-1]
}

// A torn last line (an append killed mid-write) is reported and left out,
// and not kept in the index: once the line is whole, open prints it.
func TestIndexTornLine(t *testing.T) {
	bin, file, last := indexedSession(t)
	r, _ := session.ParseRecord([]byte(last))
	line := strings.Replace(last, r.ID, "abcd0123", 1)
	line = strings.Replace(line, `"parentId":null`, `"parentId":"`+r.ID+`"`, 1)
	f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line[:len(line)/2])
	f.Close()
	for range 2 {
		got, stderr := run(t, bin, "", "open", file)
		if !strings.Contains(stderr, "torn last line") || strings.Contains(got, "abcd0123") {
			t.Fatalf("torn line: %q\n%s", stderr, got)
		}
	}
	f, _ = os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line[len(line)/2:] + "\n")
	f.Close()
	got, stderr := run(t, bin, "", "open", file)
	if stderr != "" || !strings.Contains(got, "abcd0123") || got != whole(t, bin, file) {
		t.Fatalf("whole again: %q\n%s", stderr, got)
	}
}

// A second writer appending while open reads: every open prints a path
// that a whole read of some moment of the file printed (each entry the
// child of the one before), and at the end nothing is lost.
func TestIndexSecondWriter(t *testing.T) {
	bin := sessionBinary(t)
	file := bigSession(t, bin)
	run(t, bin, userEvent("start"), "append", file)
	const n = 40
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			cmd := exec.Command(bin, "append", file)
			cmd.Stdin = strings.NewReader(userEvent(fmt.Sprint("w", i)))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("append: %v: %s", err, out)
			}
		}
	}()
	for range n {
		out, _ := run(t, bin, "", "open", file)
		parent := ""
		for k, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			r, err := session.ParseRecord([]byte(l))
			if err != nil || (k > 0 && r.ParentID != parent) {
				t.Fatalf("open during appends: line %d %q (%v)", k+2, l, err)
			}
			parent = r.ID
		}
	}
	wg.Wait()
	got, stderr := run(t, bin, "", "open", file)
	if stderr != "" || got != whole(t, bin, file) {
		t.Fatalf("after the appends: %q", stderr)
	}
	for i := range n {
		if !strings.Contains(got, fmt.Sprintf(`"w%d"`, i)) {
			t.Errorf("w%d lost", i)
		}
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// rec is a bare session record for append (it keeps the id).
func rec(typ, id string, members string) string {
	return fmt.Sprintf(`{"type":%q,"id":%q%s}`, typ, id, members)
}

func userRec(id, text string) string {
	return rec("message", id, fmt.Sprintf(`,"message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1}`, text))
}

func compactionRec(id, firstKept string) string {
	return rec("compaction", id, fmt.Sprintf(`,"summary":"summary %s","firstKeptEntryId":%q,"tokensBefore":1000`, id, firstKept))
}

// streamContext resolves a stream as agent-chat does: the header's
// carried entries first, as one chain (session.Rechain), then
// BuildContext. It fails the test unless the entries after the carried
// ones are one chain.
func streamContext(t *testing.T, out string) (session.Header, []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	h, err := session.ParseStreamHeader([]byte(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	var recs []session.Record
	for k, l := range lines[1:] {
		r, err := session.ParseRecord([]byte(l))
		if err != nil || (k > h.Carried && r.ParentID != recs[k-1].ID) {
			t.Fatalf("stream line %d %q (%v)", k+2, l, err)
		}
		recs = append(recs, r)
	}
	ctx, err := session.BuildContext(session.Rechain(recs, h.Carried), nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []string{"thinking " + ctx.ThinkingLevel, "model " + ctx.Models["default"]}
	for _, m := range ctx.Messages {
		msgs = append(msgs, string(m))
	}
	return h, msgs
}

// resolvedContext is the same from 'open --resolved' (a whole read).
func resolvedContext(t *testing.T, bin, file string) []string {
	t.Helper()
	out, _ := run(t, bin, "", "open", "--resolved", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var state struct {
		ThinkingLevel string            `json:"thinkingLevel"`
		Models        map[string]string `json:"models"`
	}
	json.Unmarshal([]byte(lines[1]), &state)
	msgs := []string{"thinking " + state.ThinkingLevel, "model " + state.Models["default"]}
	for _, l := range lines[2:] {
		var m struct {
			Message json.RawMessage `json:"message"`
		}
		json.Unmarshal([]byte(l), &m)
		msgs = append(msgs, string(m.Message))
	}
	return msgs
}

// On a path with a compaction, open prints the context: the carried state
// changes, then the entries from the first kept one on; the stream
// resolves to the context of the whole path, from a whole read and from
// the index alike, and --history prints the whole path.
func TestOpenCutStream(t *testing.T) {
	bin := sessionBinary(t)
	for _, big := range []bool{false, true} {
		file := filepath.Join(t.TempDir(), "s.jsonl")
		if big {
			file = bigSession(t, bin)
		}
		in := []string{rec("thinking_level_change", "t1", `,"thinkingLevel":"high"`), userRec("u1", "one"),
			rec("model_change", "mc1", `,"provider":"p","modelId":"m1"`), userRec("u2", "two"), userRec("u3", "three"),
			compactionRec("c1", "u3"), userRec("u4", "four")}
		run(t, bin, strings.Join(in, "\n")+"\n", "append", file)
		for range 2 { // a whole read (writing the index when big), then from it
			out, _ := run(t, bin, "", "open", file)
			h, got := streamContext(t, out)
			if h.Carried != 2 || strings.Contains(out, `"two"`) || !strings.Contains(out, `"three"`) {
				t.Fatalf("big %v: header %+v, stream\n%s", big, h, out)
			}
			if want := resolvedContext(t, bin, file); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("big %v: the stream resolves to\n%v\nthe whole path to\n%v", big, got, want)
			}
		}
		hist, _ := run(t, bin, "", "open", "--history", file)
		if !strings.Contains(hist, `"two"`) || strings.Contains(strings.SplitN(hist, "\n", 2)[0], "carried") {
			t.Fatalf("--history:\n%s", hist)
		}
		// a new compaction appended moves the cut (the index is rebuilt)
		run(t, bin, strings.Join([]string{rec("thinking_level_change", "t2", `,"thinkingLevel":"low"`), userRec("u5", "five"),
			compactionRec("c2", "u5"), userRec("u6", "six")}, "\n")+"\n", "append", file)
		out, stderr := run(t, bin, "", "open", file)
		h, got := streamContext(t, out)
		if h.Carried != 3 || strings.Contains(out, `"four"`) || stderr != "" {
			t.Fatalf("big %v: after a second compaction: header %+v %q\n%s", big, h, stderr, out)
		}
		if want := resolvedContext(t, bin, file); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("big %v: after a second compaction the stream resolves to\n%v\nthe whole path to\n%v", big, got, want)
		}
		if big && readIndex(t, file).Carried != 3 {
			t.Errorf("the index was not rebuilt at the new compaction: %+v", readIndex(t, file))
		}
	}
}

// A second writer appending turns and compactions while open reads from
// the index: every stream resolves as one chain after its carried
// entries, and at the end open prints what a whole read prints.
func TestIndexCutSecondWriter(t *testing.T) {
	bin := sessionBinary(t)
	file := bigSession(t, bin)
	run(t, bin, rec("model_change", "mc0", `,"provider":"p","modelId":"m0"`)+"\n"+userRec("w0", "w0")+"\n", "append", file)
	const n = 30
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; i < n; i++ {
			in := userRec(fmt.Sprint("w", i), fmt.Sprint("w", i))
			if i%7 == 0 {
				in += "\n" + compactionRec(fmt.Sprint("c", i), fmt.Sprint("w", i-2))
			}
			cmd := exec.Command(bin, "append", file)
			cmd.Stdin = strings.NewReader(in + "\n")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("append: %v: %s", err, out)
			}
		}
	}()
	for range n {
		out, _ := run(t, bin, "", "open", file)
		if _, msgs := streamContext(t, out); msgs[1] != "model p/m0" {
			t.Fatalf("the carried model is lost: %v", msgs[:2])
		}
	}
	wg.Wait()
	got, stderr := run(t, bin, "", "open", file)
	if stderr != "" || got != whole(t, bin, file) {
		t.Fatalf("after the appends: %q", stderr)
	}
	if _, msgs := streamContext(t, got); fmt.Sprint(msgs) != fmt.Sprint(resolvedContext(t, bin, file)) {
		t.Fatalf("the stream resolves to\n%v\nthe whole path to\n%v", msgs, resolvedContext(t, bin, file))
	}
}

// open's long runs go out by sendfile(2) where stdout takes it: into a
// file, a file opened to append (which takes none: copied instead) and a
// pipe, the bytes are the same.
func TestOpenIntoFiles(t *testing.T) {
	bin := sessionBinary(t)
	file := bigSession(t, bin)
	want, _ := run(t, bin, "", "open", file)
	for _, flag := range []int{os.O_TRUNC, os.O_APPEND} {
		out := filepath.Join(t.TempDir(), "out")
		f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "open", file)
		cmd.Stdout = f
		err = cmd.Run()
		f.Close()
		if got, _ := os.ReadFile(out); err != nil || string(got) != want {
			t.Errorf("flag %#x: %v, %d bytes, want %d", flag, err, len(got), len(want))
		}
	}
}

// writeInPlace replaces the file's content without a new inode, as a
// rewrite in place does (or a new file that got the old one's inode).
func writeInPlace(t *testing.T, file string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// The index never changes what open prints: an index the file no longer
// supports — same size, same inode, same last 4 KB, other content; counts
// that were changed — is not used, and open prints what a whole read
// prints. A count the runs cannot hold is reported.
func TestIndexLies(t *testing.T) {
	bin := sessionBinary(t)
	indexed := func(t *testing.T) (file string, content []byte, good []byte) {
		file = bigSession(t, bin)
		for i := range 4 {
			run(t, bin, userEvent(fmt.Sprint("turn ", i)), "append", file)
		}
		run(t, bin, "", "open", file)
		content, _ = os.ReadFile(file)
		good, _ = os.ReadFile(sessionstore.IndexPath(file))
		return file, content, good
	}
	check := func(t *testing.T, file, wantStderr string) string {
		t.Helper()
		got, stderr := run(t, bin, "", "open", file)
		if want := whole(t, bin, file); got != want {
			t.Fatalf("open prints %d lines, a whole read %d:\n%s", strings.Count(got, "\n"), strings.Count(want, "\n"), got)
		}
		if !strings.Contains(stderr, wantStderr) || wantStderr == "" && stderr != "" {
			t.Errorf("stderr %q, want %q", stderr, wantStderr)
		}
		return got
	}
	t.Run("same size rewritten in place", func(t *testing.T) {
		file, content, _ := indexed(t)
		writeInPlace(t, file, bytes.Replace(content, []byte(`"text":"long long`), []byte(`"text":"LONG long`), 1))
		if got := check(t, file, ""); !strings.Contains(got, "LONG") {
			t.Errorf("the rewritten text is not printed")
		}
	})
	t.Run("another session on the same inode", func(t *testing.T) {
		// the same bytes but the second entry a root: its path is shorter
		file, content, _ := indexed(t)
		lines := bytes.SplitN(content, []byte("\n"), 4)
		p, _ := session.Peek(lines[1])
		lines[2] = bytes.Replace(lines[2], []byte(`"parentId":"`+p.ID+`"`), []byte(`"parentId":"zzzzzzzz"`), 1)
		writeInPlace(t, file, bytes.Join(lines, []byte("\n")))
		before := readIndex(t, file)
		got := check(t, file, "")
		if n := strings.Count(got, "\n"); n != 1+before.Entries-1 {
			t.Errorf("open prints %d lines, want the header and %d entries", n, before.Entries-1)
		}
	})
	for _, tc := range []struct{ name, from, to, stderr string }{
		{"omitted more than the file holds", `"omitted":0`, `"omitted":99`, `"omitted" 99 and the context's 7 lines are more than the file's 7 entries`},
		{"omitted, in an uncut one", `"omitted":0`, `"omitted":1`, `are more than the file's`},
		{"a line count", `"lines":8`, `"lines":9`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, _, good := indexed(t)
			if !bytes.Contains(good, []byte(tc.from)) {
				t.Fatalf("the index has no %s: %s", tc.from, good)
			}
			os.WriteFile(sessionstore.IndexPath(file), bytes.Replace(good, []byte(tc.from), []byte(tc.to), 1), 0o644)
			check(t, file, tc.stderr)
			if _, stderr := run(t, bin, "", "open", file); stderr != "" {
				t.Errorf("not rebuilt: %q", stderr)
			}
		})
	}
}

// A cut stream's counts changed within what the file holds: the index no
// longer matches its sum, and open prints the file's counts.
func TestIndexLyingCut(t *testing.T) {
	bin := sessionBinary(t)
	file := bigSession(t, bin)
	in := []string{rec("model_change", "mc1", `,"provider":"p","modelId":"m1"`), userRec("u1", "one"), userRec("u2", "two"),
		compactionRec("c1", "u2"), userRec("u3", "three")}
	run(t, bin, strings.Join(in, "\n")+"\n", "append", file)
	want, _ := run(t, bin, "", "open", file)
	x := readIndex(t, file)
	if x.Omitted < 2 {
		t.Fatalf("index %+v: want a cut with entries omitted", x)
	}
	good, _ := os.ReadFile(sessionstore.IndexPath(file))
	from := fmt.Sprintf(`"omitted":%d`, x.Omitted)
	os.WriteFile(sessionstore.IndexPath(file), bytes.Replace(good, []byte(from), []byte(fmt.Sprintf(`"omitted":%d`, x.Omitted-1)), 1), 0o644)
	got, stderr := run(t, bin, "", "open", file)
	if got != want || stderr != "" {
		t.Fatalf("with the lying count: %q\n%s\nwant\n%s", stderr, got, want)
	}
}

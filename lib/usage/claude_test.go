package usage

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/transcript"
)

// viaImporter is the slow path FromClaude stands for: the whole
// transcript converted by lib/transcript, then FromEntries.
func viaImporter(data []byte, project string) ([]Entry, []transcript.Problem) {
	n := 0
	opt := transcript.Options{NewID: func() string { n++; return fmt.Sprintf("%08x", n) }, Cwd: project}
	res, err := transcript.FromClaude(bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'}), opt)
	if err != nil {
		return nil, res.Problems
	}
	var out []Entry
	for _, s := range res.Sessions {
		out = append(out, FromEntries("claude", s.Header.Cwd, s.Entries)...)
	}
	return out, res.Problems
}

func readMaybeGz(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func sortEntries(es []Entry) []Entry {
	es = append([]Entry(nil), es...)
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		return a.Key+a.Model < b.Key+b.Model
	})
	return es
}

// sameAsImporter checks FromClaude against the importer file by file
// (entries and problems) and over all files (the reports by day, model and
// project, duplicates across files counted once).
func sameAsImporter(t *testing.T, root string, files []string) {
	t.Helper()
	var fast, slow []Entry
	for _, f := range files {
		data := readMaybeGz(t, f)
		project := filepath.Base(filepath.Dir(f))
		fe, fp := FromClaude(data, project)
		se, sp := viaImporter(data, project)
		if d := cmp.Diff(sortEntries(se), sortEntries(fe)); d != "" {
			t.Errorf("%s: entries differ (-importer +fast):\n%s", f, d)
		}
		lines := func(ps []transcript.Problem) (out []string) {
			for _, p := range ps {
				out = append(out, fmt.Sprintf("%d: %v", p.Line, p.Err))
			}
			return out
		}
		if d := cmp.Diff(lines(sp), lines(fp)); d != "" {
			t.Errorf("%s: problems differ (-importer +fast):\n%s", f, d)
		}
		fast, slow = append(fast, fe...), append(slow, se...)
	}
	price := PriceFrom([]llm.Model{{Provider: "anthropic", ID: "claude-sonnet-4-5", Cost: llm.Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}})
	for _, by := range []string{"day", "model", "project"} {
		a, err := Aggregate(slow, Options{By: by, Price: price})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Aggregate(fast, Options{By: by, Price: price})
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("%s by %s: reports differ (-importer +fast):\n%s", root, by, d)
		}
	}
}

func TestFromClaudeFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/claude/*/*.jsonl")
	more, _ := filepath.Glob("../transcript/testdata/claude/*.jsonl")
	if len(files) < 3 || len(more) == 0 {
		t.Fatalf("fixtures missing: %v %v", files, more)
	}
	sameAsImporter(t, "testdata/claude", append(files, more...))

	// what the fixtures hold, spelt out
	data := readMaybeGz(t, "testdata/claude/-home-u-proj/a.jsonl")
	es, ps := FromClaude(data, "-home-u-proj")
	if len(ps) != 2 || ps[0].Line != 14 || ps[1].Line != 15 {
		t.Errorf("problems: %v", ps)
	}
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%s %s %s %d/%d/%d/%d %s", e.Key, e.Model, e.Project, e.Input, e.Output, e.CacheRead, e.CacheWrite, e.Time.Format("2006-01-02T15:04:05.000")))
	}
	want := []string{
		"anthropic/msg_1 claude-sonnet-4-5-20250929 /home/u/proj 3/57/2000/100 2026-03-02T00:00:00.100", // two lines, the last usage
		"anthropic/msg_2 claude-haiku-4-5-20251001 /home/u/proj 10/20/0/0 2026-03-02T00:00:04.000",      // a sub-agent's
		" claude-opus-4-6 /home/u/proj 7/8/0/0 2026-03-02T00:00:06.000",                                 // no message id
		"anthropic/msg_3 claude-opus-4-6 /home/u/proj 0/12/0/0 2026-03-02T00:00:07.000",                 // null usage, then counts of the wrong type
		"anthropic/msg_4 claude-opus-4-6 /home/u/proj 2/3/0/0 0001-01-01T00:00:00.000",                  // a bad timestamp
		"anthropic/msg_5 claude-opus-4-6 /home/u/proj 4/4/0/0 2026-03-02T00:00:09.000",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	if es, _ := FromClaude(readMaybeGz(t, "testdata/claude/-tmp-nocwd/c.jsonl"), "-tmp-nocwd"); len(es) != 1 || es[0].Project != "-tmp-nocwd" {
		t.Errorf("no cwd: the directory's name is the project: %+v", es)
	}
}

// TestFromClaudeCorpus compares the fast path with the importer on the
// corpus's Claude Code transcripts (make interop; skipped without them).
func TestFromClaudeCorpus(t *testing.T) {
	dir := "../../../shared/corpus/transcripts/claude"
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl*"))
	if len(files) == 0 {
		t.Skip("../shared/corpus is absent")
	}
	sameAsImporter(t, dir, files)
}

func FuzzFromClaude(f *testing.F) {
	files, _ := filepath.Glob("testdata/claude/*/*.jsonl")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		FromClaude(data, "p") // no panic, whatever the bytes
	})
}

// BenchmarkFromClaude reads the corpus's Claude Code transcripts (skipped without them).
func BenchmarkFromClaude(b *testing.B) {
	files, _ := filepath.Glob("../../../shared/corpus/transcripts/claude/*.jsonl*")
	if len(files) == 0 {
		b.Skip("../shared/corpus is absent")
	}
	var all [][]byte
	size := 0
	for _, f := range files {
		t := &testing.T{}
		d := readMaybeGz(t, f)
		all = append(all, d)
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range all {
			FromClaude(d, "p")
		}
	}
}

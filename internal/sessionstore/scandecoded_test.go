package sessionstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The index of a file is the same whatever the batches its lines are
// decoded in: one line a batch (the most interleaving of workers), a few,
// or the whole file in one (decoded, then classified, in order).
func TestBuildLineIndexBatches(t *testing.T) {
	hdr := `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}`
	e := func(id, parent string) string {
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"t","message":{"role":"user","content":"x"}}`, id, parent)
	}
	var long []string
	for i := range 300 {
		long = append(long, e(fmt.Sprint("e", i), fmt.Sprint("e", i-1)))
	}
	for name, content := range map[string]string{
		"plain":     hdr + "\n" + strings.Join(long, "\n") + "\n",
		"problems":  hdr + "\n" + e("a", "") + "\n\n  \nnot json\n" + e("b", "a") + "\r\n" + e("a", "b") + "\n" + `{"type":"session","id":"x"}` + "\n" + `{"type":"label"}` + "\n" + e("c", "c") + "\n" + "{\"type\":\"message\",\"id\":\"d\",\"parentId\":\"later\",\"x\":\"\xff\"}\n" + `{"type":"custom","id":"later","blob":"blob:sha256:00"}` + "\n" + e("torn", "d")[:30],
		"no header": e("a", "") + "\n" + hdr + "\n",
		"v1":        `{"type":"session","id":"s","timestamp":"t","cwd":"/"}` + "\n" + strings.Join(long[:5], "\n") + "\n",
		"empty":     "\n\n",
		"torn":      hdr + "\n" + e("a", "") + "\n" + e("b", "a"),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			var want string
			for i, batch := range []int{1 << 30, 1, 100, 4096} {
				got := indexSummary(t, path, batch)
				if i == 0 {
					want = got
				} else if d := cmp.Diff(want, got); d != "" {
					t.Errorf("batch %d (-one batch +this):\n%s", batch, d)
				}
			}
		})
	}
}

func indexSummary(t *testing.T, path string, batch int) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idx, header, err := buildLineIndex(f, path, batch)
	if err != nil {
		return "error: " + err.Error()
	}
	var ps []string
	for _, p := range idx.Lines.Problems {
		ps = append(ps, fmt.Sprint(p.Line, p.Kept, p.Err))
	}
	return fmt.Sprintf("header %q %+v\nwhole %d lines %d\noff %v\nn %v\nparent %v\nblob %v\nkind %v\nentries %d\nproblems %q\n",
		header, idx.Header, idx.Whole, idx.NLines, idx.Off, idx.N, idx.Parent, idx.HasBlob, idx.Kind, idx.Lines.Entries(), ps)
}

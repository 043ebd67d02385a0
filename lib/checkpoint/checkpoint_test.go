package checkpoint

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareIsWalkOrder(t *testing.T) {
	got := []string{"a.txt", "a/b", "a-b", "a", "a/b/c", "b", "a/c"}
	sort.Slice(got, func(i, j int) bool { return Less(got[i], got[j]) })
	want := []string{"a", "a/b", "a/b/c", "a/c", "a-b", "a.txt", "b"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
}

func file(p string, size int64, mtime int64, h byte) File {
	f := File{Path: p, Size: size, Mtime: mtime, Ctime: mtime, Mode: 0o644, Kept: true}
	f.Hash[0] = h
	return f
}

func TestReuse(t *testing.T) {
	old := Manifest{Began: 1000e6, Files: []File{file("a", 1, 10, 1), file("b", 1, 10, 2), file("c", 1, 995e6, 3)}}
	cur := []File{
		{Path: "a", Size: 1, Mtime: 10, Ctime: 10, Mode: 0o644},       // unchanged: hash carried
		{Path: "b", Size: 2, Mtime: 10, Ctime: 10, Mode: 0o644},       // size changed
		{Path: "c", Size: 1, Mtime: 995e6, Ctime: 995e6, Mode: 0o644}, // racy: written in the scan's tick
		{Path: "d", Size: 1, Mtime: 10, Ctime: 10, Mode: 0o644},       // new
		{Path: "l", Mode: ModeLink, Link: "a"},                        // a link is never hashed
	}
	got := Reuse(old, cur)
	if d := cmp.Diff([]int{1, 2, 3}, got); d != "" {
		t.Fatal(d)
	}
	if !cur[0].Kept || cur[0].Hash[0] != 1 {
		t.Fatalf("a's hash not carried: %+v", cur[0])
	}
}

func TestDiff(t *testing.T) {
	old := []File{file("a", 1, 1, 1), file("b", 1, 1, 2), file("c", 1, 1, 3)}
	cur := []File{file("a", 1, 2, 1), file("b", 1, 2, 9), file("d", 1, 1, 4)}
	var got []string
	for _, c := range Diff(old, cur) {
		got = append(got, c.Path+":"+state(c.Before)+">"+state(c.After))
	}
	// a: same content, new time: no change; b changed; c removed; d created
	want := []string{"b:02>09", "c:03>-", "d:->04"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
}

func state(s *State) string {
	if s == nil {
		return "-"
	}
	if s.Blob == "" {
		return "?"
	}
	return s.Blob[:2]
}

func hashOf(b byte) string {
	var h [32]byte
	h[0] = b
	return stateOf(File{Kept: true, Hash: h}).Blob
}

func TestPlan(t *testing.T) {
	st := func(b byte) *State { return &State{Blob: hashOf(b), Size: 1, Mode: 0o644} }
	log := []Entry{
		{ID: "c1", Root: "/w", Base: true},
		{ID: "c2", Root: "/w", Changes: []Change{{Path: "a", Before: st(1), After: st(2)}}},
		{ID: "c3", Root: "/w", Changes: []Change{
			{Path: "a", Before: st(2), After: st(3)},
			{Path: "new", After: st(5)},
			{Path: "gone", Before: st(6)},
			{Path: "big", Before: &State{Size: 1 << 30, Mode: 0o644}, After: st(7)},
		}},
	}
	cur := []File{file("a", 1, 1, 3), file("big", 1, 1, 7), file("new", 1, 1, 5)}
	acts, err := Plan(log, 0, cur)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		s := a.Path + ":" + state(a.Want)
		if a.Lost != "" {
			s += " lost"
		}
		got = append(got, s)
	}
	// big: a write whose content was not kept, named
	want := []string{"a:01", "big:? lost", "gone:06", "new:-"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
	// rewinding to c2 brings a back to 2 only
	acts, _ = Plan(log, 1, cur)
	if len(acts) == 0 || acts[0].Path != "a" || acts[0].Want.Blob != hashOf(2) {
		t.Fatalf("to c2: %+v", acts)
	}
	// a base after the target breaks the log
	log = append(log, Entry{ID: "c4", Root: "/w", Base: true})
	if _, err := Plan(log, 1, cur); err == nil || !strings.Contains(err.Error(), "were not followed") {
		t.Fatalf("want a break, got %v", err)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := Manifest{Root: "/w", Began: 12345, Watch: "e1:42", Count: 3, Files: []File{file("a", 1, -5, 1), {Path: "l", Mode: ModeLink, Link: "a", Mtime: 3}, {Path: "big", Size: 1 << 40, Mode: 0o755}}}
	got, err := decodeManifest(EncodeManifest(m))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(m, got); d != "" {
		t.Fatal(d)
	}
	b := EncodeManifest(m)
	for _, bad := range [][]byte{nil, b[:len(b)-1], append([]byte("x"), b[1:]...)} {
		if _, err := decodeManifest(bad); err == nil {
			t.Fatalf("%q decoded", bad)
		}
	}
}

func TestParseEntry(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{`{"type":"checkpoint","root":"/w","files":1,"changes":[{"path":"a/b","before":null,"after":{"size":1,"mode":420}}]}`, ""},
		{`{"type":"checkpoint","root":"w","changes":[]}`, "absolute"},
		{`{"type":"checkpoint","root":"/w"}`, `"changes" must be an array`},
		{`{"type":"checkpoint","root":"/w","changes":[{"path":"../x"}]}`, "leaves the workspace"},
		{`{"type":"checkpoint","root":"/w","changes":[{"path":"/etc/passwd"}]}`, "not a clean relative path"},
		{`{"type":"checkpoint","root":"/w","changes":[{"path":"a/./b"}]}`, "not a clean relative path"},
		{`{"type":"checkpoint","root":"/w","changes":[{"path":"sub/.git/config"}]}`, "inside .git"},
		{`{"type":"checkpoint","root":"/w","changes":[{"path":"a","after":{"blob":"xyz","size":1,"mode":420}}]}`, "not a sha256"},
		{`{"type":"checkpoint","root":"/w","changes":"no"}`, "cannot unmarshal"},
	} {
		_, err := ParseEntry([]byte(tc.in))
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestNewEntryNamesUnkept(t *testing.T) {
	e := NewEntry("/w", false, nil, []File{{Path: "big", Size: 9e9, Mode: 0o644}, file("a", 1, 1, 1)})
	if d := cmp.Diff([]string{"big"}, e.Unkept); d != "" {
		t.Fatal(d)
	}
	b, _ := json.Marshal(e)
	if _, err := ParseEntry(b); err != nil {
		t.Fatal(err)
	}
}

// decodeManifest reads a manifest file whole (no journal).
func decodeManifest(data []byte) (Manifest, error) {
	x, err := OpenManifest(data)
	if err != nil {
		return Manifest{}, err
	}
	m := Manifest{Root: x.Root, Began: x.Began, Watch: x.Watch, Count: x.Count}
	var ok bool
	if m.Files, ok = x.Files(); !ok {
		return Manifest{}, errManifest
	}
	return m, nil
}

func FuzzDecodeManifest(f *testing.F) {
	f.Add(EncodeManifest(Manifest{Root: "/w", Files: []File{file("a", 1, 1, 1)}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeManifest(b)
		if err == nil {
			if _, err := decodeManifest(EncodeManifest(m)); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(`{"type":"checkpoint","root":"/w","files":1,"changes":[{"path":"a","before":null,"after":{"size":1,"mode":420}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseEntry(b)
		if err != nil {
			return
		}
		for _, c := range e.Changes {
			if CheckPath(c.Path) != nil {
				t.Fatalf("accepted %q", c.Path)
			}
		}
	})
}

func TestTops(t *testing.T) {
	got := Tops([]string{"b", "a/x", "a", "a.txt", "c/d", "a/y/z", "b", "c/d/e", "c/de"})
	want := []string{"a", "a.txt", "b", "c/d", "c/de"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
	if d := cmp.Diff([]string{""}, Tops([]string{"x", "", "y/z"})); d != "" {
		t.Fatal("the root covers all:", d)
	}
}

func TestPatch(t *testing.T) {
	names := func(fs []File) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Path)
		}
		return out
	}
	old := []File{file("a", 1, 1, 1), file("d/x", 1, 1, 2), file("d/y/z", 1, 1, 3), file("d-e", 1, 1, 4), file("m", 1, 1, 5), file("z", 1, 1, 6)}
	for _, tc := range []struct {
		name  string
		spans []Span
		want  []string
	}{
		{"nothing changed", nil, []string{"a", "d/x", "d/y/z", "d-e", "m", "z"}},
		{"a directory removed", []Span{{Path: "d"}}, []string{"a", "d-e", "m", "z"}},
		{"a directory replaced by a file", []Span{{Path: "d", Files: []File{file("d", 1, 1, 9)}}}, []string{"a", "d", "d-e", "m", "z"}},
		{"a file changed, one created, one removed", []Span{
			{Path: "b", Files: []File{file("b", 1, 1, 9)}}, {Path: "d/y/z", Files: []File{file("d/y/z", 2, 2, 9)}}, {Path: "z"}},
			[]string{"a", "b", "d/x", "d/y/z", "d-e", "m"}},
		{"a new directory last", []Span{{Path: "zz", Files: []File{file("zz/a", 1, 1, 9), file("zz/b", 1, 1, 9)}}},
			[]string{"a", "d/x", "d/y/z", "d-e", "m", "z", "zz/a", "zz/b"}},
		{"the root", []Span{{Path: "", Files: []File{file("q", 1, 1, 9)}}}, []string{"q"}},
	} {
		got := Patch(old, tc.spans)
		if d := cmp.Diff(tc.want, names(got)); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
	got := Patch(old, []Span{{Path: "d/y/z", Files: []File{file("d/y/z", 2, 2, 9)}}})
	if got[2].Size != 2 || got[1].Hash[0] != 2 {
		t.Fatalf("the span's file is not the new one, or another one changed: %+v", got)
	}
}

// TestIndexAndJournal: a file looked up in the manifest file is the one
// decoded whole; records appended to the journal change what Sub and
// Files see as Patch does; a torn record and those after it are not
// applied; a version 1 manifest still reads.
func TestIndexAndJournal(t *testing.T) {
	m := Manifest{Root: "/w", Began: 7, Watch: "e:1", Count: 4, Files: []File{file("a", 1, 1, 1), file("d/x", 1, 1, 2), file("d/y/z", 1, 1, 3), file("e", 1, 1, 4)}}
	x, err := OpenManifest(EncodeManifest(m))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := x.Sub("d")
	if d := cmp.Diff(m.Files[1:3], got); d != "" || !ok {
		t.Fatal(d)
	}
	r1 := Record{Began: 8, Watch: "e:2", Count: 4, Spans: []Span{{Path: "d/y"}, {Path: "d/w", Files: []File{file("d/w", 2, 2, 5)}}}}
	r2 := Record{Began: 9, Watch: "e:3", Count: 2, Spans: []Span{{Path: "d", Files: []File{file("d/q", 3, 3, 6)}}}}
	j := AppendRecord(x.JournalHead(), r1)
	torn := AppendRecord(j, r2)
	x.Apply(torn[:len(torn)-1])
	if !x.Torn || x.Watch != "e:2" {
		t.Fatalf("a torn record applied: %+v", x)
	}
	x, _ = OpenManifest(EncodeManifest(m))
	x.Apply(j)
	got, _ = x.Sub("d")
	if d := cmp.Diff([]File{file("d/w", 2, 2, 5), file("d/x", 1, 1, 2)}, got); d != "" {
		t.Fatal(d)
	}
	x.Apply(AppendRecord(x.JournalHead(), r2))
	all, _ := x.Files()
	if d := cmp.Diff([]File{file("a", 1, 1, 1), file("d/q", 3, 3, 6), file("e", 1, 1, 4)}, all); d != "" || x.Count != 2 || x.Watch != "e:3" {
		t.Fatal(d, x.Count, x.Watch)
	}
	if got, _ := x.Sub("d/q"); len(got) != 1 || got[0].Size != 3 {
		t.Fatalf("below a span: %+v", got)
	}
	other, _ := OpenManifest(EncodeManifest(Manifest{Root: "/w"}))
	other.Apply(j)
	if !other.Torn || other.Records() != 0 {
		t.Fatal("another manifest's journal applied")
	}
	// Version 1: no token, no offsets.
	b := []byte(magic1)
	b = appendString(b, "/w")
	b = binary.AppendVarint(b, 7)
	b = binary.AppendUvarint(b, 1)
	b = appendFile(b, file("a", 1, 1, 1))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	v1, err := decodeManifest(b)
	if d := cmp.Diff(Manifest{Root: "/w", Began: 7, Count: 1, Files: []File{file("a", 1, 1, 1)}}, v1); d != "" || err != nil {
		t.Fatal(d, err)
	}
}

// FuzzJournal: a journal, whatever its bytes, is applied up to its first
// bad record, never a panic; what it leaves reads whole.
func FuzzJournal(f *testing.F) {
	base := EncodeManifest(Manifest{Root: "/w", Count: 2, Files: []File{file("a", 1, 1, 1), file("d/x", 1, 1, 2)}})
	x, _ := OpenManifest(base)
	f.Add(AppendRecord(x.JournalHead(), Record{Began: 1, Watch: "e:1", Count: 1, Spans: []Span{{Path: "d"}}}))
	f.Fuzz(func(t *testing.T, j []byte) {
		x, err := OpenManifest(base)
		if err != nil {
			t.Fatal(err)
		}
		x.Apply(j)
		if _, ok := x.Files(); !ok {
			t.Fatal("the base no longer reads")
		}
		x.Sub("d")
	})
}

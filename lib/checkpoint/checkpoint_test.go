package checkpoint

import (
	"encoding/json"
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
	m := Manifest{Root: "/w", Began: 12345, Files: []File{file("a", 1, -5, 1), {Path: "l", Mode: ModeLink, Link: "a", Mtime: 3}, {Path: "big", Size: 1 << 40, Mode: 0o755}}}
	got, err := DecodeManifest(EncodeManifest(m))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(m, got); d != "" {
		t.Fatal(d)
	}
	b := EncodeManifest(m)
	for _, bad := range [][]byte{nil, b[:len(b)-1], append([]byte("x"), b[1:]...)} {
		if _, err := DecodeManifest(bad); err == nil {
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

func FuzzDecodeManifest(f *testing.F) {
	f.Add(EncodeManifest(Manifest{Root: "/w", Files: []File{file("a", 1, 1, 1)}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeManifest(b)
		if err == nil {
			if _, err := DecodeManifest(EncodeManifest(m)); err != nil {
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

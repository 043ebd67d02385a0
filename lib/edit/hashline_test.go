package edit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestXXH32(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{
		{"", 0x02CC5D05},
		{"a", 0x550D7456},
		{"abc", 0x32D153FF},
		{"Nobody inspects the spammish repetition", 0xE2293B2F},
	} {
		if got := xxh32([]byte(tc.in), 0); got != tc.want {
			t.Errorf("xxh32(%q) = %08X, want %08X", tc.in, got, tc.want)
		}
	}
}

func TestFileTagIgnoresTrailingBlanks(t *testing.T) {
	if FileTag("a  \nb\t\n") != FileTag("a\nb\n") {
		t.Error("trailing blanks change the tag")
	}
	if FileTag("a\nb\n") == FileTag("a\nc\n") {
		t.Error("a changed line keeps the tag (possible, but not for this pair)")
	}
}

func TestApplyHunks(t *testing.T) {
	src := "one\ntwo\nthree\nfour\n"
	tag := FileTag(src)
	for _, tc := range []struct{ name, text, hunks, want, err string }{
		{"replace one", src, "replace 2:\n+TWO", "one\nTWO\nthree\nfour\n", ""},
		{"replace range with more", src, "replace 2..3:\n+a\n+b\n+c", "one\na\nb\nc\nfour\n", ""},
		{"replace with nothing deletes", src, "replace 2..3:", "one\nfour\n", ""},
		{"delete", src, "delete 1\ndelete 3..4", "two\n", ""},
		{"insert before after head tail", src, "insert head:\n+h\ninsert before 2:\n+b\ninsert after 2:\n+a\ninsert tail:\n+t", "h\none\nb\ntwo\na\nthree\nfour\nt\n", ""},
		{"blank body line", src, "replace 1:\n+\n+x", "\nx\ntwo\nthree\nfour\n", ""},
		{"literal plus and minus", src, "replace 1:\n++x\n+-y", "+x\n-y\ntwo\nthree\nfour\n", ""},
		{"numbers refer to the original", src, "delete 1\nreplace 4:\n+FOUR", "two\nthree\nFOUR\n", ""},
		{"no final newline kept", "a\nb", "replace 2:\n+c", "a\nc", ""},
		{"unicode", "héllo\nwörld\n", "replace 2:\n+мир", "héllo\nмир\n", ""},
		{"overlap", src, "replace 1..2:\n+x\ndelete 2", "", "line 4 of the patch: lines 2..2 overlap an earlier hunk"},
		{"out of range", src, "delete 9", "", "line 2 of the patch: line 9 does not exist (f has 4 lines)"},
		{"identical", src, "replace 1:\n+one", "", "No changes made to f. The edits produced identical content."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := tag
			if tc.text != src {
				tg = FileTag(tc.text)
			}
			secs, err := ParseHashline("[f#" + tg + "]\n" + tc.hunks)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ApplyHunks("f", tc.text, secs[0])
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestHashlineStale(t *testing.T) {
	secs, err := ParseHashline("*** Begin Patch\n[f#0000]\ndelete 1\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ApplyHunks("f", "x\n", secs[0])
	if err == nil || !strings.Contains(err.Error(), "f changed since it was read") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseHashlineErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"delete 1", `line 1: expected a file header [path#TAG] (copy it from the read output), got "delete 1"`},
		{"[f#ABCD]\nfrob 1", `line 2: unknown hunk "frob 1"; expected 'replace A..B:', 'delete A..B', or 'insert before N:|after N:|head:|tail:'`},
		{"[f#ABCD]\ninsert head:", "line 2: an insert needs at least one + line"},
		{"[f#ABCD]\nreplace 3..2:", "line 2: range start 3 must be <= end 2"},
		{"[f#ABCD]\ndelete 0", "line 2: line numbers start at 1"},
		{"[f#ABCD]\nreplace block 3:\n+x", "line 2: block hunks are not supported; use line ranges (replace A..B:)"},
		{"[f#ABCD]", "[f#ABCD] has no hunks"},
		{"*** Begin Patch\n[f#ABCD]\ndelete 1", "The last line of the patch must be '*** End Patch'"},
		{"", "the patch has no file section; start with the [path#TAG] header shown by read"},
	} {
		_, err := ParseHashline(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseHashline(f *testing.F) {
	f.Add("[a.go#1A2B]\nreplace 1..2:\n+x\ndelete 3\ninsert tail:\n+y")
	f.Add("*** Begin Patch\n[a#FFFF]\ninsert before 1:\n+\n*** End Patch\n")
	f.Fuzz(func(t *testing.T, in string) {
		secs, err := ParseHashline(in)
		if err != nil {
			return
		}
		text := "a\nb\nc\n"
		for _, s := range secs {
			s.Tag = FileTag(text)
			ApplyHunks(s.Path, text, s)
		}
	})
}

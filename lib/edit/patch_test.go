package edit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePatchErrors(t *testing.T) {
	for _, tc := range []struct{ name, patch, want string }{
		{"no begin", "hello\n*** End Patch", "The first line of the patch must be '*** Begin Patch'"},
		{"no end", "*** Begin Patch\n*** Delete File: a", "The last line of the patch must be '*** End Patch'"},
		{"bad header", "*** Begin Patch\n*** Frobnicate: a\n*** End Patch", "'*** Frobnicate: a' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"},
		{"empty update", "*** Begin Patch\n*** Update File: a\n*** End Patch", "Update file hunk for path 'a' is empty"},
		{"bad line", "*** Begin Patch\n*** Update File: a\n@@\n x\nbogus\n*** End Patch", "Unexpected line found in update hunk: 'bogus'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"},
		{"no marker", "*** Begin Patch\n*** Update File: a\nbogus\n*** End Patch", "Expected update hunk to start with a @@ context marker, got: 'bogus'"},
		{"nothing", "*** Begin Patch\n*** End Patch", "No files were modified."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePatch(tc.patch)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestParsePatch(t *testing.T) {
	patch := `<<'EOF'
*** Begin Patch
*** Add File: new.txt
+hello
+world
*** Delete File: old.txt
*** Update File: src/a.go
*** Move to: src/b.go
@@ func main() {
-	println("a")
+	println("b")
*** End of File
*** End Patch
EOF`
	got, err := ParsePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileOp{
		{Op: OpAdd, Path: "new.txt", Text: "hello\nworld\n"},
		{Op: OpDelete, Path: "old.txt"},
		{Op: OpUpdate, Path: "src/a.go", MoveTo: "src/b.go", Chunks: []Chunk{{Context: "func main() {", Old: []string{"\tprintln(\"a\")"}, New: []string{"\tprintln(\"b\")"}, Kinds: "-+", EndOfFile: true}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestApplyChunks(t *testing.T) {
	for _, tc := range []struct{ name, text, patch, want, err string }{
		{"exact", "a\nb\nc\n", "@@\n a\n-b\n+B\n c", "a\nB\nc\n", ""},
		{"no marker first chunk", "a\nb\n", " a\n-b\n+x", "a\nx\n", ""},
		{"adds trailing newline", "a\nb", "@@\n-b\n+c", "a\nc\n", ""},
		{"rstrip pass", "a  \nb\n", "@@\n a\n-b\n+c", "a  \nc\n", ""},
		{"trim pass tabs vs spaces", "\tx := 1\n\ty := 2\n", "@@\n    x := 1\n-    y := 2\n+\ty := 3", "\tx := 1\n\ty := 3\n", ""},
		{"unicode fold", "say “hi” – now\n", "@@\n-say \"hi\" - now\n+say hi", "say hi\n", ""},
		{"context header", "func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 1\n}\n", "@@ func b() {\n-\treturn 1\n+\treturn 2", "func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 2\n}\n", ""},
		{"two chunks in order", "1\n2\n3\n4\n", "@@\n-1\n+one\n@@\n-4\n+four", "one\n2\n3\nfour\n", ""},
		{"end of file prefers last", "x\ny\nx\n", "@@\n-x\n+z\n*** End of File", "x\ny\nz\n", ""},
		{"pure insertion appends", "a\n", "@@\n+b", "a\nb\n", ""},
		{"CRLF handled by caller", "a\nb\n", "@@\n-a\n+c", "c\nb\n", ""},
		{"missing context", "a\n", "@@ nope\n-a\n+b", "", "Failed to find context 'nope' in f"},
		{"missing lines", "a\n", "@@\n-zzz\n+b", "", "Failed to find expected lines in f:\nzzz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops, err := ParsePatch("*** Begin Patch\n*** Update File: f\n" + tc.patch + "\n*** End Patch")
			if err != nil {
				t.Fatal(err)
			}
			got, err := ApplyChunks("f", tc.text, ops[0].Chunks)
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

func FuzzParsePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ x\n-a\n+b\n*** End of File\n*** End Patch")
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch\n")
	f.Add("<<EOF\n*** Begin Patch\n*** Update File: a\n*** Move to: b\n a\n\n-b\n*** End Patch\nEOF")
	f.Fuzz(func(t *testing.T, patch string) {
		ops, err := ParsePatch(patch)
		if err != nil {
			return
		}
		for _, op := range ops {
			if op.Op == OpUpdate {
				text := strings.Repeat("a\nb\n", 3)
				ApplyChunks(op.Path, text, op.Chunks)
			}
		}
	})
}

package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadWrite(t *testing.T) {
	var b bytes.Buffer
	for _, m := range []string{`{"jsonrpc":"2.0","id":1,"result":null}`, `{"jsonrpc":"2.0","method":"x","params":{"s":"é"}}`} {
		if err := Write(&b, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&b)
	var got []string
	for {
		body, err := Read(r)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(body))
	}
	want := []string{`{"jsonrpc":"2.0","id":1,"result":null}`, `{"jsonrpc":"2.0","method":"x","params":{"s":"é"}}`}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}

func TestReadBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Content-Type: x\r\n\r\n{}", "without Content-Length"},
		{"Content-Length: -3\r\n\r\n", "bad Content-Length"},
		{"Content-Length: 10\r\n\r\n{}", "reading a body of 10 bytes: unexpected EOF"},
		{"garbage\r\n\r\n", "bad header line"},
		{"Content-Length: 2\r\n", "reading a header: unexpected EOF"},
		{"Content-Length: 99999999999\r\n\r\n", "a message of 99999999999 bytes"},
	} {
		_, err := Read(bufio.NewReader(strings.NewReader(c.in)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	// Other headers and the header's case are ignored.
	body, err := Read(bufio.NewReader(strings.NewReader("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}")))
	if err != nil || string(body) != "{}" {
		t.Errorf("Read = %q, %v", body, err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 5\r\nX: y\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		for i := 0; i < 100; i++ {
			body, err := Read(r)
			if err != nil {
				return
			}
			if len(body) > MaxMessage {
				t.Fatalf("a body of %d bytes", len(body))
			}
		}
	})
}

func TestUnits(t *testing.T) {
	line := "a := \"héllo 😀\" + x"
	x := strings.Index(line, "x")
	for _, c := range []struct {
		u    Units
		col  int
		want int
	}{
		{UTF8, x, x},
		{UTF16, x, 18}, // é is one unit, 😀 two
		{UTF16, 0, 0},
		{UTF16, 100, 19},
	} {
		if got := c.u.Character(line, c.col); got != c.want {
			t.Errorf("%s Character(%d) = %d, want %d", c.u, c.col, got, c.want)
		}
		if c.col <= len(line) {
			if got := c.u.Byte(line, c.want); got != c.col {
				t.Errorf("%s Byte(%d) = %d, want %d", c.u, c.want, got, c.col)
			}
		}
	}
	if got := UTF16.Column(line, Position{Character: 18}); got != 18 {
		t.Errorf("Column = %d, want 18 (runes, from 1)", got)
	}
}

func TestApply(t *testing.T) {
	text := "func Greet() {}\n\nfunc main() { Greet(); Greet() }\n"
	at := func(l, a, b int) Range { return Range{Position{l, a}, Position{l, b}} }
	edits := []TextEdit{{at(2, 23, 28), "Hello"}, {at(0, 5, 10), "Hello"}, {at(2, 14, 19), "Hello"}}
	got, err := Apply(text, edits, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	if want := "func Hello() {}\n\nfunc main() { Hello(); Hello() }\n"; got != want {
		t.Errorf("Apply = %q, want %q", got, want)
	}
	if _, err := Apply(text, []TextEdit{{at(0, 0, 5), ""}, {at(0, 3, 6), ""}}, UTF16); err == nil {
		t.Error("overlapping edits applied")
	}
	if _, err := Apply(text, []TextEdit{{at(9, 0, 1), ""}}, UTF16); err == nil {
		t.Error("an edit past the end applied")
	}
}

func TestNew(t *testing.T) {
	d := func(line int, msg string) Diagnostic {
		return Diagnostic{Range: Range{Start: Position{Line: line}}, Severity: 1, Source: "compiler", Message: msg}
	}
	before := []Diagnostic{d(3, "undefined: x"), d(5, "undefined: x")}
	after := []Diagnostic{d(4, "undefined: x"), d(6, "undefined: x"), d(7, "undefined: x"), d(1, "missing return")}
	want := []Diagnostic{d(7, "undefined: x"), d(1, "missing return")}
	if diff := cmp.Diff(want, New(before, after)); diff != "" {
		t.Error(diff)
	}
	got := ShowDiagnostics("x.go", []string{"a", "b"}, append(Errors(after[:1]), Diagnostic{Range: Range{Start: Position{1, 0}}, Severity: 2, Message: "unused\nmore"}), UTF16)
	if want := "x.go:2:1: warning: unused …\nx.go:5:1: error: undefined: x (compiler)\n"; got != want {
		t.Errorf("ShowDiagnostics = %q, want %q", got, want)
	}
}

func TestHoverAndLocations(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"contents":{"kind":"markdown","value":"**x** int"}}`, "**x** int"},
		{`{"contents":[{"language":"go","value":"var x int"},"doc"]}`, "```go\nvar x int\n```\n\ndoc"},
		{`{"contents":"plain"}`, "plain"},
		{`null`, ""},
	} {
		if got := HoverText(json.RawMessage(c.in)); got != c.want {
			t.Errorf("HoverText(%s) = %q, want %q", c.in, got, c.want)
		}
	}
	r := Range{Start: Position{1, 2}, End: Position{1, 4}}
	for _, c := range []struct {
		in   string
		want []Location
	}{
		{`null`, nil},
		{`{"uri":"file:///a.go","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}}}`, []Location{{"file:///a.go", r}}},
		{`[{"targetUri":"file:///b.go","targetRange":{},"targetSelectionRange":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}}}]`, []Location{{"file:///b.go", r}}},
	} {
		got, err := Locations(json.RawMessage(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("Locations(%s): %s", c.in, d)
		}
	}
	if _, err := Locations(json.RawMessage(`"x"`)); err == nil {
		t.Error("a string taken for locations")
	}
}

func TestRootAndURI(t *testing.T) {
	exists := func(files ...string) func(string) bool {
		return func(p string) bool {
			for _, f := range files {
				if f == p {
					return true
				}
			}
			return false
		}
	}
	goS, lang, _ := ServerFor("/w/a/b/x.go")
	ts, _, _ := ServerFor("/w/web/src/App.tsx")
	for _, c := range []struct {
		s          Server
		file, stop string
		files      []string
		want       string
	}{
		{goS, "/w/a/b/x.go", "/w", []string{"/w/a/go.mod", "/w/go.work"}, "/w"},
		{goS, "/w/a/b/x.go", "/w", []string{"/w/a/go.mod"}, "/w/a"},
		{goS, "/w/a/b/x.go", "/w", nil, "/w"},
		{goS, "/w/a/b/x.go", "/w/a", []string{"/w/go.mod"}, "/w/a"}, // not above the stop
		{ts, "/w/web/src/App.tsx", "/w", []string{"/w/web/package.json", "/w/web/src/tsconfig.json"}, "/w/web/src"},
	} {
		if got := c.s.Root(c.file, c.stop, exists(c.files...)); got != c.want {
			t.Errorf("Root(%s, %s, %v) = %s, want %s", c.file, c.stop, c.files, got, c.want)
		}
	}
	if lang != "go" {
		t.Errorf("languageId %q", lang)
	}
	if _, _, ok := ServerFor("README.md"); ok {
		t.Error("a server for markdown")
	}
	u := FileURI("/w/a b/x#1.go")
	if p, err := Path(u); err != nil || p != "/w/a b/x#1.go" {
		t.Errorf("Path(%s) = %s, %v", u, p, err)
	}
}

func TestInitOptions(t *testing.T) {
	ts, _, _ := ServerFor("a.ts")
	files := map[string]bool{}
	in := Installed{Root: "/p", Server: "/n/lib/node_modules/typescript-language-server/lib/cli.mjs", Tsc: "/t/typescript/bin/tsc",
		Exists: func(p string) bool { return files[p] }}
	if o := ts.InitOptions(in); o != nil {
		t.Errorf("no TypeScript anywhere: %v", o)
	}
	files["/t/typescript/lib/tsserver.js"] = true
	if o := fmt.Sprint(ts.InitOptions(in)); o != "map[tsserver:map[path:/t/typescript/lib/tsserver.js]]" {
		t.Errorf("tsc's: %s", o)
	}
	files["/n/lib/node_modules/typescript/lib/tsserver.js"] = true
	if o := fmt.Sprint(ts.InitOptions(in)); o != "map[tsserver:map[path:/n/lib/node_modules/typescript/lib/tsserver.js]]" {
		t.Errorf("beside the server: %s", o)
	}
	files["/p/node_modules/typescript/lib/tsserver.js"] = true
	if o := ts.InitOptions(in); o != nil {
		t.Errorf("the workspace's own: %v", o)
	}
	gopls, _, _ := ServerFor("a.go")
	if o := gopls.InitOptions(in); o != nil {
		t.Errorf("gopls: %v", o)
	}
}

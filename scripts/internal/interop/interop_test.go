package interop

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestVerdicts(t *testing.T) {
	tests := []struct {
		name, lines, out, summary string
		failed                    bool
	}{
		{"all pass", "ok   one\nok   two\n", "  ok    one\n  ok    two\n", "x: 2/2 checks passed", false},
		{"a failure with its detail", "ok   one\nFAIL two: 3 bars\n", "  ok    one\n  FAIL  two: 3 bars\n", "x: 1/2 checks passed", true},
		{"a line that is no verdict fails", "TypeError: d is null", "  FAIL  page: TypeError: d is null\n", "x: 0/1 checks passed", true},
		{"no verdicts fail", "\n", "  FAIL  page: no verdicts\n", "x: 0/1 checks passed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := &T{Name: "x", out: &out}
			r.Verdicts("page", tt.lines)
			if diff := cmp.Diff(tt.out, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.summary, r.Summary()); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if (r.failed > 0) != tt.failed {
				t.Errorf("failed = %d, want a failure: %v", r.failed, tt.failed)
			}
		})
	}
}

func TestChecksAndSkips(t *testing.T) {
	var out bytes.Buffer
	r := &T{Name: "interop-x", out: &out}
	r.Section("peer %d", 1)
	r.Check("passes", true, "unused")
	r.Check("fails", false, "saw 3")
	r.Fail("fails without detail", "")
	r.SkipCheck("corpus", "absent")
	r.Note("a note")
	want := "-- peer 1\n  ok    passes\n  FAIL  fails: saw 3\n  FAIL  fails without detail\n  skip  corpus: absent\n        a note\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("interop-x: 1/3 checks passed, 1 skipped", r.Summary()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		s, tail, head string
	}{
		{"a\nb\nc\n", "b c", "a b"},
		{"one", "one", "one"},
		{"", "", ""},
		{"héllo\nx", "héllo x", "héllo x"},
		{"hé", "hé", "hé"},
	}
	for _, tt := range tests {
		if got := Tail(tt.s, 2); got != tt.tail {
			t.Errorf("Tail(%q, 2) = %q, want %q", tt.s, got, tt.tail)
		}
		if got := Head(tt.s, 2); got != tt.head {
			t.Errorf("Head(%q, 2) = %q, want %q", tt.s, got, tt.head)
		}
	}
}

func TestResultOf(t *testing.T) {
	tests := []struct {
		dom, want string
		ok        bool
	}{
		{`<html><body><pre id="result">ok   a &amp; b
FAIL c: 1 &lt; 2</pre><iframe></iframe></body></html>`, "ok   a & b\nFAIL c: 1 < 2", true},
		{`<pre id="result">not run</pre>`, "not run", true},
		{`<html></html>`, "", false},
	}
	for _, tt := range tests {
		got, ok := ResultOf(tt.dom)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ResultOf(%q) = %q, %v; want %q, %v", tt.dom, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWrapPage(t *testing.T) {
	p := WrapPage(`a "b".html`, "function check(d, w, want) { return 'ok   x'; }", "{n:1}")
	for _, want := range []string{`src="a &#34;b&#34;.html"`, "function check(d, w, want)", "check(w.document, w, {n:1})", `<pre id="result">`} {
		if !strings.Contains(p, want) {
			t.Errorf("WrapPage lacks %q:\n%s", want, p)
		}
	}
}

func TestWaitPort(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !WaitPort(port, time.Minute) {
		t.Errorf("WaitPort(%d): nothing accepting, but a listener is there", port)
	}
}

func TestNPM(t *testing.T) {
	p := NPM(t.TempDir())
	bin := p.Bin("tool")
	if p.Has("tool") {
		t.Fatal("Has(tool) in an empty prefix")
	}
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	os.MkdirAll(filepath.Join(string(p), "node_modules", "@scope", "pkg"), 0o755)
	os.WriteFile(filepath.Join(string(p), "node_modules", "@scope", "pkg", "package.json"), []byte(`{"name": "@scope/pkg", "version": "1.2.3"}`), 0o644)
	if !p.Has("tool") || p.Has("tool", "other") {
		t.Errorf("Has(tool) = %v, Has(tool, other) = %v; want true, false", p.Has("tool"), p.Has("tool", "other"))
	}
	if got := p.Version("@scope/pkg"); got != "1.2.3" {
		t.Errorf("Version = %q, want 1.2.3", got)
	}
	if got := p.Version("missing"); got != "?" {
		t.Errorf("Version(missing) = %q, want ?", got)
	}
}

func TestBatchTask(t *testing.T) {
	got := BatchTask("/src", "turns", "/w/repo", "anthropic/m", "loop", `,"budgets":{"turns":2}`)
	want := `{"id":"turns","repo":"/w/repo","prompt":"Write the answer.","check":"test \"$(cat answer.txt)\" = 42","model":"anthropic/m","chatArgs":["--replay","/src/testdata/batch/loop.jsonl","--retries","0"],"budgets":{"turns":2}}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

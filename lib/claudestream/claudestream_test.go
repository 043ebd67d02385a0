package claudestream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentutils/agentutils/lib/event"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// translate runs an event file through a translator; event i is seen at
// 1000 + 100*i ms and the run finishes 50 ms after the last event.
func translate(t *testing.T, path string, opt Options, maxTurns bool) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := New(opt)
	if maxTurns {
		tr.MaxTurns()
	}
	var out bytes.Buffer
	now := int64(1000)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		e, err := event.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		lines, err := tr.Event(e, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			out.Write(l)
		}
		now += 100
	}
	out.Write(tr.Finish(now - 50))
	if tr.Finish(now) != nil {
		t.Error("second Finish wrote a line")
	}
	return out.String()
}

func TestGolden(t *testing.T) {
	opt := Options{
		SessionID: "0f6d7c2e-0000-4000-8000-000000000000", Cwd: "/work/repo", Model: "anthropic/claude-sonnet-4-5",
		Tools: []string{"read", "bash", "find"}, SlashCommands: []string{"review"}, Version: "0.1.0",
		MCPServers: []MCPServer{{Name: "github", Status: "connected"}},
	}
	replay := opt
	replay.ReplayUserMessages = true
	partial := opt
	partial.IncludePartialMessages = true
	tests := []struct {
		name, in string
		opt      Options
		maxTurns bool
	}{
		{"tool-call", "tool-call.events.jsonl", opt, false},
		{"tool-call-replay", "tool-call.events.jsonl", replay, false},
		{"tool-call-max-turns", "tool-call.events.jsonl", Options{}, true},
		{"errors", "errors.events.jsonl", opt, false},
		{"tool-call-partial", "tool-call.events.jsonl", partial, false},
		{"full-partial", "full.events.jsonl", partial, false},
		{"full", "full.events.jsonl", opt, false},
		{"errors-partial", "errors.events.jsonl", partial, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := translate(t, filepath.Join("testdata", tt.in), tt.opt, tt.maxTurns)
			path := filepath.Join("testdata", tt.name+".golden.jsonl")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestNoRun(t *testing.T) {
	tr := New(Options{SessionID: "s"})
	failure, _ := event.Decode([]byte(`{"type":"error","code":2,"message":"agent-chat: no model"}`))
	lines, err := tr.Event(failure, 5)
	if err != nil || len(lines) != 0 {
		t.Fatalf("lines %q err %v", lines, err)
	}
	got := string(tr.Finish(7))
	for _, want := range []string{`"subtype":"error_during_execution"`, `"is_error":true`, `"errors":["agent-chat: no model"]`, `"duration_ms":2`, `"num_turns":0`} {
		if !strings.Contains(got, want) {
			t.Errorf("result %s lacks %s", got, want)
		}
	}
	if string(New(Options{}).Init()) == "" {
		t.Error("Init wrote nothing")
	}
}

func TestBadMessage(t *testing.T) {
	tr := New(Options{})
	if _, err := tr.Event(event.Event{Type: event.MessageEnd, Message: []byte(`[1]`)}, 1); err == nil {
		t.Error("no error for a message that is not an object")
	}
}

// TestSchema checks every golden line against formats/claude-stream/schema.json.
func TestSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	abs, _ := filepath.Abs("../../formats/claude-stream/schema.json")
	sch, err := c.Compile(abs)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/*.golden.jsonl")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(l))
			if err != nil {
				t.Fatalf("%s:%d: %v", f, i+1, err)
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s:%d: %v", f, i+1, err)
			}
		}
	}
}

// FuzzTranslate feeds arbitrary event lines: the translator may reject a
// message but must not panic, and every line it writes is one JSON object.
func FuzzTranslate(f *testing.F) {
	data, _ := os.ReadFile("testdata/full.events.jsonl")
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, l string) {
		e, err := event.Decode([]byte(l))
		if err != nil {
			return
		}
		tr := New(Options{IncludePartialMessages: true, ReplayUserMessages: true})
		for _, ev := range []event.Event{{Type: event.AgentStart}, {Type: event.MessageStart, Message: []byte(`{"role":"assistant","content":[]}`)}, e, e} {
			lines, _ := tr.Event(ev, 1)
			for _, out := range lines {
				if !json.Valid(out) {
					t.Fatalf("invalid line %q", out)
				}
			}
		}
		if out := tr.Finish(2); !json.Valid(out) {
			t.Fatalf("invalid result %q", out)
		}
	})
}

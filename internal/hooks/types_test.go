package hooks

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHeader(t *testing.T) {
	env := []string{"MY_TOKEN=t1", "OTHER=o", "MY_TOKEN=t2"}
	for _, tc := range []struct{ in, want string }{
		{"Bearer $MY_TOKEN", "Bearer t2"},
		{"Bearer ${MY_TOKEN}!", "Bearer t2!"},
		{"x-$OTHER-${OTHER}", "x--"},
		{"$UNSET", ""},
		{"no vars", "no vars"},
	} {
		if got := Header(tc.in, []string{"MY_TOKEN", "UNSET"}, env); got != tc.want {
			t.Errorf("Header(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseOK(t *testing.T) {
	for _, tc := range []struct {
		answer string
		ok     bool
		reason string
		err    bool
	}{
		{`{"ok": true}`, true, "", false},
		{`{"ok": false, "reason": "tests fail"}`, false, "tests fail", false},
		{"Not yet:\n```json\n{\"ok\": false, \"reason\": \"no\"}\n```", false, "no", false},
		{`{"ok": true} but {"ok": false, "reason": "last"}`, false, "last", false},
		{`{"decision": "block"}`, false, "", true},
		{"sure, go ahead", false, "", true},
	} {
		ok, reason, err := ParseOK(tc.answer)
		if ok != tc.ok || reason != tc.reason || (err != nil) != tc.err {
			t.Errorf("ParseOK(%q) = %v, %q, %v", tc.answer, ok, reason, err)
		}
	}
}

func TestQuestion(t *testing.T) {
	in := []byte(`{"a":1}`)
	if got := Question("check $ARGUMENTS now", in); got != `check {"a":1} now` {
		t.Errorf("with $ARGUMENTS: %q", got)
	}
	if got := Question("check", in); got != "check\n\n{\"a\":1}" {
		t.Errorf("without: %q", got)
	}
}

func TestEnvChanges(t *testing.T) {
	before := []string{"PATH=/bin", "HOME=/h", "KEEP=1"}
	after := []string{"PATH=/bin:/p/tools", "HOME=/h", "KEEP=1", "NODE_ENV=production", "PWD=/p", "SHLVL=1", "_=/usr/bin/env"}
	want := []string{"PATH=/bin:/p/tools", "NODE_ENV=production"}
	if got := EnvChanges(before, after); !cmp.Equal(got, want) {
		t.Errorf("EnvChanges = %q, want %q", got, want)
	}
}

func TestReadEnvFile(t *testing.T) {
	f, rm, err := NewEnvFile()
	if err != nil {
		t.Fatal(err)
	}
	defer rm()
	env := []string{"PATH=/usr/bin:/bin"}
	if got, err := ReadEnvFile(context.Background(), f, env); err != nil || got != nil {
		t.Errorf("empty file: %q, %v", got, err)
	}
	os.WriteFile(f, []byte("export NODE_ENV=production\nexport PATH=\"$PATH:/p/tools\"\nDEBUG_LOG=true\n"), 0o644)
	got, err := ReadEnvFile(context.Background(), f, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NODE_ENV=production", "PATH=/usr/bin:/bin:/p/tools", "DEBUG_LOG=true"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("ReadEnvFile = %q: no %s", got, want)
		}
	}
	os.WriteFile(f, []byte("exit 3\n"), 0o644)
	if _, err := ReadEnvFile(context.Background(), f, env); err == nil || !strings.Contains(err.Error(), "CLAUDE_ENV_FILE") {
		t.Errorf("a file that fails: %v", err)
	}
}

func TestLoadSettingsTypes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	os.WriteFile(p, []byte(`{"hooks":{
  "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"http","url":"http://localhost:1/h","headers":{"A":"$X"},"allowedEnvVars":["X"]},
    {"type":"prompt","prompt":"ok? $ARGUMENTS"},{"type":"mcp_tool","server":"s","tool":"t"}]}],
  "PostToolUse":[{"hooks":[{"command":"./t.sh","async":true,"timeout":120}]}],
  "Notification":[{"hooks":[{"type":"prompt","prompt":"not on this event"},{"type":"http","url":"https://example.com/n"}]}],
  "Stop":[{"hooks":[{"type":"agent","prompt":"verify"}]}]}}`), 0o644)
	hs, warnings, err := LoadSettings(p)
	if err != nil {
		t.Fatal(err)
	}
	// the two left out are named, not dropped in silence
	if len(warnings) != 2 || !strings.Contains(warnings[0], `hooks.PreToolUse[0].hooks[2]: a hook of type "mcp_tool" is left out`) ||
		!strings.Contains(warnings[1], "hooks.Notification[0].hooks[0]: a prompt hook on Notification is left out") {
		t.Errorf("warnings: %q", warnings)
	}
	var got []string
	for _, h := range hs {
		got = append(got, h.Event+" "+h.Type+" "+h.Timeout.String())
	}
	want := []string{"PreToolUse http 1m0s", "PreToolUse prompt 30s", "PostToolUse command 2m0s", "Notification http 1m0s", "Stop agent 1m0s"}
	if !cmp.Equal(got, want) {
		t.Errorf("hooks read:\n%q\nwant\n%q", got, want)
	}
	if !hs[2].Async || hs[0].Headers["A"] != "$X" || HeaderVars(hs)[0] != "X" {
		t.Errorf("fields not read: %+v", hs)
	}
}

// TestRunTypes runs an http hook against a local server and prompt hooks
// against a function standing for the model, through RunOpts.
func TestRunTypes(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in Input
		json.NewDecoder(r.Body).Decode(&in)
		mu.Lock()
		got = append(got, r.Header.Get("Authorization")+" "+in.HookEventName+" "+in.ToolName)
		mu.Unlock()
		switch r.URL.Path {
		case "/deny":
			w.Write([]byte(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not here"}}`))
		case "/text":
			w.Write([]byte("noted"))
		default:
			http.Error(w, "gone", http.StatusGone)
		}
	}))
	defer srv.Close()
	in := Input{Event: PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
	var warnings []string
	o := Opts{Env: []string{"TOK=abc"}, Warn: func(s string) { warnings = append(warnings, s) }}
	http := func(path string) Hook {
		return Hook{Event: PreToolUse, Type: TypeHTTP, URL: srv.URL + path, Headers: map[string]string{"Authorization": "Bearer $TOK"}, AllowedEnvVars: []string{"TOK"}, Timeout: 5 * time.Second}
	}
	if v := RunOpts(context.Background(), []Hook{http("/deny")}, in, o); !v.Block || v.Reason != "not here" {
		t.Errorf("http deny: %+v", v)
	}
	if v := RunOpts(context.Background(), []Hook{http("/text")}, in, o); v.Block || !cmp.Equal(v.AdditionalContext, []string{"noted"}) {
		t.Errorf("http text: %+v", v)
	}
	if v := RunOpts(context.Background(), []Hook{http("/gone")}, in, o); v.Block || len(warnings) != 1 || !strings.Contains(warnings[0], "HTTP 410") {
		t.Errorf("http 410 should warn, not block: %+v %q", v, warnings)
	}
	if got[0] != "Bearer abc PreToolUse Bash" {
		t.Errorf("the server got %q", got)
	}
	prompt := Hook{Event: PreToolUse, Type: TypePrompt, Prompt: "safe? $ARGUMENTS", Timeout: 5 * time.Second}
	var asked string
	o.Ask = func(_ context.Context, model, q string) (string, error) {
		asked = q
		return `{"ok": false, "reason": "ls is too dangerous"}`, nil
	}
	if v := RunOpts(context.Background(), []Hook{prompt}, in, o); !v.Block || v.Reason != "ls is too dangerous" {
		t.Errorf("prompt not ok: %+v", v)
	}
	if !strings.Contains(asked, `safe? {"event":"tool_call","hook_event_name":"PreToolUse"`) {
		t.Errorf("the question: %s", asked)
	}
	o.Ask = nil
	warnings = nil
	if v := RunOpts(context.Background(), []Hook{prompt}, in, o); v.Block || len(warnings) != 1 || !strings.Contains(warnings[0], "need a model") {
		t.Errorf("prompt without a model: %+v %q", v, warnings)
	}
}

func TestAsync(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var told []string
	o := Opts{Pending: &wg, Async: func(s string) { mu.Lock(); told = append(told, s); mu.Unlock() }}
	h := Hook{Event: PostToolUse, Type: TypeCommand, Async: true, Timeout: 10 * time.Second,
		Command: `cat > /dev/null; echo '{"systemMessage":"tests passed","decision":"block","reason":"ignored"}'`}
	v := RunOpts(context.Background(), []Hook{h}, Input{Event: PostToolUse, ToolName: "bash"}, o)
	if v.Block {
		t.Error("an async hook decided")
	}
	wg.Wait()
	if !cmp.Equal(told, []string{"tests passed"}) {
		t.Errorf("told %q", told)
	}
}

// Command interop-html checks the HTML export in a real browser (Debian's
// headless chromium): sessions exported with agent-session export --html
// (agent-render beside it: markdown and highlighting), a screenshot of
// each, and DOM checks run in the page by a script of their own
// (check.js): the edit's diff is there, a folded output unfolds with "show
// all", the tree has the session's branch shape and a click on another
// branch shows it, the tools toggle hides tools, the search box filters.
//  1. a session made here by the real pipeline (the demo's cassette: read,
//     bash, edit), then a second branch and a label;
//  2. two pi sessions from ../shared/corpus (skipped when absent).
//
// Skips with a message when chromium is not installed. Screenshots stay in
// ${HTML_SHOTS:-${TMPDIR:-/tmp}/agentutils-html} for people to look at.
//
//	go run ./scripts/interop-html
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

//go:embed check.js
var checkJS string

func main() { os.Exit(interop.Main("interop-html", run)) }

func run(t *interop.T) error {
	chrome, err := interop.Chromium()
	if err != nil {
		return err
	}
	if _, err := os.Stat("bin/agent-render"); err != nil {
		return fmt.Errorf("bin/agent-render missing: run make build")
	}
	shots, err := interop.Shots("HTML_SHOTS", "agentutils-html")
	if err != nil {
		return err
	}
	os.Setenv("AGENTUTILS_HOME", filepath.Join(t.Dir, "home"))
	demo, err := demoSession(t)
	if err != nil {
		return fmt.Errorf("the demo session: %w", err)
	}
	sessions := []string{demo}
	if corpus, ok := t.Corpus("transcripts/pi"); ok {
		pimono := filepath.Join(t.Dir, "pimono.jsonl")
		if r := interop.Sh("", fmt.Sprintf("gzip -dc %q > %q", filepath.Join(corpus, "pimono-session-v1.jsonl.gz"), pimono)); !r.OK() {
			return fmt.Errorf("pimono-session-v1.jsonl.gz: %s", r.Why())
		}
		sessions = append(sessions, pimono, filepath.Join(corpus, "agentsessions-pi-small-v3.jsonl"))
	} else {
		t.SkipCheck("the two pi sessions of ../shared/corpus", "absent: only the generated session")
	}
	b := interop.Browser{Path: chrome, Profile: filepath.Join(t.Dir, "profile")}
	for i, s := range sessions {
		if err := page(t, b, s, i == 0, shots); err != nil {
			t.Fail(filepath.Base(s), err.Error())
		}
	}
	return nil
}

// demoSession is the demo's run in a scratch repository (the real
// pipeline replaying testdata/cassettes/demo.jsonl), then a second branch
// from its first prompt and a label on it; it returns the session's path.
func demoSession(t *interop.T) (string, error) {
	repo := filepath.Join(t.Dir, "repo")
	files := map[string]string{
		"go.mod":       "module demo\n\ngo 1.21\n",
		"calc.go":      "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return "", err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	steps := []string{
		"git init -q && git config user.email t@example.com && git config user.name t && git add -A && git commit -qm calc",
		`S=$(agent-session continue) && agent-session open "$S" | agent-chat --replay "$ROOT/testdata/cassettes/demo.jsonl" --model anthropic/claude-sonnet-4-5 --throttle 0 "The test fails. Find out why and fix it." | agent-session append "$S" >/dev/null && echo "$S"`,
	}
	r := interop.Sh(repo, steps[0])
	if !r.OK() {
		return "", fmt.Errorf("git: %s", r.Why())
	}
	r = interop.Run(interop.Cmd(repo, []string{"ROOT=" + t.Root}, "bash", "-o", "pipefail", "-c", steps[1]))
	s := strings.TrimSpace(r.Stdout)
	if !r.OK() || s == "" {
		return "", fmt.Errorf("the demo's pipeline: %s", r.Why())
	}
	r = interop.Run(interop.Cmd(repo, nil, "agent-session", "open", s, "--jq", `select(.type=="message" and .message.role=="user") | .id`))
	first := strings.Trim(interop.Head(r.Stdout, 1), `"`)
	if first == "" {
		return "", fmt.Errorf("no user message in %s: %s", s, r.Why())
	}
	branch := `{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"Or rather: *explain* the bug first, with ` + "`code`" + `."}],"timestamp":1}}
{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"## The bug\n\n` + "`Add`" + ` subtracts:\n\n` + "```go\\nreturn a - b\\n```" + `\n\n- it should add\n- the test says so"}],"stopReason":"stop","timestamp":2}}
`
	app := interop.Cmd(repo, nil, "agent-session", "append", s, "--parent", first)
	app.Stdin = strings.NewReader(branch)
	if r := interop.Run(app); !r.OK() {
		return "", fmt.Errorf("append the branch: %s", r.Why())
	}
	if r := interop.Run(interop.Cmd(repo, nil, "agent-session", "label", s, first, "start")); !r.OK() {
		return "", fmt.Errorf("label: %s", r.Why())
	}
	demo := filepath.Join(t.Dir, "demo.jsonl")
	b, err := os.ReadFile(s)
	if err == nil {
		err = os.WriteFile(demo, b, 0o644)
	}
	return demo, err
}

// page exports one session as HTML, runs check.js on it in the browser
// and takes its screenshot. The demo session must have a diff and a label.
func page(t *interop.T, b interop.Browser, s string, demo bool, shots string) error {
	name := strings.TrimSuffix(filepath.Base(s), ".jsonl")
	html := filepath.Join(t.Dir, name+".html")
	if r := interop.Run(interop.Cmd("", []string{"AGENT_RENDER="}, "agent-session", "export", "--html", "-o", html, s)); !r.OK() {
		return fmt.Errorf("export --html: %s", r.Why())
	}
	r := interop.Run(exec.Command("agent-session", "export", "--json", s))
	var exp struct {
		Entries []entry `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &exp); err != nil {
		return fmt.Errorf("export --json: %v %s", err, r.Why())
	}
	branches, depth := shape(exp.Entries)
	text, err := os.ReadFile(html)
	if err != nil {
		return err
	}
	has := func(class string) bool { return strings.Contains(string(text), `class="`+class) }
	want := fmt.Sprintf("{diff:%t,fold:%t,code:%t,label:%t,branches:%d,depth:%d}",
		demo || has(`diff"`), has(`fold"`), has("hl-"), demo || has(`label"`), branches, depth)
	wrap := filepath.Join(t.Dir, "wrap-"+name+".html")
	if err := os.WriteFile(wrap, []byte(interop.WrapPage(name+".html", checkJS, want)), 0o644); err != nil {
		return err
	}
	t.Section("%s (%d bytes, %d branch lists, depth %d)", name, len(text), branches, depth)
	verdicts, err := b.Checks(wrap)
	if err != nil {
		return err
	}
	t.Verdicts(name, verdicts)
	png := filepath.Join(shots, name+".png")
	if err := b.Screenshot(html, png, "1400,1000"); err != nil {
		return err
	}
	t.Note("screenshot: %s", png)
	return nil
}

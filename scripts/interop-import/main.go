// Command interop-import checks agent-session import against real
// transcripts (../shared/corpus/transcripts: Claude Code 1.0.17-2.1.x,
// Codex from the early rollout format to 0.146, pi v1/v3; see its
// PROVENANCE.md). lib/transcript's TestCorpus counts prompts, assistant
// texts, tool calls, results, images and apply_patch text in each source
// and in what import made of it, checks every call is followed by its
// result on the active path and usage is counted once per API message; pi
// files must open. Then the command itself imports each file and opens
// what it wrote. Then Claude Code and Codex (npm, pinned in
// scripts/internal/interop) write transcripts offline against the fake
// provider in agent mode (parallel calls, edits, images, a sub-agent, a
// compaction and a fork), and TestGenerated checks their import; Gemini
// CLI and opencode (npm, pinned in others.go) do the same, and the Gemini
// CLI and opencode fixtures of jazzyalex/agent-sessions import (others.go).
// The transcripts of ../shared/corpus-new go through TestCorpus too. Skips
// with a message when the corpus is absent.
//
//	go run ./scripts/interop-import
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

func main() { os.Exit(interop.Main("interop-import", run)) }

func run(t *interop.T) error {
	corpus, ok := t.Corpus("transcripts")
	if !ok {
		return interop.Skip("%s absent", corpus)
	}
	os.Setenv("AGENTUTILS_HOME", filepath.Join(t.Dir, "home"))
	goTest(t, "TestCorpus", "transcripts without loss", nil)
	// ../shared/corpus-new's transcripts too (Claude Code 2.1 with
	// subagents/ files, drifted shapes): AGENTUTILS_CORPUS_NEW names it.
	newer := os.Getenv("AGENTUTILS_CORPUS_NEW")
	if newer == "" {
		newer = filepath.Join(filepath.Dir(filepath.Dir(corpus)), "corpus-new")
	}
	if _, err := os.Stat(filepath.Join(newer, "transcripts")); err == nil {
		goTest(t, "TestCorpus", "transcripts without loss", []string{"AGENTUTILS_CORPUS=" + newer})
	} else {
		t.SkipCheck("corpus-new transcripts", newer+" absent")
	}
	var files []string
	for _, g := range []string{"claude/*.jsonl*", "codex/*.jsonl*"} {
		m, _ := filepath.Glob(filepath.Join(corpus, g))
		files = append(files, m...)
	}
	ok1 := 0
	for _, f := range files {
		if importAndOpen(t, f) {
			ok1++
		}
	}
	tally(t, ok1, len(files), "transcripts imported by agent-session import and opened")
	pis, _ := filepath.Glob(filepath.Join(corpus, "pi", "*.jsonl*"))
	if len(pis) == 0 {
		t.SkipCheck("pi files open", "none in "+filepath.Join(corpus, "pi"))
	}
	ok2 := 0
	for _, f := range pis {
		pi := filepath.Join(t.Dir, "pi.jsonl")
		r := interop.Sh("", fmt.Sprintf("gzip -dcf %q > %q && agent-session open --resolved %q >/dev/null", f, pi, pi))
		if r.OK() {
			ok2++
		} else {
			t.Fail(filepath.Base(f)+" does not open", r.Why())
		}
	}
	if len(pis) > 0 {
		tally(t, ok2, len(pis), "pi files open")
	}
	generated(t)
	others(t)
	return nil
}

// tally is the closing check of a group whose failures were counted one
// by one: "N/M WHAT", passed when all were.
func tally(t *interop.T, ok, n int, what string) {
	if ok == n {
		t.OK("%d/%d %s", ok, n, what)
	} else {
		t.Note("%d/%d %s", ok, n, what)
	}
}

// importAndOpen imports one transcript with agent-session import and opens
// what it wrote; it may say at most 12 lines on stderr.
func importAndOpen(t *interop.T, f string) bool {
	b := filepath.Base(f)
	out := filepath.Join(t.Dir, b+".session.jsonl")
	r := interop.Run(exec.Command("agent-session", "import", "-o", out, f))
	if r.OK() {
		o := interop.Run(exec.Command("agent-session", "open", out))
		r.Stderr += o.Stderr
		r.Code = o.Code
	}
	if !r.OK() {
		t.Fail(b, interop.Head(r.Stderr, 3))
		return false
	}
	if n := strings.Count(r.Stderr, "\n"); n > 12 {
		t.Fail(b, fmt.Sprintf("%d stderr lines", n))
	}
	return true
}

var withoutLossRE = regexp.MustCompile(`[0-9]+/[0-9]+ (generated )?transcripts without loss`)

// goTest runs one of lib/transcript's corpus tests and checks its tally
// ("N/M transcripts without loss"), printing what it says of each file.
func goTest(t *interop.T, test, tallyText string, env []string) {
	r := interop.Run(interop.Cmd("", env, "go", "test", "-count=1", "-run", "^"+test+"$", "-v", "./lib/transcript/"))
	out := r.Stdout + r.Stderr
	for _, l := range strings.Split(out, "\n") {
		if (strings.Contains(l, "--- FAIL") || strings.Contains(l, "corpus_test.go")) &&
			!strings.Contains(l, "output tokens imported") && !strings.Contains(l, tallyText) {
			t.Note("%s", strings.TrimSpace(l))
		}
	}
	summary := withoutLossRE.FindString(out)
	detail := interop.Tail(out, 20)
	if summary != "" {
		detail = "go test failed"
	}
	t.Check(fmt.Sprintf("lib/transcript %s: %s", test, summary), r.OK() && summary != "", detail)
}

// generated has the newest Claude Code and Codex CLIs (npm, pinned) write
// transcripts offline against the fake provider in agent mode: parallel
// calls, edits, images, a sub-agent, a compaction and a fork; then
// TestGenerated checks their import, and agent-session import links the
// sub-agent files.
func generated(t *interop.T) {
	npm := npmPrefix("import")
	claude, codex := npm.Bin("claude"), npm.Bin("codex")
	if !strings.HasPrefix(version(claude), interop.ClaudeCode+" ") || !strings.Contains(version(codex), interop.Codex) {
		if err := npm.Install("@anthropic-ai/claude-code@"+interop.ClaudeCode, "@openai/codex@"+interop.Codex); err != nil {
			t.SkipCheck("transcripts generated by Claude Code and Codex", err.Error())
			return
		}
	}
	work, home, codexHome := filepath.Join(t.Dir, "work"), filepath.Join(t.Dir, "home"), filepath.Join(t.Dir, "codex")
	for _, d := range []string{work, home, codexHome} {
		os.MkdirAll(d, 0o755)
	}
	srv := t.FakeProvider(work)
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	interop.Sh(work, "echo "+png+" | base64 -d > x.png")
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(fmt.Sprintf("model = \"gpt-5.3-codex\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"%s/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_KEY\"\n", srv.URL)), 0o644)
	env := []string{"HOME=" + home, "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=fake", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"IS_SANDBOX=1", "DISABLE_AUTOUPDATER=1", "CODEX_HOME=" + codexHome, "FAKE_KEY=fake"}
	cli := func(what string, stdin string, name string, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = work, append(os.Environ(), env...)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		r := interop.Run(cmd)
		if !r.OK() {
			t.Note("%s failed on %s", filepath.Base(name), what)
		}
		return r.Stdout + r.Stderr
	}
	sid := ""
	for _, p := range []string{"PARALLEL: run two commands", "EDIT: write a note", "SUBAGENT: delegate"} {
		out := cli(p, "", claude, "-p", p, "--model", "claude-sonnet-4-5", "--dangerously-skip-permissions", "--output-format", "json")
		if m := regexp.MustCompile(`"session_id":"([^"]*)"`).FindStringSubmatch(out); sid == "" && m != nil {
			sid = m[1]
		}
	}
	// the first session compacted (/compact), then forked
	cli("/compact", "", claude, "-p", "/compact", "--resume", sid, "--model", "claude-sonnet-4-5")
	cli("a fork", "", claude, "-p", "hello again", "--resume", sid, "--fork-session", "--model", "claude-sonnet-4-5")
	image := fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]}}`+"\n", png)
	cli("an image", image, claude, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5")
	for _, p := range []string{"PARALLEL: run two commands", "EDIT: add a note", "VIEW: look at x.png"} {
		cli(p, "", codex, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", p)
	}
	cli("an image", "", codex, "exec", "--skip-git-repo-check", "what is this?", "-i", "x.png")
	gen := filepath.Join(t.Dir, "gen")
	os.MkdirAll(gen, 0o755)
	interop.Run(exec.Command("cp", "-r", filepath.Join(home, ".claude", "projects"), filepath.Join(gen, "claude")))
	interop.Run(exec.Command("cp", "-r", filepath.Join(codexHome, "sessions"), filepath.Join(gen, "codex")))
	t.Note("generated by claude %s and %s", interop.Head(version(claude), 1), interop.Head(version(codex), 1))
	goTest(t, "TestGenerated", "generated transcripts without loss", []string{"AGENTUTILS_GENERATED_TRANSCRIPTS=" + gen})
	mains, _ := filepath.Glob(filepath.Join(gen, "claude", "*", "*.jsonl"))
	for _, f := range mains {
		if st, err := os.Stat(strings.TrimSuffix(f, ".jsonl") + "/subagents"); err == nil && st.IsDir() {
			r := interop.Run(exec.Command("agent-session", "import", "-o", filepath.Join(t.Dir, "sub.jsonl"), f))
			t.Check("agent-session import links the sub-agent files of "+filepath.Base(f), strings.Contains(r.Stdout, `"agents":[`), r.Why())
			break
		}
	}
}

// npmPrefix is the npm prefix of the peers a part of this check installs:
// $BENCH_DIR/NAME (default testdata/bench/NAME).
func npmPrefix(name string) interop.NPM {
	dir := os.Getenv("BENCH_DIR")
	if dir == "" {
		dir = "testdata/bench"
	}
	dir, _ = filepath.Abs(filepath.Join(dir, name))
	return interop.NPM(dir)
}

// version is what a program says to --version ("" when it does not run).
func version(bin string) string {
	return strings.TrimSpace(interop.Run(exec.Command(bin, "--version")).Stdout)
}

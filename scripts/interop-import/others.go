package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

// The pinned versions of the npm peers only this check runs.
const (
	geminiCLI = "0.61.0"  // @google/gemini-cli
	opencode  = "1.18.33" // opencode-ai
)

// Gemini CLI's two requests, answered in turn: a thought, a text and a
// call of its list_directory tool; then a text.
const (
	geminiCall = `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Looking at the directory","thought":true,"thoughtSignature":"c2ln"}]}}]}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":"I will list the files."}]}}]}

data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"list_directory","args":{"dir_path":"."}},"thoughtSignature":"c2lnMg=="}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":800,"candidatesTokenCount":12,"thoughtsTokenCount":5,"cachedContentTokenCount":100,"totalTokenCount":817}}

`
	geminiText = `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"There is one file: a.txt."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":900,"candidatesTokenCount":9,"totalTokenCount":909}}

`
)

// others has Gemini CLI and opencode (npm, pinned) write sessions offline
// against the fake provider: Gemini CLI a call of its own tool and its
// answer (its chat recording), opencode two parallel shell calls (the
// fake's agent mode over Anthropic Messages; `opencode export` prints the
// session, kept in its SQLite database). TestGenerated checks their import
// without loss, agent-session import and usage read them. Then the Gemini
// CLI and opencode fixtures of jazzyalex/agent-sessions' tests (hand-made
// shapes, old and drifted: its mirror when fetched beside the project)
// import and open.
func others(t *interop.T) {
	npm := npmPrefix("import-others")
	gemini, oc := npm.Bin("gemini"), npm.Bin("opencode")
	if npm.Version("@google/gemini-cli") != geminiCLI || npm.Version("opencode-ai") != opencode {
		if err := npm.Install("@google/gemini-cli@"+geminiCLI, "opencode-ai@"+opencode); err != nil {
			t.SkipCheck("sessions written by Gemini CLI and opencode", err.Error())
			agentSessionsFixtures(t)
			return
		}
	}
	gen := filepath.Join(t.Dir, "gen-others")
	home, work := filepath.Join(t.Dir, "others-home"), filepath.Join(t.Dir, "others-work")
	for _, d := range []string{filepath.Join(gen, "gemini"), filepath.Join(gen, "opencode"), filepath.Join(home, ".gemini"),
		filepath.Join(home, ".config", "opencode"), work} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("hi\n"), 0o644)
	run := func(env []string, name string, args ...string) interop.Result {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		// PWD too: opencode takes its project from $PWD, which exec
		// leaves as it was when Env is given (the session went to the
		// repository's project, and `session list` in work found none)
		cmd.Dir, cmd.Env = work, append(os.Environ(), append(env, "PWD="+work)...)
		return interop.Run(cmd)
	}
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "GEMINI_API_KEY=fake", "NO_COLOR=1"}

	// Gemini CLI: API key auth, the folder trusted, nothing sent elsewhere
	sse := filepath.Join(t.Dir, "gemini-sse")
	os.MkdirAll(sse, 0o755)
	os.WriteFile(filepath.Join(sse, "call.sse"), []byte(geminiCall), 0o644)
	os.WriteFile(filepath.Join(sse, "text.sse"), []byte(geminiText), 0o644)
	gsrv := t.FakeProvider("", filepath.Join(sse, "call.sse"), filepath.Join(sse, "text.sse"))
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},`+
		`"general":{"disableAutoUpdate":true},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`), 0o644)
	r := run(append(env, "GOOGLE_GEMINI_BASE_URL="+gsrv.URL), gemini, "-p", "list the files", "-m", "gemini-2.5-flash", "--yolo")
	t.Check("gemini "+geminiCLI+" answers offline", r.OK() && strings.Contains(r.Stdout, "one file"), r.Why())
	recs, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	for _, f := range recs {
		interop.Run(exec.Command("cp", f, filepath.Join(gen, "gemini")))
	}

	// opencode: Anthropic Messages at the fake in agent mode
	osrv := t.FakeProvider(work)
	os.WriteFile(filepath.Join(home, ".config", "opencode", "opencode.json"), []byte(fmt.Sprintf(
		`{"autoupdate":false,"share":"disabled","provider":{"anthropic":{"options":{"baseURL":"%s/v1","apiKey":"fake"}}}}`, osrv.URL)), 0o644)
	r = run(env, oc, "run", "-m", "anthropic/claude-sonnet-4-5", "PARALLEL: run two commands")
	t.Check("opencode "+opencode+" answers offline", r.OK() && strings.Contains(r.Stdout, "All done"), r.Why())
	var list []struct{ ID string }
	lr := run(env, oc, "session", "list", "--format", "json")
	json.Unmarshal([]byte(lr.Stdout), &list)
	for _, s := range list {
		if out := run(env, oc, "export", s.ID); out.OK() {
			os.WriteFile(filepath.Join(gen, "opencode", s.ID+".json"), []byte(out.Stdout), 0o644)
		}
	}
	files, _ := filepath.Glob(filepath.Join(gen, "*", "*"))
	t.Check(fmt.Sprintf("%d sessions written by gemini %s and opencode %s", len(files), geminiCLI, opencode), len(recs) > 0 && len(list) > 0,
		fmt.Sprintf("%d Gemini CLI chats; opencode session list: %s %s", len(recs), lr.Why(), interop.Head(lr.Stdout+lr.Stderr, 5)))
	goTest(t, "TestGenerated", "generated transcripts without loss", []string{"AGENTUTILS_GENERATED_TRANSCRIPTS=" + gen})
	ok := 0
	for _, f := range files {
		if importAndOpen(t, f) {
			ok++
		}
	}
	tally(t, ok, len(files), "Gemini CLI and opencode sessions imported by agent-session import and opened")
	u := interop.Run(exec.Command("agent-session", "usage", "--json", "--by", "model", "--claude-dir", "none", "--codex-dir", "none",
		"--pi-dir", "none", "--omp-dir", "none", "--opencode-dir", "none", "--sessions-dir", "none", "--gemini-dir", filepath.Join(home, ".gemini", "tmp")))
	t.Check("agent-session usage totals Gemini CLI's recording", strings.Contains(u.Stdout, `"key":"gemini-2.5-flash","input":1600,"output":26,"cacheRead":100,`), u.Why()+interop.Head(u.Stdout, 3))
	agentSessionsFixtures(t)
}

// agentSessionsFixtures imports the Gemini CLI and opencode fixtures of
// jazzyalex/agent-sessions (from its mirror beside the project, when
// fetched, or in $AGENTUTILS_MIRRORS) and opens what import wrote.
func agentSessionsFixtures(t *interop.T) {
	mirrors := filepath.Join(filepath.Dir(t.Root), ".mirror")
	if d := os.Getenv("AGENTUTILS_MIRRORS"); d != "" { // a worktree's mirrors are elsewhere
		mirrors = d
	}
	mirror := filepath.Join(mirrors, "jazzyalex+agent-sessions", "repo")
	if _, err := os.Stat(mirror); err != nil {
		t.SkipCheck("agent-sessions' Gemini CLI and opencode fixtures", mirror+" absent")
		return
	}
	dir := filepath.Join(t.Dir, "agent-sessions")
	os.MkdirAll(dir, 0o755)
	const base = "Resources/Fixtures/stage0/agents"
	if r := interop.Sh(dir, fmt.Sprintf("git -C %q archive HEAD %s/gemini %s/opencode | tar -x", mirror, base, base)); !r.OK() {
		t.Fail("agent-sessions' fixtures", r.Why())
		return
	}
	files, _ := filepath.Glob(filepath.Join(dir, base, "gemini", "*.json*"))
	oc, _ := filepath.Glob(filepath.Join(dir, base, "opencode", "*", "session", "*", "*.json"))
	files = append(files, oc...)
	ok := 0
	for _, f := range files {
		if importAndOpen(t, f) {
			ok++
		}
	}
	tally(t, ok, len(files), "agent-sessions' Gemini CLI and opencode fixtures imported and opened")
}

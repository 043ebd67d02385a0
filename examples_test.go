package agentutils_test

// TestExamples runs every example of the documentation, as printed, and
// wants each to succeed (exit 0).
//
// What counts as an example (the rule):
//   - man/*.1: every line of the indented block after an "Examples:"
//     paragraph. The man pages are generated from the commands' --help
//     (make man; man-check in make test keeps them equal), so this is every
//     --help example too.
//   - man/agentutils.7: its SYNOPSIS block.
//   - README.md: every ```sh block, as one script (its lines build on each
//     other). ```toml, ```json and unlabelled blocks are not run.
//
// In man pages a line ending in a backslash continues on the next; a blank
// or comment-only line is no example. Each example runs as `bash -e -o
// pipefail -c EXAMPLE` in its own copy of a fixture project (fixture below: a git
// repository with a staged change, a remote, a tag, a session s.jsonl whose
// entries include 3f2a9c1e, a CHANGELOG.md, events and transcripts), with
// the binaries built once on PATH, HOME and AGENTUTILS_HOME inside the
// copy, and every provider of the catalog pointed by models.toml at one fake
// server (internal/fakellm, fakeModel) that answers by the request: a commit
// message, a split plan, or a line of text. $S, $OLD, $T and $TOKEN are set as the examples
// assume. An example that cannot run offline is in skipExamples with the
// reason (the test fails when a skipped example is no longer printed); the
// agent-mcp examples that connect to a server are skipped by needsNetwork;
// those using GNU parallel or jq skip when the program is absent; an example
// that undoes another (remove after add) starts from it (setupFor).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/testbin"
	"github.com/agentutils/agentutils/lib/session"
)

// skipExamples are the examples that cannot run here, with the reason; a
// README block is named by its first line.
var skipExamples = map[string]string{
	"agent": "interactive: needs a terminal (cmd/agent's tests drive it in a pty)",
	`agent --plan "add a --json flag to the list command"`:                                                  "interactive: needs a terminal",
	`agent -n "add a --json flag to the list command"`:                                                      "interactive: needs a terminal",
	"agent --model anthropic/claude-sonnet-4-5 --thinking high":                                             "interactive: needs a terminal",
	`agent --yes --tools-cmd "agent-tool serve --read-only"`:                                                "interactive: needs a terminal",
	"make build && export PATH=$PWD/bin:$PATH":                                                              "starts the interactive agent (needs a terminal)",
	"scripts/agent                                # continue the latest session here":                       "interactive: needs a terminal",
	"make demo    # the agent fixes a failing test in a scratch git repository, offline":                    "make test itself; make demo is scripts/demo, run by testdata/script/demo.txtar",
	"agent-mcp add everything -- npx -y @modelcontextprotocol/server-everything":                            "npx downloads server-everything (scripts/interop-mcp runs it)",
	"docker build -f deploy/Dockerfile -t agentutils-batch .           # then push where the cluster pulls": "needs docker and a Kubernetes cluster (scripts/interop-deploy)",
	"agent-batch -S 2/:,2/build@host2 -o /shared/out tasks.jsonl":                                           "ssh to another host (scripts/interop-batch runs agent-batch -S against sshd on the loopback)",
	`agent-mcp serve --http 127.0.0.1:8765 --token "$TOKEN"`:                                                "a server that runs until stopped (cmd/agent-mcp's serve tests)",
}

// needsNetwork: the agent-mcp examples that connect to a server (npx
// downloads server-everything; github, linear, slack are remote services).
// scripts/interop-mcp runs them against the real servers. The ones that
// only edit or show the configuration (servers, add, remove, enable,
// disable, cache) and serve run here.
var mcpConnects = regexp.MustCompile(`agent-mcp (list|tools|call|resources|read|prompt|auth|complete)\b|agent-mcp bridge`)

func needsNetwork(ex string) bool { return mcpConnects.MatchString(ex) }

// setupFor: examples that undo another one start from its result.
var setupFor = map[string]string{
	"agent-mcp remove --scope project fs":   "agent-mcp add --scope project fs -- mcp-server-filesystem /srv 2>/dev/null",
	"agent-session stats out/results.jsonl": "agent-batch -j 4 -o out tasks.jsonl >/dev/null",
}

type example struct {
	where string // FILE:LINE
	text  string
}

func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every documented example")
	}
	root, err := testbin.Root()
	if err != nil {
		t.Fatal(err)
	}
	exs := collectExamples(t, root)
	if len(exs) < 100 {
		t.Fatalf("found %d examples; the extraction rule broke", len(exs))
	}
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New()
	srv.Answer = fakeModel
	t.Cleanup(srv.Close)
	tmpl := t.TempDir()
	buildFixture(t, root, bin, tmpl, srv.URL)

	seen := map[string]bool{}
	for _, ex := range exs {
		key, _, _ := strings.Cut(ex.text, "\n")
		seen[key] = true
		ex := ex
		t.Run(ex.where, func(t *testing.T) {
			if why, ok := skipExamples[key]; ok {
				t.Skip(why)
			}
			for word, prog := range map[string]string{"parallel ": "parallel", "jq ": "jq"} {
				if _, err := exec.LookPath(prog); err != nil && strings.Contains(ex.text, word) {
					t.Skipf("needs %s, which make test does not install", prog)
				}
			}
			if needsNetwork(ex.text) {
				t.Skip("talks to a real MCP server (scripts/interop-mcp runs these)")
			}
			t.Parallel()
			runExample(t, root, bin, tmpl, srv.URL, ex)
		})
	}
	for ex, why := range skipExamples {
		if why != "" && !seen[ex] {
			t.Errorf("skipExamples lists %q, which no document prints any more", ex)
		}
	}
}

// collectExamples applies the rule at the top of this file.
func collectExamples(t *testing.T, root string) []example {
	var out []example
	mans, _ := filepath.Glob(filepath.Join(root, "man", "*.1"))
	sort.Strings(mans)
	for _, f := range append(mans, filepath.Join(root, "man", "agentutils.7")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := "man/" + filepath.Base(f)
		lines := strings.Split(string(data), "\n")
		want, in := false, false
		var block []string
		start := 0
		for i, l := range lines {
			switch {
			case l == "Examples:" || (strings.HasSuffix(name, ".7") && l == ".SH SYNOPSIS"):
				want = true
			case want && l == ".EX":
				in, start, block = true, i+2, nil
			case in && l == ".EE":
				out = append(out, joinLines(name, start, block)...)
				in, want = false, false
			case in:
				block = append(block, unroff(l))
			case want && l != ".PP":
				want = false
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	in, start := false, 0
	var block []string
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case !in && l == "```sh":
			in, start, block = true, i+2, nil
		case in && l == "```":
			out = append(out, example{where: fmt.Sprintf("README.md:%d", start), text: strings.Join(block, "\n")})
			in = false
		case in:
			block = append(block, l)
		}
	}
	return out
}

// joinLines turns a block into examples: continued lines joined, blank and
// comment lines dropped.
func joinLines(name string, first int, block []string) []example {
	var out []example
	var cur []string
	at := 0
	for i, l := range block {
		if len(cur) == 0 {
			if s := strings.TrimSpace(l); s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			at = first + i
		}
		if s, ok := strings.CutSuffix(strings.TrimRight(l, " "), `\`); ok {
			cur = append(cur, strings.TrimSpace(s))
			continue
		}
		cur = append(cur, strings.TrimSpace(l))
		out = append(out, example{where: fmt.Sprintf("%s:%d", name, at), text: strings.Join(cur, " ")})
		cur = nil
	}
	return out
}

// unroff undoes the escapes internal/app/man.go writes.
func unroff(l string) string {
	return strings.NewReplacer(`\-`, "-", `\e`, `\`, `\[u2026]`, "…", `\(aq`, "'", `\&`, "").Replace(l)
}

func runExample(t *testing.T, root, bin, tmpl, url string, ex example) {
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.CopyFS(dir, os.DirFS(tmpl)); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, ".home")
	writeStore(t, dir, home)
	for _, l := range []string{"scripts", "deploy"} {
		must(t, os.Symlink(filepath.Join(root, l), filepath.Join(dir, l)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := ex.text
	if pre, ok := setupFor[ex.text]; ok {
		script = pre + "\n" + script
	}
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, exampleEnv(root, bin, dir), nil
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("%s\n$ %s\n%s\n%v", ex.where, ex.text, tail(out.String(), 3000), err)
	}
}

// exampleEnv is the environment of an example run in dir.
func exampleEnv(root, bin, dir string) []string {
	home := filepath.Join(dir, ".home")
	return []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + filepath.Join(home, "user"),
		"AGENTUTILS_HOME=" + home,
		"GOCACHE=" + goEnv("GOCACHE"), "GOPATH=" + goEnv("GOPATH"), "GOFLAGS=-mod=mod",
		"NO_COLOR=1", "TERM=dumb", "LANG=C.UTF-8",
		"S=" + filepath.Join(dir, "s.jsonl"), "OLD=b0000003", "T=3f2a9c1e", "TOKEN=sk-example-token",
		"FAKE_KEY=sk-fake-0123456789",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(dir, ".gitconfig"), "GIT_CONFIG_NOSYSTEM=1",
		"AGENT_TEST_REPO=" + root,
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

var goEnvCache sync.Map

func goEnv(k string) string {
	if v, ok := goEnvCache.Load(k); ok {
		return v.(string)
	}
	b, _ := exec.Command("go", "env", k).Output()
	v := strings.TrimSpace(string(b))
	goEnvCache.Store(k, v)
	return v
}

// writeModels points every provider the examples name at the fake server.
func writeModels(t *testing.T, home, url string) {
	var b strings.Builder
	for _, p := range []string{"anthropic", "openai", "google"} {
		fmt.Fprintf(&b, "[providers.%s]\nbaseUrl = %q\napiKey = \"FAKE_KEY\"\n\n", p, url)
	}
	must(t, os.MkdirAll(filepath.Join(home, "user"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, "models.toml"), []byte(b.String()), 0o644))
}

// writeStore puts s.jsonl into the session store for the project's
// directory too (resume 0a1b, list, usage find it there).
func writeStore(t *testing.T, dir, home string) {
	data, err := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	must(t, err)
	data = bytes.ReplaceAll(data, []byte("@CWD@"), []byte(dir))
	must(t, os.WriteFile(filepath.Join(dir, "s.jsonl"), data, 0o644))
	store := filepath.Join(home, "sessions", session.EncodeCwd(dir))
	must(t, os.MkdirAll(store, 0o755))
	must(t, os.WriteFile(filepath.Join(store, "2026-11-01T10-00-00-000Z_0a1b2c3d44556677.jsonl"), data, 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// buildFixture makes the project every example starts from.
func buildFixture(t *testing.T, root, bin, dir, url string) {
	long := strings.Repeat("The parser reads the header, then each entry, and checks the ids. ", 2000)
	files := map[string]string{
		"go.mod":                           "module example.com/app\n\ngo 1.22\n",
		"main.go":                          "package main\n\nimport \"fmt\"\n\n// TODO: read the name from the flags\nfunc main() {\n\tfmt.Println(Handler(\"world\"))\n}\n",
		"handler.go":                       "package main\n\n// Handler greets.\nfunc Handler(name string) string {\n\treturn \"hello \" + name\n}\n",
		"main_test.go":                     "package main\n\nimport \"testing\"\n\nfunc TestHandler(t *testing.T) {\n\tif Handler(\"x\") != \"hello x\" {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
		"src/add.go":                       "package src\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"app.log":                          "ok\nerror: disk full\nok\n",
		"README.md":                        "# app\n\nSays hello.\n",
		"CHANGELOG.md":                     "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- Greeting.\n",
		"msg.txt":                          "fix(parser): handled empty input\n",
		"calc.go":                          "package main\n\n// Sum adds.\nfunc Sum(a, b int) int { return a - b }\n",
		"fix.patch":                        "*** Begin Patch\n*** Update File: README.md\n@@\n-Says hello to a name.\n+Says hello to anyone.\n*** End Patch\n",
		".home/mcp.json":                   `{"mcpServers":{"everything":{"command":"npx","args":["-y","@modelcontextprotocol/server-everything"]},"github":{"url":"https://api.githubcopilot.com/mcp/"}}}` + "\n",
		".home/user/src/project/README.md": "# project\n",
		".gitconfig":                       "[user]\n\tname = Example\n\temail = example@example.com\n[init]\n\tdefaultBranch = main\n",
		".claude/settings.json":            "{}\n",
		"tasks.jsonl": `{"id":"t1","repo":".","prompt":"fix the test","check":"go test ./..."}` + "\n" +
			`{"id":"t2","repo":".","prompt":"add a test","check":"go vet ./..."}` + "\n" +
			`{"id":"t3","repo":".","prompt":"document Handler","check":"true"}` + "\n" +
			`{"id":"t4","repo":".","prompt":"say hello twice","check":"true"}` + "\n",
		"s.jsonl": strings.Join([]string{
			`{"type":"session","version":3,"id":"0a1b2c3d44556677","timestamp":"2026-11-01T10:00:00.000Z","cwd":"@CWD@"}`,
			`{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-11-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"fix the test"}],"timestamp":1793527201000}}`,
			`{"type":"message","id":"3f2a9c1e","parentId":"a0000001","timestamp":"2026-11-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Fixed. ` + long + `"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":{"input":0.0003,"output":0.00015,"cacheRead":0,"cacheWrite":0,"total":0.00045}},"stopReason":"stop","timestamp":1793527202000}}`,
			`{"type":"message","id":"b0000002","parentId":"3f2a9c1e","timestamp":"2026-11-01T10:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"now the docs"}],"timestamp":1793527203000}}`,
			`{"type":"message","id":"b0000003","parentId":"b0000002","timestamp":"2026-11-01T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":120,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":125,"cost":{"input":0.00036,"output":0.000075,"cacheRead":0,"cacheWrite":0,"total":0.000435}},"stopReason":"stop","timestamp":1793527204000}}`,
		}, "\n") + "\n",
		"turn.jsonl":   `{"type":"turn_end","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"path":"go.mod"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1793527205000}}` + "\n",
		"events.jsonl": `{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Hello **there**."}],"stopReason":"stop","timestamp":1793527205000}}` + "\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o644))
	}
	for _, f := range []struct{ from, to string }{
		{"lib/transcript/testdata/claude/parallel-calls.jsonl", ".home/user/.claude/projects/-home-me-app/5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f.jsonl"},
		{"lib/transcript/testdata/codex/apply-patch.jsonl", "rollout-2026-11-02T10-00-00-5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f.jsonl"},
		{"testdata/cassettes/demo.jsonl", "testdata/cassettes/demo.jsonl"},
		{"lib/transcript/testdata/gemini/session-rewind.jsonl", ".home/user/.gemini/tmp/0b7d/chats/session-2026-11-02T10-00-5b1c2d3e.jsonl"},
	} {
		data, err := os.ReadFile(filepath.Join(root, f.from))
		must(t, err)
		p := filepath.Join(dir, f.to)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, data, 0o644))
	}
	// an opencode storage directory, as it is
	oc := filepath.Join(root, "lib/transcript/testdata/opencode/storage")
	must(t, filepath.WalkDir(oc, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		to := filepath.Join(dir, ".home/user/.local/share/opencode/storage", strings.TrimPrefix(p, oc))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	}))
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+filepath.Join(dir, ".gitconfig"), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE=2026-11-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-11-01T10:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	must(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".home/\n.agentutils/\nscripts\ndeploy\ncassette.jsonl\nout/\n*.html\ntranscript.md\nplan.json\ntools.json\nanswer.txt\n"), 0o644))
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "chore: start")
	git("tag", "v1.0.0")
	must(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# app\n\nSays hello to a name.\n"), 0o644))
	git("commit", "-q", "-am", "docs: say what it does")
	git("init", "-q", "--bare", ".home/origin.git")
	git("remote", "add", "origin", filepath.Join(dir, ".home/origin.git"))
	git("push", "-q", "-u", "origin", "main")
	// the staged change the commit examples describe
	must(t, os.WriteFile(filepath.Join(dir, "handler.go"), []byte("package main\n\n// Handler greets; an empty name is the world.\nfunc Handler(name string) string {\n\tif name == \"\" {\n\t\tname = \"world\"\n\t}\n\treturn \"hello \" + name\n}\n"), 0o644))
	git("add", "handler.go")
	must(t, os.WriteFile(filepath.Join(dir, ".git", "COMMIT_EDITMSG"), []byte("fix: handle empty input\n"), 0o644))
	// the remote's URL must follow each copy: a relative one does
	git("remote", "set-url", "origin", ".home/origin.git")
	writeModels(t, filepath.Join(dir, ".home"), url)
	// what the examples that follow another one read: the plan of
	// `split --dry-run > plan.json`, and a recorded exchange.
	for _, c := range []string{"agent-commit split --dry-run > plan.json", "agent-commit msg --record cassette.jsonl > /dev/null"} {
		cmd := exec.Command("bash", "-e", "-c", c)
		cmd.Dir, cmd.Env = dir, exampleEnv(root, bin, dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("fixture: %s: %v\n%s", c, err, out)
		}
	}
}

// fakeModel answers every provider request by what it asks for: a split
// plan when the split_commit tool is offered, a commit message when the
// request asks for one, else a line of text, in the wire API the path names
// (fakellm.Reply: Anthropic Messages, OpenAI Responses and Chat
// Completions, Gemini).
func fakeModel(r fakellm.Request) fakellm.Step {
	reply := fakellm.Reply{ID: "msg_1", Model: "fake", Text: "Done: the change is in place."}
	switch {
	case bytes.Contains(r.Body, []byte(`split_commit`)):
		reply.Text, reply.Calls = "", []fakellm.Call{{ID: "toolu_1", Name: "split_commit",
			Input: json.RawMessage(`{"commits":[{"type":"fix","summary":"handle an empty name","changes":[{"path":"handler.go","kind":"all"}]}]}`)}}
	case bytes.Contains(r.Body, []byte(`\"summary\": \"...\"`)) || bytes.Contains(r.Body, []byte(`"summary": "..."`)):
		reply.Text = `{"type": "fix", "summary": "handle an empty name", "details": [], "changelog": {"CHANGELOG.md": {}}}`
	}
	return fakellm.Step{Body: reply.SSE(r.Path)}
}

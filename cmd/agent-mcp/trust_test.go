package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpdiscover"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
)

// trustProject is a project whose .mcp.json configures its own server
// (srv), under a home of its own, and a runner of agent-mcp in it (on a
// terminal or in pipes, with an answer on stdin).
type trustProject struct {
	home, proj, srv string
	run             func(tty bool, answer string, args ...string) (int, string, string)
}

func untrustedProject(t *testing.T) trustProject {
	p := trustProject{home: t.TempDir(), proj: t.TempDir(), srv: filepath.Join(testServer(t), "mcptestserver")}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": map[string]any{"command": p.srv}}})
	if err := os.WriteFile(filepath.Join(p.proj, ".mcp.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	p.run = func(tty bool, answer string, args ...string) (int, string, string) {
		var out, errb strings.Builder
		env := &app.Env{Stdin: strings.NewReader(answer), Stdout: &out, Stderr: &errb, Dir: p.proj, Now: time.Now,
			StdinTTY: tty, StderrTTY: tty, Getenv: homeGetenv(p.home, nil)}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		code := app.Run(ctx, newApp, env, append([]string{"agent-mcp"}, args...))
		return code, out.String(), errb.String()
	}
	return p
}

// TestTrustPrompt: on a terminal, a command that would run a project's own
// servers asks once (yes remembers, once does not, no keeps them off); in
// pipes it never asks; --trust needs no answer.
func TestTrustPrompt(t *testing.T) {
	p := untrustedProject(t)
	home, proj, srv, run := p.home, p.proj, p.srv, p.run
	call := []string{"call", "--text", "proj", "echo", `{"message":"from the project"}`}
	const prompt = "Use them? [y] yes, and trust this project from now on; [o] only this once; [N] no: "

	code, _, errs := run(false, "y\n", call...)
	if code != exit.Usage || strings.Contains(errs, prompt) || !strings.Contains(errs, `server "proj" is configured by the untrusted project`) {
		t.Fatalf("in a pipe: exit %d, %s", code, errs)
	}
	code, _, errs = run(true, "n\n", call...)
	if code != exit.Usage || !strings.Contains(errs, "configures MCP servers that run commands from the repository:\n  proj: "+srv+" (") || !strings.Contains(errs, prompt) {
		t.Fatalf("answered no: exit %d, %s", code, errs)
	}
	code, out, errs := run(true, "o\n", call...)
	if code != 0 || out != "from the project\n" || !strings.Contains(errs, prompt) {
		t.Fatalf("answered once: exit %d, %q, %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(home, "trust.json")); err == nil {
		t.Fatal("once wrote trust.json")
	}
	// bridge never asks (its stdin is the protocol): the project's servers stay off.
	hello := `{"type":"hello","cwd":"` + proj + `"}` + "\n"
	if code, out, errs := run(true, hello, "bridge"); code != 0 || strings.Contains(errs, prompt) || strings.Contains(out, "mcp__proj__") ||
		!strings.Contains(errs, "ignoring the project's MCP servers (proj)") {
		t.Fatalf("bridge: exit %d, %s, %s", code, out, errs)
	}
	if code, out, errs := run(false, "", append(call, "--trust")...); code != 0 || out != "from the project\n" || strings.Contains(errs, prompt) {
		t.Fatalf("--trust: exit %d, %q, %s", code, out, errs)
	}
	code, out, errs = run(true, "y\n", call...)
	if code != 0 || out != "from the project\n" || !strings.Contains(errs, "is trusted") {
		t.Fatalf("answered yes: exit %d, %q, %s", code, out, errs)
	}
	var list []struct{ Root, TrustedAt string }
	data, _ := os.ReadFile(filepath.Join(home, "trust.json"))
	if err := json.Unmarshal(data, &list); err != nil || len(list) != 1 || list[0].Root != proj || list[0].TrustedAt == "" {
		t.Fatalf("trust.json: %s (%v)", data, err)
	}
	// Remembered: no question, in a pipe too.
	if code, out, errs := run(false, "", call...); code != 0 || out != "from the project\n" || strings.Contains(errs, prompt) {
		t.Fatalf("after yes: exit %d, %q, %s", code, out, errs)
	}
}

// TestTrustFileMalformed: a trust file that is not a list of {root} is
// reported the same way (the file, the line, exit 2) whether it is read to
// decide trust or to record a "yes", and is left as it was; --trust does
// not need it.
func TestTrustFileMalformed(t *testing.T) {
	p := untrustedProject(t)
	home, run := p.home, p.run
	trustFile := filepath.Join(home, "trust.json")
	call := []string{"call", "--text", "proj", "echo", `{"message":"hi"}`}
	for _, c := range []struct{ data, want string }{
		{"[\n  {\"root\": \"/elsewhere\"},\n  {\"root\": }\n]\n", "agent-mcp: trust file " + trustFile + ": line 3: invalid character '}' looking for beginning of value (fix or remove it"},
		{`[{"root":"/elsewhere"},{"root":5}]`, "agent-mcp: trust file " + trustFile + `: entry 2: "root" must be a directory name`},
	} {
		if err := os.WriteFile(trustFile, []byte(c.data), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, tty := range []bool{false, true} { // looked up; looked up before a "yes" would record
			code, _, errs := run(tty, "y\n", call...)
			if code != exit.Usage || !strings.Contains(errs, c.want) || strings.Contains(errs, "Use them?") {
				t.Errorf("tty %v, %q: exit %d, stderr %s", tty, c.data, code, errs)
			}
		}
		if got, _ := os.ReadFile(trustFile); string(got) != c.data {
			t.Errorf("the trust file changed: %q", got)
		}
		if code, out, errs := run(false, "", append(call, "--trust")...); code != 0 || out != "hi\n" {
			t.Errorf("--trust: exit %d, %q, %s", code, out, errs)
		}
	}
	// recordTrust itself (reached when the file breaks between the lookup
	// and the answer) reports the same error as the lookup.
	r := &runner{dirs: dirs.Dirs{Data: home}}
	if err := os.WriteFile(trustFile, []byte(`{`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, lookErr := mcpdiscover.IsTrusted(r.trustFile(), r.cwd, nil, nil)
	recErr := r.recordTrust()
	if lookErr == nil || recErr == nil || lookErr.Error() != recErr.Error() || exit.Code(recErr) != exit.Usage {
		t.Errorf("isTrusted: %v; recordTrust: %v", lookErr, recErr)
	}
}

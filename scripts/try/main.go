// Command try runs the interactive agent without a key: the fake provider
// (internal/fakellm in agent mode, in this process) as the model, a scratch
// home so your own settings and sessions stay as they are, and agent in
// this terminal in a scratch git repository (a hello.go to look at), or in
// DIR with -dir. `make try` builds the binaries first.
//
//	make try                          # in the repository
//	go run ./scripts/try -dir . -- --plan   # flags after -- go to agent
//
// The fake model answers by the prompt's words: RUN `CMD` calls bash with
// CMD, EDIT writes note.txt, EDIT `FILE` `OLD` `NEW` edits FILE (with gopls
// on PATH, `make gopls`, its card shows the errors the edit made), PLAN
// presents a plan (plan mode), SEARCH `QUERY` searches the web (through
// the back-end configured: web_search.mcp or a key), ASK asks a
// question, TASK starts a sub-agent, JOB `CMD` a background job; anything
// else gets a greeting. The scratch home and repository are removed on
// exit.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/agentutils/agentutils/internal/fakellm"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("try", flag.ContinueOnError)
	dir := flags.String("dir", "", "run agent in `DIR` (default: a scratch git repository)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	args = flags.Args()
	agent, err := exec.LookPath("agent")
	if err != nil {
		fmt.Fprintln(os.Stderr, "try: agent is not on PATH: run `make try`, or `make build` and put bin/ on PATH")
		return 2
	}
	home, err := os.MkdirTemp("", "agentutils-try-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "try:", err)
		return 1
	}
	defer os.RemoveAll(home)
	if *dir == "" {
		*dir = filepath.Join(home, "project")
		hello := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"
		if err := scratchRepo(*dir, map[string]string{"hello.go": hello, "go.mod": "module hello\n\ngo 1.22\n"}); err != nil {
			fmt.Fprintln(os.Stderr, "try:", err)
			return 1
		}
	}
	srv := fakellm.New()
	srv.Agent = home
	defer srv.Close()
	models := fakellm.ModelsTOML(srv.URL, "fake", "anthropic-messages", "fake-model", 200000)
	if err := os.WriteFile(filepath.Join(home, "models.toml"), []byte(models), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "try:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "try: the model is a fake that answers by your words: RUN `ls -l` (a bash call), EDIT, EDIT `hello.go` `\"hello\"` `hello`, SEARCH `go 1.26`, PLAN, ASK, TASK; anything else gets a greeting. ^D exits.")
	cmd := exec.Command(agent, append([]string{"--model", "fake/fake-model"}, args...)...)
	cmd.Dir = *dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "AGENTUTILS_HOME="+home, "FAKE_KEY=none")
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		return exitErr.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "try:", err)
		return 1
	}
	return 0
}

// scratchRepo makes a git repository in dir with files, committed.
func scratchRepo(dir string, files map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	git := exec.Command("sh", "-c", "git init -q && git add . && git -c user.name=try -c user.email=try@example.com commit -qm start")
	git.Dir = dir
	if out, err := git.CombinedOutput(); err != nil {
		return fmt.Errorf("git: %v: %s", err, out)
	}
	return nil
}

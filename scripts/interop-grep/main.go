// Command interop-grep runs the same queries through agent-grep and
// ripgrep 13 (the peer whose behaviour agent-grep copies) and compares
// their output byte for byte, with the exit status: over a generated
// edge-case tree (nested .gitignore with negations, dir-only and anchored
// patterns, hidden, binary, CRLF, non-UTF-8, long lines, empty files,
// unicode, compressed files) and over $(go env GOROOT)/src. rg runs with
// --sort path (agent-grep's order) and -j1 beside agent-grep's -j1, or
// both with -j2 where the lines may come in any order; --json's elapsed
// times, --stats' seconds and the "rg: " / "agent-grep: " prefixes of
// messages are masked. Each difference is printed with its query and a
// unified diff; it exits 1 when a query differs. Skips with a notice when
// rg 13 is not installed.
//
//	make build && go run ./scripts/interop-grep [-v] [-keep]
//
// -v prints each query that agrees; -keep keeps the tree and prints where.
// AG names another agent-grep binary (default bin/agent-grep).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/shell"

	"github.com/agentutils/agentutils/scripts/internal/peerdiff"
)

func main() {
	verbose := flag.Bool("v", false, "print each query that agrees")
	keep := flag.Bool("keep", false, "keep the generated tree and print where it is")
	flag.Parse()
	os.Exit(run(*verbose, *keep))
}

func run(verbose, keep bool) int {
	if err := peerdiff.Rg13(); err != nil {
		fmt.Println(err.Error() + ": skipped")
		return 0
	}
	ag, err := peerdiff.AgentGrep()
	if err != nil {
		return fatal(err)
	}
	dir, err := os.MkdirTemp("", "interop-grep-")
	if err != nil {
		return fatal(err)
	}
	if keep {
		fmt.Println("tree:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	// A private home: its global git ignore file, no system git config.
	for k, v := range map[string]string{"HOME": dir + "/home", "XDG_CONFIG_HOME": dir + "/home/.config",
		"GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1"} {
		os.Setenv(k, v)
	}
	if err := peerdiff.WriteTree(dir, map[string]string{"home/.config/git/ignore": "*.globalign\n"}); err != nil {
		return fatal(err)
	}
	if err := edgeTree(filepath.Join(dir, "tree")); err != nil {
		return fatal(err)
	}
	if err := outerTrees(dir); err != nil {
		return fatal(err)
	}
	s := &suite{ag: ag, dir: dir, cwd: filepath.Join(dir, "tree"), verbose: verbose, vars: map[string]string{"dir": dir}}
	treeCases(s)
	if goroot, err := exec.Command("go", "env", "GOROOT").Output(); err == nil && isDir(filepath.Join(strings.TrimSpace(string(goroot)), "src")) {
		s.cwd = filepath.Join(strings.TrimSpace(string(goroot)), "src")
		for _, q := range gorootCases {
			s.compare("(GOROOT)", s.cwd, "", false, q)
		}
	} else {
		fmt.Println("GOROOT/src not found: the Go tree queries are skipped")
	}
	if s.err != nil {
		return fatal(s.err)
	}
	fmt.Printf("agent-grep vs rg: %d queries, %d identical, %d differ\n", s.pass+s.fail, s.pass, s.fail)
	if s.fail > 0 {
		return 1
	}
	return 0
}

// suite runs the queries, counting those that agree and printing those that
// do not.
type suite struct {
	ag, dir, cwd string
	verbose      bool
	vars         map[string]string // $dir, and the loops' variables
	pass, fail   int
	err          error // the first failure to set a query up: the run stops
}

// set gives $name a value for the queries that follow.
func (s *suite) set(name, value string) { s.vars[name] = value }

// check runs a query (shell words: quotes, $variables; NAME=VALUE words
// first are the environment of both) in both with stdin empty.
func (s *suite) check(q string) { s.compare("", s.cwd, "", false, q) }

// checkset runs both with two threads and no sort: the same lines in any
// order.
func (s *suite) checkset(q string) { s.compare("(any order)", s.cwd, "", true, q) }

// checkin pipes the file input (relative to the current directory) to both.
func (s *suite) checkin(input, q string) { s.compare("", s.cwd, input, false, q) }

// compare runs one query through rg and agent-grep and counts it.
func (s *suite) compare(kind, dir, input string, anyOrder bool, q string) {
	if s.err != nil {
		return
	}
	words, err := shell.Fields(q, func(name string) string { return s.vars[name] })
	if err != nil {
		s.err = fmt.Errorf("query %q: %v", q, err)
		return
	}
	var env []string
	for len(words) > 0 && isAssignment(words[0]) {
		env, words = append(env, words[0]), words[1:]
	}
	rgArgs, agArgs := append([]string{"--sort", "path", "--no-config"}, words...), append([]string{"-j1"}, words...)
	if anyOrder {
		rgArgs, agArgs = append([]string{"-j2", "--no-config"}, words...), append([]string{"-j2"}, words...)
	}
	want, err := s.output(dir, input, env, "rg", rgArgs, anyOrder)
	if err == nil {
		var got []byte
		if got, err = s.output(dir, input, env, s.ag, agArgs, anyOrder); err == nil {
			s.count(kind, input, words, want, got)
			return
		}
	}
	s.err = err
}

// output is what a tool printed (stdout and stderr, then "exit N"), masked.
func (s *suite) output(dir, input string, env []string, tool string, args []string, sorted bool) ([]byte, error) {
	cmd := exec.Command(tool, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	if input != "" {
		f, err := os.Open(filepath.Join(dir, input))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	r, err := peerdiff.Run(cmd)
	if err != nil {
		return nil, err
	}
	out := peerdiff.GrepMask(r.WithStatus())
	if sorted {
		out = peerdiff.SortLines(out)
	}
	return out, nil
}

func (s *suite) count(kind, input string, words []string, want, got []byte) {
	name := strings.Join(words, " ")
	if input != "" {
		name = "< " + input + " " + name
	}
	if kind != "" {
		kind = " " + kind
	}
	if string(want) == string(got) {
		s.pass++
		if s.verbose {
			fmt.Printf("ok%s: %s\n", kind, name)
		}
		return
	}
	s.fail++
	fmt.Printf("DIFF%s: %s\n%s", kind, name, peerdiff.Diff("rg", "agent-grep", want, got, 20))
}

// cd makes dir (relative to the run's directory) the current directory of
// the queries that follow.
func (s *suite) cd(dir string) { s.cwd = s.path(dir) }

// path is name in the run's directory.
func (s *suite) path(name string) string { return filepath.Join(s.dir, name) }

func (s *suite) exists(name string) bool { _, err := os.Stat(s.path(name)); return err == nil }

// write, remove and git change the setup between queries.
func (s *suite) write(name, content string) {
	if err := peerdiff.WriteTree(s.dir, map[string]string{name: content}); err != nil && s.err == nil {
		s.err = err
	}
}

func (s *suite) remove(name string) {
	if err := os.Remove(s.path(name)); err != nil && s.err == nil {
		s.err = err
	}
}

func (s *suite) git(args ...string) {
	if err := peerdiff.Git(s.cwd, args...); err != nil && s.err == nil {
		s.err = err
	}
}

// isAssignment: NAME=VALUE, an environment variable for the query.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

func fatal(err error) int {
	fmt.Fprintln(os.Stderr, "interop-grep:", err)
	return 2
}

// Command bench-agent-commit times `agent-commit lint` beside commitlint
// (@commitlint/cli with config-conventional, pinned, from npm):
//
//  1. per message including start-up, one process per message, as a
//     commit-msg hook runs it: from stdin, and from a message file inside a
//     git repository (the hook's case: agent-commit lint FILE, commitlint
//     --edit FILE);
//  2. throughput: one process linting the whole interop corpus
//     (testdata/commit/messages.jsonl) as history (--from/--to), in
//     messages per second.
//
// The two run interleaved, round by round; each of our per-message runs is
// -p processes (the figure per process), each of commitlint's one. Every
// figure is the median [min–max] of the rounds, CPU (user+sys) beside wall.
// commitlint's side is skipped with a notice when npm or node is absent.
//
//	go run ./scripts/bench-agent-commit -runs 11 -p 50
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

const commitlintVersion = "20.5.3"

var (
	runs  = flag.Int("runs", 11, "interleaved rounds of the per-message figures")
	procs = flag.Int("p", 50, "agent-commit processes per per-message run")
	rt    = flag.Int("rt", 5, "rounds of the throughput figure")
)

func main() { bench.Main("bench-agent-commit", run) }

func run() error {
	root, err := bench.Root()
	if err != nil {
		return err
	}
	ac := root + "/bin/agent-commit"
	tmp, err := os.MkdirTemp("", "bench-agent-commit")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	prefix := bench.NPMPrefix("COMMITLINT_DIR", "commitlint-"+commitlintVersion)
	cl := ""
	if bin, err := bench.NPM(prefix, "@commitlint/cli@"+commitlintVersion, "@commitlint/config-conventional@"+commitlintVersion); err != nil {
		bench.Skipped("bench-agent-commit", "commitlint", err)
	} else {
		cl = filepath.Join(bin, "commitlint")
	}
	const msg = "feat(api): add paging to the list endpoint"
	hook := filepath.Join(tmp, "hookrepo")
	if err := setup(tmp, prefix, cl != ""); err != nil {
		return err
	}
	if err := gitRun(tmp, "init", "-q", hook); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(hook, ".git", "COMMIT_EDITMSG"), []byte(msg+"\n\n# Please enter the commit message for your changes.\n"), 0o644); err != nil {
		return err
	}
	if err := setup(hook, prefix, cl != ""); err != nil {
		return err
	}
	peers := []bench.Peer{
		{Name: "agent-commit stdin", Run: lint(tmp, *procs, msg, ac, "lint")},
		{Name: "agent-commit file", Run: lint(hook, *procs, "", ac, "lint", ".git/COMMIT_EDITMSG")},
	}
	if cl != "" {
		peers = append(peers,
			bench.Peer{Name: "commitlint stdin", Run: lint(tmp, 1, msg, cl)},
			bench.Peer{Name: "commitlint file", Run: lint(hook, 1, "", cl, "--edit", ".git/COMMIT_EDITMSG")})
	}
	r, err := bench.Interleave(*runs, peers...)
	if err != nil {
		return err
	}
	fmt.Printf("per message including start-up, medians [min–max] of %d interleaved rounds (%d processes per round for agent-commit, 1 for commitlint); load %s\n",
		*runs, *procs, bench.Load())
	var t bench.Table
	t.Row("", "", "wall", "CPU")
	for _, c := range []struct{ label, key string }{{"stdin", "stdin"}, {"commit-msg file in a repository", "file"}} {
		for _, tool := range []string{"agent-commit", "commitlint"} {
			if tool == "commitlint" && cl == "" {
				continue
			}
			t.Row("  "+c.label, tool, r.Stat(tool+" "+c.key, bench.WallMS).Fmt(2, "ms"), r.Stat(tool+" "+c.key, bench.CPUMS).Fmt(2, "ms"))
		}
		if cl != "" {
			t.Row("  "+c.label, "commitlint/ours", r.Ratio("commitlint "+c.key, "agent-commit "+c.key, bench.WallMS),
				r.Ratio("commitlint "+c.key, "agent-commit "+c.key, bench.CPUMS))
		}
	}
	fmt.Print(t.String())
	return throughput(root, tmp, prefix, ac, cl)
}

// setup writes commitlint's config into dir and links its node_modules there.
func setup(dir, prefix string, linked bool) error {
	if err := os.WriteFile(filepath.Join(dir, ".commitlintrc.json"), []byte(`{"extends":["@commitlint/config-conventional"]}`+"\n"), 0o644); err != nil {
		return err
	}
	if !linked {
		return nil
	}
	return os.Symlink(filepath.Join(prefix, "node_modules"), filepath.Join(dir, "node_modules"))
}

// lint runs argv n times in dir, stdin the message (or empty), and returns
// the cost per process. An exit status above 1 (both linters exit 1 for a
// message with problems) fails the run: a process that failed to start its
// work measures nothing.
func lint(dir string, n int, stdin string, argv ...string) func() (bench.Cost, error) {
	return func() (bench.Cost, error) {
		var sum bench.Cost
		for range n {
			c := exec.Command(argv[0], argv[1:]...)
			c.Dir, c.Stdin = dir, strings.NewReader(stdin+"\n")
			cost, err := bench.Run(c)
			if err != nil && bench.ExitCode(err) != 1 {
				return sum, err
			}
			sum.Wall += cost.Wall
			sum.CPU += cost.CPU
			sum.RSS = max(sum.RSS, cost.RSS)
		}
		sum.Wall /= time.Duration(n)
		sum.CPU /= time.Duration(n)
		return sum, nil
	}
}

func gitRun(dir string, args ...string) error {
	c := exec.Command("git", args...)
	c.Dir, c.Stderr = dir, os.Stderr
	return c.Run()
}

// throughput: the whole corpus as the history of a repository, linted by one process.
func throughput(root, tmp, prefix, ac, cl string) error {
	repo := filepath.Join(tmp, "repo")
	if err := gitRun(tmp, "init", "-q", repo); err != nil {
		return err
	}
	n, err := importCorpus(repo, filepath.Join(root, "testdata/commit/messages.jsonl"))
	if err != nil {
		return err
	}
	peers := []bench.Peer{{Name: "agent-commit", Run: lint(repo, 1, "", ac, "lint", "--from", "base", "--to", "main", "--format", "json")}}
	if cl != "" {
		if err := setup(repo, prefix, true); err != nil {
			return err
		}
		peers = append(peers, bench.Peer{Name: "commitlint", Run: lint(repo, 1, "", cl, "--from", "base", "--to", "main")})
	}
	r, err := bench.Interleave(*rt, peers...)
	if err != nil {
		return err
	}
	fmt.Printf("throughput over the corpus (%d commits), medians [min–max] of %d interleaved rounds:\n", n, *rt)
	var t bench.Table
	for _, p := range peers {
		w := r.Stat(p.Name, bench.WallMS)
		t.Row("  "+p.Name, fmt.Sprintf("%.0f messages/s", float64(n)/(w.Median/1000)), w.Fmt(0, "ms"), "CPU "+r.Stat(p.Name, bench.CPUMS).Fmt(0, "ms"))
	}
	if cl != "" {
		t.Row("  commitlint/ours", "", r.Ratio("commitlint", "agent-commit", bench.WallMS), "CPU "+r.Ratio("commitlint", "agent-commit", bench.CPUMS))
	}
	fmt.Print(t.String())
	return nil
}

// importCorpus makes the corpus's messages the history of main, after a
// root commit tagged base, and returns how many there are.
func importCorpus(repo, corpus string) (int, error) {
	f, err := os.Open(corpus)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	msgs := []string{"chore: base"}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m struct{ Message string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return 0, fmt.Errorf("%s: %w", corpus, err)
		}
		msgs = append(msgs, m.Message)
	}
	var b strings.Builder
	for i, m := range msgs {
		m += "\n"
		fmt.Fprintf(&b, "commit refs/heads/main\ncommitter B <b@example.com> %d +0000\ndata %d\n%s", 1700000000+i, len(m), m)
		if i == 0 {
			b.WriteString("deleteall\n")
		}
		b.WriteString("\n")
	}
	c := exec.Command("git", "fast-import", "--quiet")
	c.Dir, c.Stdin, c.Stderr = repo, strings.NewReader(b.String()), os.Stderr
	if err := c.Run(); err != nil {
		return 0, fmt.Errorf("git fast-import: %w", err)
	}
	if err := gitRun(repo, "tag", "base", "main~"+fmt.Sprint(len(msgs)-1)); err != nil {
		return 0, err
	}
	return len(msgs) - 1, nil
}

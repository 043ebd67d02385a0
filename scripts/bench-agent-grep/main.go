// Command bench-agent-grep runs agent-grep against ripgrep (and GNU grep -r,
// git grep --no-index where the query has a peer form) on two inputs: the
// Go source tree ($(go env GOROOT)/src, warm cache) and one generated file
// of >= 300 MB (the tree's .go files concatenated, kept in $BENCH_DIR
// between runs). The rows are issue #21's table: literal, alternation,
// class-led regexes, -c ., -c ^\s*$, \p{Greek}, -v -c e, -F -f with 500
// literals, -n e (and with --color=always, and -C1 e: the output paths).
// Each query runs RUNS times, interleaved so that load on the machine falls
// on all tools alike; it prints the median wall time, the median CPU time
// (user+sys, steadier than wall on a busy machine), the median peak RSS,
// and rg's times over ours (above 1: we are faster) with the spread of
// the CPU ratio over the rounds. A run longer than LIMIT seconds (default
// 60) is stopped and shown as ">LIMITs"; a tool slower than 5 s is timed
// once. Before the rows, the time of cat over the same files: the floor the
// literal rows aim at. Asserts nothing; a peer that is not installed gets
// "-".
//
//	RUNS=5 TREE=/some/dir ONLY=tree|file go run ./scripts/bench-agent-grep
package main

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/peerdiff"
	"github.com/agentutils/agentutils/scripts/internal/runcost"
)

// query is a row: agent-grep's and rg's arguments, and GNU grep's and git
// grep's (nil: no peer form).
type query struct {
	name        string
	args, gargs []string
}

// queries; @LITS@ is the file of 500 literals.
var queries = []query{
	{"literal func main", []string{"-n", "func main"}, []string{"-n", "func main"}},
	{"4-way alternation", []string{"-n", "ErrUnexpectedEOF|ErrShortWrite|ErrNoProgress|ErrClosedPipe"},
		[]string{"-n", "-E", "ErrUnexpectedEOF|ErrShortWrite|ErrNoProgress|ErrClosedPipe"}},
	{"[A-Z][a-z]+ing", []string{"-n", "[A-Z][a-z]+ing"}, nil},
	{`\w+@\w+\.com`, []string{"-n", `\w+@\w+\.com`}, nil},
	{"-c .", []string{"-c", "."}, nil},
	{`-c ^\s*$`, []string{"-c", `^\s*$`}, nil},
	{`\p{Greek}`, []string{"-n", `\p{Greek}`}, nil},
	{"-v -c e", []string{"-v", "-c", "e"}, nil},
	{"-F -f 500 literals", []string{"-n", "-F", "-f", "@LITS@"}, nil},
	{"-n e", []string{"-n", "e"}, nil},
	{"--color=always -n e", []string{"--color=always", "-n", "e"}, nil},
	{"-C1 e", []string{"-C1", "e"}, nil},
	{"literal -i", []string{"-n", "-i", "errunexpectedeof"}, []string{"-n", "-i", "errunexpectedeof"}},
	{"word -w", []string{"-n", "-w", "Reader"}, []string{"-n", "-w", "Reader"}},
	{"no match", []string{"zzzqqqxxx_nomatch"}, []string{"zzzqqqxxx_nomatch"}},
	{"files --files", []string{"--files"}, nil},
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-agent-grep:", err)
		os.Exit(2)
	}
}

func run() error {
	runs, err := runcost.EnvCount("RUNS", 5)
	if err != nil {
		return err
	}
	limit, err := runcost.EnvCount("LIMIT", 60) // seconds
	if err != nil {
		return err
	}
	ag, err := peerdiff.AgentGrep()
	if err != nil {
		return err
	}
	tree := os.Getenv("TREE")
	if tree == "" {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %v", err)
		}
		tree = filepath.Join(strings.TrimSpace(string(goroot)), "src")
	}
	bdir := cmp.Or(os.Getenv("BENCH_DIR"), filepath.Join(os.TempDir(), "agent-grep-bench"))
	big := filepath.Join(bdir, "big", "big.txt")
	lits := filepath.Join(bdir, "lits500.txt")
	if err := inputs(tree, big, lits); err != nil {
		return err
	}
	b := &bench{ag: ag, lits: lits, runs: runs, limit: time.Duration(limit) * time.Second}
	for _, t := range []string{"rg", "grep", "git"} {
		if _, err := exec.LookPath(t); err == nil {
			b.have = append(b.have, t)
		}
	}
	if v, err := peerdiff.Version("rg"); err == nil {
		fmt.Println("peer:", v)
	}
	only := os.Getenv("ONLY")
	if only != "file" {
		if err := b.table(tree, queries); err != nil {
			return err
		}
	}
	if only != "tree" {
		qs := slices.DeleteFunc(slices.Clone(queries), func(q query) bool { return q.name == "files --files" })
		if err := b.table(filepath.Dir(big), qs); err != nil {
			return err
		}
	}
	fmt.Println("times in ms (medians); rg/ours above 1 means agent-grep is faster")
	return nil
}

// goFiles lists the tree's .go files in path order (bytewise).
func goFiles(tree string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".go") {
			names = append(names, p)
		}
		return err
	})
	slices.Sort(names)
	return names, err
}

// inputs writes, unless they are there: big, the tree's .go files
// concatenated until it holds 300 MB; lits, 500 identifiers of the tree
// (every 7th distinct one of its first 400 files: most occur, each a
// separate literal).
func inputs(tree, big, lits string) error {
	if fi, err := os.Stat(big); err == nil && fi.Size() >= 300_000_000 {
		if fi, err := os.Stat(lits); err == nil && fi.Size() > 0 {
			return nil
		}
	}
	files, err := goFiles(tree)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no .go files", tree)
	}
	if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
		return err
	}
	if fi, err := os.Stat(big); err != nil || fi.Size() < 300_000_000 {
		f, err := os.Create(big)
		if err != nil {
			return err
		}
		for size := int64(0); size < 300_000_000; {
			for _, p := range files {
				n, err := appendFile(f, p)
				if err != nil {
					f.Close()
					return err
				}
				size += n
			}
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(lits); err == nil && fi.Size() > 0 {
		return nil
	}
	var text strings.Builder
	for _, p := range files[:min(400, len(files))] {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text.Write(b)
	}
	ids := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{5,}`).FindAllString(text.String(), -1)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var picked []string
	for i := 6; i < len(ids) && len(picked) < 500; i += 7 {
		picked = append(picked, ids[i]+"\n")
	}
	return os.WriteFile(lits, []byte(strings.Join(picked, "")), 0o644)
}

func appendFile(w io.Writer, p string) (int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(w, f)
}

type bench struct {
	ag, lits string
	have     []string // the peers installed
	runs     int
	limit    time.Duration
}

// table prints the cat floor and a row per query, searching dir.
func (b *bench) table(dir string, qs []query) error {
	var size, n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			size, n = size+fi.Size(), n+1
			_, err = appendFile(io.Discard, p) // warm the cache
			return err
		}
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("input: %s (%d MB, %d files), %d runs each, %d CPUs, load %s\n", dir, size>>20, n, b.runs, runtime.NumCPU(), runcost.Load())
	floor, err := runcost.Rounds(b.runs, []runcost.Runner{{Name: "cat", Cmd: b.cmd(dir, "sh", "-c", "find . -type f -print0 | xargs -0 cat")}},
		runcost.Options{Limit: b.limit})
	if err != nil {
		return err
	}
	fmt.Printf("cat of every file (the memory-bandwidth floor): wall %s ms, cpu %s ms\n", b.ms(floor[0], runcost.WallMS), b.ms(floor[0], runcost.CPUMS))
	fmt.Printf("%-22s | %-20s | %-20s | %-13s | %-13s | %s\n", "", "agent-grep", "rg", "grep -r", "git grep", "rg/ours")
	fmt.Printf("%-22s | %6s %6s %6s | %6s %6s %6s | %6s %6s | %6s %6s | %s\n", "search", "wall", "cpu", "MB", "wall", "cpu", "MB", "wall", "cpu", "wall", "cpu", "wall  cpu (spread)")
	for _, q := range qs {
		if err := b.row(dir, q); err != nil {
			return err
		}
	}
	return nil
}

// cmd makes a run of name args... in dir, its output discarded.
func (b *bench) cmd(dir, name string, args ...string) func() *exec.Cmd {
	return func() *exec.Cmd {
		c := exec.Command(name, args...)
		c.Dir = dir
		return c
	}
}

func (b *bench) row(dir string, q query) error {
	subst := func(args []string) []string {
		out := slices.Clone(args)
		for i, a := range out {
			out[i] = strings.ReplaceAll(a, "@LITS@", b.lits)
		}
		return out
	}
	args := append(subst(q.args), ".")
	runners := []runcost.Runner{{Name: "ours", Cmd: b.cmd(dir, b.ag, args...)}}
	col := map[string]int{} // a peer's index in runners
	for _, t := range b.have {
		var c func() *exec.Cmd
		switch {
		case t == "rg":
			c = b.cmd(dir, "rg", args...)
		case q.gargs == nil:
			continue
		case t == "grep":
			// (GNU grep stops at the first match when its output is /dev/null: a pipe)
			c = b.cmd(dir, "sh", append([]string{"-c", `grep -r "$@" . | cat`, "sh"}, subst(q.gargs)...)...)
		case t == "git":
			c = b.cmd(dir, "git", append([]string{"grep", "--no-index"}, subst(q.gargs)...)...)
		}
		col[t] = len(runners)
		runners = append(runners, runcost.Runner{Name: t, Cmd: c})
	}
	costs, err := runcost.Rounds(b.runs, runners, runcost.Options{Limit: b.limit, Once: 5 * time.Second})
	if err != nil {
		return err
	}
	of := func(t string) []runcost.Cost {
		if i, ok := col[t]; ok {
			return costs[i]
		}
		return nil
	}
	ours, rg := costs[0], of("rg")
	ratio := "-"
	if ow, oc := runcost.Median(ours, runcost.WallMS), runcost.Median(ours, runcost.CPUMS); rg != nil && ow > 0 && oc > 0 {
		s := runcost.SpreadOf(runcost.Ratios(rg, ours, runcost.CPUMS))
		ratio = fmt.Sprintf("%.2f %.2f (%.2f-%.2f)", runcost.Median(rg, runcost.WallMS)/ow, runcost.Median(rg, runcost.CPUMS)/oc, s.Min, s.Max)
	}
	fmt.Printf("%-22s | %6s %6s %6s | %6s %6s %6s | %6s %6s | %6s %6s | %s\n", q.name,
		b.ms(ours, runcost.WallMS), b.ms(ours, runcost.CPUMS), mb(ours),
		b.ms(rg, runcost.WallMS), b.ms(rg, runcost.CPUMS), mb(rg),
		b.ms(of("grep"), runcost.WallMS), b.ms(of("grep"), runcost.CPUMS),
		b.ms(of("git"), runcost.WallMS), b.ms(of("git"), runcost.CPUMS), ratio)
	return nil
}

// ms is the median of a time of the runs in ms: "-" for none, ">LIMITs"
// past the limit.
func (b *bench) ms(cs []runcost.Cost, f func(runcost.Cost) float64) string {
	if len(cs) == 0 {
		return "-"
	}
	m := runcost.Median(cs, f)
	if m >= float64(b.limit.Milliseconds()) {
		return fmt.Sprintf(">%ds", int(b.limit.Seconds()))
	}
	return strconv.Itoa(int(m))
}

// mb is the median peak RSS of the runs in MB: "-" for none or unknown.
func mb(cs []runcost.Cost) string {
	m := runcost.Median(cs, runcost.RSSMB)
	if len(cs) == 0 || m < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", m)
}

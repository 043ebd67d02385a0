// Command bench-agent-grep runs agent-grep against ripgrep (and GNU grep -r,
// git grep --no-index where the query has a peer form) on two inputs: the
// Go source tree ($(go env GOROOT)/src, warm cache) and one generated file
// of >= 300 MB (the tree's .go files concatenated, kept in
// $BENCH_DIR/grep between runs). The rows are issue #21's table: literal,
// alternation, class-led regexes, -c ., -c ^\s*$, \p{Greek}, -v -c e, -F -f
// with 500 literals, -n e (and with --color=always, and -C1 e: the output
// paths). Each query runs -runs times, the tools interleaved round by
// round (scripts/internal/bench), each figure the median [min–max] of the
// rounds: wall, CPU (user+sys, steadier than wall on a busy machine) and
// peak RSS, then rg's over ours round by round (above 1: we are faster).
// A run longer than -limit is killed with what it started and marked; a
// tool slower than 5 s is timed once. Before the rows, cat over the same
// files: the floor the literal rows aim at. Asserts nothing; a peer that
// is not installed is left out.
//
//	go run ./scripts/bench-agent-grep -runs 5 -tree /some/dir -only tree|file
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/bench"
	"github.com/agentutils/agentutils/scripts/internal/peerdiff"
)

var (
	runs     = flag.Int("runs", 5, "interleaved rounds")
	limit    = flag.Duration("limit", time.Minute, "kill a run after this long")
	treeFlag = flag.String("tree", "", "the tree searched (default: $(go env GOROOT)/src)")
	only     = flag.String("only", "", "tree or file: only that input")
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

func main() { bench.Main("bench-agent-grep", run) }

func run() error {
	if _, err := bench.Root(); err != nil {
		return err
	}
	ag, err := peerdiff.AgentGrep()
	if err != nil {
		return err
	}
	tree := *treeFlag
	if tree == "" {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %v", err)
		}
		tree = filepath.Join(strings.TrimSpace(string(goroot)), "src")
	}
	bdir, err := bench.Dir("grep")
	if err != nil {
		return err
	}
	big := filepath.Join(bdir, "big", "big.txt")
	lits := filepath.Join(bdir, "lits500.txt")
	if *only == "tree" {
		big = "" // not searched: not written
	}
	if err := inputs(tree, big, lits); err != nil {
		return err
	}
	b := &grepBench{ag: ag, lits: lits}
	for _, t := range []string{"rg", "grep", "git"} {
		if bench.Have(t) {
			b.have = append(b.have, t)
		}
	}
	if v, err := peerdiff.Version("rg"); err == nil {
		fmt.Println("peer:", v)
	}
	if *only != "file" {
		if err := b.table(tree, queries); err != nil {
			return err
		}
	}
	if *only != "tree" {
		qs := slices.DeleteFunc(slices.Clone(queries), func(q query) bool { return q.name == "files --files" })
		if err := b.table(filepath.Dir(big), qs); err != nil {
			return err
		}
	}
	fmt.Println("medians [min–max]; rg/ours above 1 means agent-grep is faster")
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

// inputs writes, unless they are there: big (unless ""), the tree's .go files
// concatenated until it holds 300 MB; lits, 500 identifiers of the tree
// (every 7th distinct one of its first 400 files: most occur, each a
// separate literal).
func inputs(tree, big, lits string) error {
	if fi, err := os.Stat(big); big == "" || err == nil && fi.Size() >= 300_000_000 {
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
	if fi, err := os.Stat(big); big != "" && (err != nil || fi.Size() < 300_000_000) {
		if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
			return err
		}
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

type grepBench struct {
	ag, lits string
	have     []string // the peers installed
}

// table prints the cat floor and a row per query, searching dir.
func (b *grepBench) table(dir string, qs []query) error {
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
	fmt.Printf("input: %s (%d MB, %d files), %d interleaved rounds, %d CPUs, load %s\n", dir, size>>20, n, *runs, runtime.NumCPU(), bench.Load())
	var t bench.Table
	t.Row("search", "tool", "wall", "CPU", "peak RSS")
	floor, err := bench.Interleave(*runs, b.peer("cat", dir, "sh", "-c", "find . -type f -print0 | xargs -0 cat"))
	if err != nil {
		return err
	}
	t.Row(append([]string{"(the floor)", "cat"}, floor.Cells("cat", 0)...)...)
	for _, q := range qs {
		if err := b.row(&t, dir, q); err != nil {
			return err
		}
	}
	fmt.Print(t.String())
	return nil
}

// peer runs name args... in dir, its output discarded; a run past -limit
// is killed, and exit status 1 (nothing found) is no failure.
func (b *grepBench) peer(peer, dir, name string, args ...string) bench.Peer {
	return bench.Peer{Name: peer, Once: 5 * time.Second, Run: func() (bench.Cost, error) {
		c := exec.Command(name, args...)
		c.Dir = dir
		cost, err := bench.RunLimit(*limit, c)
		if errors.Is(err, bench.ErrLimit) || bench.ExitCode(err) == 1 {
			err = nil
		}
		return cost, err
	}}
}

func (b *grepBench) row(t *bench.Table, dir string, q query) error {
	subst := func(args []string) []string {
		out := slices.Clone(args)
		for i, a := range out {
			out[i] = strings.ReplaceAll(a, "@LITS@", b.lits)
		}
		return out
	}
	args := append(subst(q.args), ".")
	peers := []bench.Peer{b.peer("agent-grep", dir, b.ag, args...)}
	for _, tool := range b.have {
		switch {
		case tool == "rg":
			peers = append(peers, b.peer("rg", dir, "rg", args...))
		case q.gargs == nil:
		case tool == "grep":
			// (GNU grep stops at the first match when its output is /dev/null: a pipe)
			peers = append(peers, b.peer("grep -r", dir, "sh", append([]string{"-c", `grep -r "$@" . | cat`, "sh"}, subst(q.gargs)...)...))
		case tool == "git":
			peers = append(peers, b.peer("git grep", dir, "git", append([]string{"grep", "--no-index"}, subst(q.gargs)...)...))
		}
	}
	r, err := bench.Interleave(*runs, peers...)
	if err != nil {
		return err
	}
	name := q.name
	for _, p := range peers {
		row := append([]string{name, p.Name}, r.Cells(p.Name, 0)...)
		if slices.ContainsFunc(r[p.Name], func(c bench.Cost) bool { return c.TimedOut }) {
			row = append(row, fmt.Sprintf("killed at %s", *limit))
		}
		t.Row(row...)
		name = ""
	}
	if len(r["rg"]) > 0 {
		t.Row("", "rg/ours", r.Ratio("rg", "agent-grep", bench.WallMS), r.Ratio("rg", "agent-grep", bench.CPUMS), r.Ratio("rg", "agent-grep", bench.RSSMB))
	}
	return nil
}

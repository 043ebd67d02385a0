// Command interop-grep-rgtests runs ripgrep 13's integration tests, ported
// as data (scripts/testdata/rg13-cases.txt), through rg 13 and agent-grep
// in a directory holding the tests' SHERLOCK haystack, its compressed
// copies (the corpus's rg-fixtures) and the small files the tests make; it
// compares stdout and the exit status (rg with --sort path: agent-grep's
// order). It prints each difference with a diff and the counts, and exits 1
// on a difference that is not one of the deliberate ones listed below.
// Skips with a notice when rg 13 or the fixtures are absent.
//
//	make build && go run ./scripts/interop-grep-rgtests [-v]
//
// -v prints each case that agrees. CORPUS names the corpus (default
// ../shared/corpus), AG another agent-grep binary (default bin/agent-grep).
package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/peerdiff"
)

// deliberate are the differences the README (agent-grep's section) gives
// a reason for: each named case's difference is expected and counted apart.
var deliberate = map[string]string{
	"misc::compressed_xz":            "-z refuses xz by name (rg runs an external xz)",
	"misc::compressed_lz4":           "-z refuses lz4 by name (rg runs an external lz4)",
	"misc::compressed_lzma":          "-z refuses lzma by name (rg runs an external xz)",
	"misc::compressed_uncompress":    "-z refuses .Z by name (rg runs an external uncompress)",
	"feature::f993_null_data":        `--null-data is refused: lines end in \n`,
	"feature::f1207_ignore_encoding": "--encoding is refused: input is UTF-8, a BOM sniffed",
	"regression::r1573":              "-P is refused: the engine is RE2",
	"multiline::vc":                  "rg 13 bug: -U -v -c counts matches, of which an inverted line has none, and prints nothing; agent-grep counts the lines",
}

func main() {
	verbose := flag.Bool("v", false, "print each case that agrees")
	flag.Parse()
	os.Exit(run(*verbose))
}

func run(verbose bool) int {
	if err := peerdiff.Rg13(); err != nil {
		fmt.Println(err.Error() + ": skipped")
		return 0
	}
	fx := filepath.Join(cmp.Or(os.Getenv("CORPUS"), "../shared/corpus"), "rg-fixtures")
	if fi, err := os.Stat(fx); err != nil || !fi.IsDir() {
		fmt.Println(fx, "absent: skipped")
		return 0
	}
	ag, err := peerdiff.AgentGrep()
	if err != nil {
		return fatal(err)
	}
	cases, err := os.ReadFile("scripts/testdata/rg13-cases.txt")
	if err != nil {
		return fatal(err)
	}
	dir, err := os.MkdirTemp("", "interop-grep-rgtests-")
	if err != nil {
		return fatal(err)
	}
	defer os.RemoveAll(dir)
	for k, v := range map[string]string{"HOME": dir + "/home", "XDG_CONFIG_HOME": dir + "/home/.config",
		"GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1"} {
		os.Setenv(k, v)
	}
	os.Unsetenv("RIPGREP_CONFIG_PATH")
	t := filepath.Join(dir, "t")
	if err := haystack(t, fx); err != nil {
		return fatal(err)
	}
	stdin := filepath.Join(dir, "stdin")
	if err := os.WriteFile(stdin, []byte("Sherlock\n"), 0o644); err != nil {
		return fatal(err)
	}
	var same, differ, deliberately int
	for line := range strings.Lines(string(cases)) {
		c, ok := parseCase(line)
		if !ok {
			continue
		}
		input := ""
		if slices.Contains(c.args, "-") {
			input = stdin
		}
		sort := []string{"--sort", "path"} // rg refuses a second --sort: the case's own decides
		if slices.Contains(c.args, "--sort") || slices.Contains(c.args, "--sortr") {
			sort = nil
		}
		want, err := output(t, input, "rg", append(sort, c.args...))
		if err != nil {
			return fatal(err)
		}
		// (-j1: rg --sort path searches with one thread; a case's own -j comes later and wins)
		got, err := output(t, input, ag, append([]string{"-j1"}, c.args...))
		if err != nil {
			return fatal(err)
		}
		switch {
		case want.Status == got.Status && string(want.Out) == string(got.Out):
			same++
			if verbose {
				fmt.Println("ok", c.name)
			}
		case deliberate[c.name] != "":
			deliberately++
			fmt.Printf("DELIBERATE %s: %s\n", c.name, deliberate[c.name])
		default:
			differ++
			fmt.Printf("DIFF %s: rg %s (status rg %d, agent-grep %d)\n%s", c.name, strings.Join(c.args, " "), want.Status, got.Status,
				peerdiff.Diff("rg", "agent-grep", want.Out, got.Out, 12))
		}
	}
	fmt.Printf("rg 13 tests: %d identical, %d deliberately different (README), %d different\n", same, deliberately, differ)
	if differ > 0 {
		return 1
	}
	return 0
}

// rgCase is one line of rg13-cases.txt: a test's name and the arguments of
// its command.
type rgCase struct {
	name string
	args []string
}

// parseCase reads "name | arguments": arguments split on blanks, @SP@ a
// space inside one, @EMPTY@ an empty one. Comments (#) and blank lines are
// not cases.
func parseCase(line string) (rgCase, bool) {
	line = strings.TrimSuffix(line, "\n")
	if line == "" || strings.HasPrefix(line, "#") {
		return rgCase{}, false
	}
	name, args, ok := strings.Cut(line, " | ")
	if !ok {
		return rgCase{}, false
	}
	c := rgCase{name: name, args: []string{}}
	for _, a := range strings.Fields(args) {
		if a == "@EMPTY@" {
			a = ""
		}
		c.args = append(c.args, strings.ReplaceAll(a, "@SP@", " "))
	}
	return c, true
}

// output runs a tool in dir and returns its stdout (stderr dropped) and exit
// status.
func output(dir, input, tool string, args []string) (peerdiff.Result, error) {
	cmd := exec.Command(tool, args...)
	cmd.Dir, cmd.Stderr = dir, io.Discard
	if input != "" {
		f, err := os.Open(input)
		if err != nil {
			return peerdiff.Result{}, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	return peerdiff.Run(cmd)
}

// haystack writes the tests' directory t: sherlock and its compressed
// copies from the fixtures fx, and the small files the tests make, in a git
// repository.
func haystack(t, fx string) error {
	if err := os.MkdirAll(t, 0o755); err != nil {
		return err
	}
	if err := peerdiff.Git(t, "init", "-q", "."); err != nil {
		return err
	}
	if err := gunzip(filepath.Join(fx, "sherlock.gz"), filepath.Join(t, "sherlock")); err != nil {
		return err
	}
	for _, name := range []string{"sherlock.gz", "sherlock.bz2", "sherlock.zst", "sherlock.xz", "sherlock.lz4",
		"sherlock.lzma", "sherlock.Z", "sherlock.br", "sherlock-nul.txt"} {
		b, err := os.ReadFile(filepath.Join(fx, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(t, name), b, 0o644); err != nil {
			return err
		}
	}
	files := map[string]string{
		"file.py":              "Sherlock py\n",
		"file.rs":              "Sherlock rs\n",
		".hidden-dir/sherlock": "Sherlock hidden\n",
		"dir/sub/x.txt":        "Sherlock in dir\ntest\n",
		"far/a/b/c/far.txt":    "far\n",
		"far/a/near.txt":       "far\n",
		".a/foo":               "foo\n",
		"ignored/s.txt":        "Sherlock ignored\n",
		".gitignore":           "ignored/\n*.bin\n",
		"gen.log":              "Sherlock generic\n",
		".ignore":              "*.log\n",
		"file.bin":             "foo\x00bar\nfoo\n",
		"test.txt":             "test\ntest line two and a longer line that goes on\n",
		"test":                 "test\n",
		"foo1.bar":             "a test here\n",
		"latin1.txt":           "caf\xe9\n",
		"pat.txt":              "Sherlock\nHolmes\n",
		"patnonl.txt":          "Sherlock\r",
		"nul.txt":              "foo\x00bar\x00foo baz\x00",
		"utf16.txt":            "\xff\xfeS\x00h\x00e\x00r\x00l\x00o\x00c\x00k\x00\n\x00",
		"utf8bom.txt":          "\xef\xbb\xbfSherlock bom\n",
		"crlf.txt":             "x one\r\ntest two\r\nthree\r\n",
		"templates.txt":        "#define foo\n#   define bar\n",
		"ip.txt":               "192.168.1.1 and 10.0.0.1\n",
		"unicode.txt":          "привет\nПривет\nПРИВЕТ\n",
		"dash.txt":             "-test\n-foo\n",
		"digits.txt":           "ab12CD34\nxyz\n",
		"words2.txt":           "a test\nbest test\n",
		"lines.txt":            "lin\nlineSearch\nlinesearch lin\n",
		"empty-lines.txt":      "a\n\nb\n\n",
		"empty.txt":            "",
		"ac.txt":               "abc\nac\n",
		"nums.txt":             "123000\n999000\n12000\n",
		"dna.txt":              "TTGAGTCCAGGAGTTC\nTTGAGTCCAGGAGGGC\n",
		"bigpat.txt":           peerdiff.Lines("lit%04d\n", 1, 2000) + "Sherlock\n",
		"semi.txt":             "a;b\\;\n",
		"baaac.txt":            "baaac\n",
	}
	if err := peerdiff.WriteTree(t, files); err != nil {
		return err
	}
	return peerdiff.Git(t, "add", "-A")
}

func gunzip(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	return os.WriteFile(dst, b, 0o644)
}

func fatal(err error) int {
	fmt.Fprintln(os.Stderr, "interop-grep-rgtests:", err)
	return 2
}

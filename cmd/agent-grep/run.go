package main

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/grep"
)

func run(c *cli.Context, env *app.Env) error {
	for _, p := range negations {
		// the later of a pair wins: the other is unset
		if p[1] != "" && c.IsSet(p[0]) && c.IsSet(p[1]) {
			loser := p[0]
			if lastFlag(c, env.Args, p[0], p[1]) == p[0] {
				loser = p[1]
			}
			if err := c.Set(loser, "false"); err != nil {
				return exit.Wrap(exit.Usage, err)
			}
		}
	}
	if env.Getenv("GOGC") == "" && env.Getenv("GOMEMLIMIT") == "" {
		// A search keeps little alive (read buffers are reused), and a
		// collection's mark worker takes one of the few processors the
		// search runs on: collect at three times the live heap. (Not
		// GOGC=off under a soft limit: a large file with many matches
		// holds more than the limit alive, and the collector then ran
		// back to back, at 3x the CPU time.)
		debug.SetGCPercent(200)
	}
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	defer w.Flush()
	types := grep.Types
	if c.IsSet("type-add") || c.IsSet("type-clear") {
		types = grep.RGTypes()
		for _, t := range c.StringSlice("type-clear") {
			delete(types, t)
		}
		for _, def := range c.StringSlice("type-add") {
			if err := grep.AddTypeDef(types, def); err != nil {
				return exit.Wrap(exit.Usage, err)
			}
		}
	}
	if c.Bool("type-list") {
		out := grep.TypeList()
		if c.IsSet("type-add") || c.IsSet("type-clear") {
			out = grep.RenderTypeList(types)
		}
		_, err := w.WriteString(out)
		return err
	}
	if err := checkFlags(c); err != nil {
		return err
	}
	for _, t := range append(c.StringSlice("type"), c.StringSlice("type-not")...) {
		if _, ok := types[t]; !ok {
			return exit.Errorf(exit.Usage, "unrecognized file type: %s", t)
		}
	}
	globs, iglobs := c.StringSlice("glob"), c.StringSlice("iglob")
	if c.Bool("glob-case-insensitive") {
		globs, iglobs = nil, append(globs, iglobs...)
	}
	overrides, err := grep.CompileGlobs(globs, iglobs) // once for the run: every walk shares them
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	args := c.Args().Slice()
	patterns := c.StringSlice("regexp")
	for _, f := range c.StringSlice("file") {
		data, err := readArg(env, f)
		if err != nil {
			return exit.Errorf(exit.Usage, "%s: %s", f, grep.ErrText(err))
		}
		if len(data) > 0 {
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			for i, l := range lines {
				if i < len(lines)-1 || strings.HasSuffix(string(data), "\n") {
					l = strings.TrimSuffix(l, "\r") // rg: a \r is dropped before a \n only
				}
				patterns = append(patterns, l)
			}
		}
	}
	noPatterns := len(patterns) == 0 && c.IsSet("file") // -f with an empty file: nothing can match
	if len(patterns) == 0 && !c.Bool("files") && !c.IsSet("file") {
		if len(args) == 0 {
			return exit.Errorf(exit.Usage, "no pattern given (usage: agent-grep PATTERN [PATH...])")
		}
		patterns, args = []string{args[0]}, args[1:]
	}
	paths := args
	if len(paths) == 0 {
		if c.Bool("files") || !readableStdin(env) {
			paths = []string{""} // the working directory, paths printed without "./"
		} else {
			paths = []string{"-"}
		}
	}
	var maxSize int64
	if s := c.String("max-filesize"); s != "" {
		n, err := parseSize(s)
		if err != nil {
			return exit.Errorf(exit.Usage, "--max-filesize: %v", err)
		}
		maxSize = n
	}
	cwd, _ := filepath.Abs(".")
	wo := grep.WalkOptions{Hidden: c.Bool("hidden"), NoIgnore: c.Bool("no-ignore"), NoIgnoreVCS: c.Bool("no-ignore-vcs"),
		NoIgnoreDot: c.Bool("no-ignore-dot"), Follow: c.Bool("follow"), MaxDepth: c.Int("max-depth"), MaxDepthSet: c.IsSet("max-depth"),
		MaxFilesize: maxSize, Overrides: overrides, Types: c.StringSlice("type"),
		TypesNot: c.StringSlice("type-not"), GlobalIgnore: globalIgnore(env), Cwd: cwd, TypeTable: types}
	wo.NoIgnoreParent, wo.NoIgnoreGlobal = c.Bool("no-ignore-parent"), c.Bool("no-ignore-global")
	wo.NoIgnoreExclude, wo.NoRequireGit = c.Bool("no-ignore-exclude"), c.Bool("no-require-git")
	wo.IgnoreFiles, wo.NoIgnoreFiles = c.StringSlice("ignore-file"), c.Bool("no-ignore-files")
	wo.OneFileSystem = c.Bool("one-file-system")
	for _, f := range wo.IgnoreFiles {
		if _, err := os.Stat(f); err != nil && !wo.NoIgnoreFiles {
			app.Warnf(c, "%s: %s", f, grep.ErrText(err)) // rg warns, and the exit status stays
		}
	}
	unrestricted := c.Count("unrestricted") // rg's -u, -uu, -uuu
	if unrestricted >= 1 {
		wo.NoIgnore = true
	}
	if unrestricted >= 2 {
		wo.Hidden = true
	}
	sortBy, sortRev := sortOrder(c)
	wo.SortModified, wo.SortReverse = sortBy == "modified", sortRev
	failed := false
	warn := func(format string, a ...any) {
		failed = true
		if !c.Bool("no-messages") {
			app.Warnf(c, format, a...)
		}
	}
	dotall := c.Bool("multiline-dotall") && c.Bool("multiline")
	if noPatterns {
		patterns = []string{"x"} // never run: only for the flag checks below
	}
	var m *grep.Matcher
	if !c.Bool("files") {
		caseMode := lastFlag(c, env.Args, "case-sensitive", "ignore-case", "smart-case")
		var err error
		m, err = grep.Compile(grep.MatchOptions{Patterns: patterns, Fixed: c.Bool("fixed-strings"), IgnoreCase: caseMode == "ignore-case",
			SmartCase: caseMode == "smart-case", Word: c.Bool("word-regexp"), Line: c.Bool("line-regexp"),
			Multiline: c.Bool("multiline"), DotAll: dotall})
		if err != nil {
			return exit.Wrap(exit.Usage, err)
		}
	}
	// rg reads up to ten named files whole (a memory map), anything else
	// through its buffer; this changes where it notices binary data.
	slice := len(paths) <= 10 || c.Bool("multiline")
	for _, p := range paths {
		if p == "-" {
			slice = c.Bool("multiline")
		} else if st, err := os.Stat(orDot(p)); err != nil || !st.Mode().IsRegular() {
			slice = slice && c.Bool("multiline")
		}
	}
	switch {
	case c.Bool("no-mmap"):
		slice = c.Bool("multiline")
	case c.Bool("mmap"):
		slice = true
	}
	// Each path is a source: stdin, or the files of a walk, streamed into
	// the search as the walk finds them; the walk's problems are warnings.
	type source struct {
		stdin bool
		files iter.Seq[grep.File]
		errs  []error
	}
	sources := make([]*source, len(paths))
	for i, p := range paths {
		s := &source{stdin: p == "-"}
		if !s.stdin {
			root := p
			s.files = func(yield func(grep.File) bool) {
				s.errs = append(s.errs, grep.WalkFunc(root, wo, yield)...)
			}
			if sortBy == "path" && sortRev {
				// reversed: each directory's entries in reverse, as rg
				list := slices.Collect(s.files)
				slices.Reverse(list)
				s.files = slices.Values(list)
			}
		}
		sources[i] = s
	}
	reportWalk := func(s *source) {
		for _, e := range s.errs {
			warn("%v", e)
		}
		s.errs = nil
	}
	if c.Bool("files") {
		sep := "\n"
		if c.Bool("null") {
			sep = "\x00"
		}
		n := 0
		for _, s := range sources {
			if s.stdin {
				continue
			}
			for f := range s.files {
				if !c.Bool("quiet") { // rg: -q --files prints nothing, the status says
					w.WriteString(pathSep(c, f.Path) + sep)
				}
				n++
			}
			reportWalk(s)
		}
		return status(n > 0, failed, c.Bool("quiet"))
	}
	before, after := c.Int("before-context"), c.Int("after-context")
	if c.Bool("passthru") {
		c.Set("context", strconv.Itoa(1<<30)) // every line: the others as context
	}
	if n := c.Int("context"); n > 0 {
		if !c.IsSet("before-context") {
			before = n
		}
		if !c.IsSet("after-context") {
			after = n
		}
	}
	countOnly := c.Bool("count") || c.Bool("count-matches") || c.Bool("files-with-matches") || c.Bool("files-without-match") || c.Bool("quiet")
	so := grep.SearchOptions{Invert: c.Bool("invert-match"), MaxCount: c.Int("max-count"), Before: before, After: after,
		CountOnly: countOnly && !c.Bool("json"), Text: c.Bool("text"), Decompress: c.Bool("search-zip"), Binary: c.Bool("binary") || unrestricted >= 3, Slice: slice,
		FirstOnly: (c.Bool("files-with-matches") || c.Bool("files-without-match") || c.Bool("quiet")) && !c.Bool("stats")}
	so.LinesOnly = so.CountOnly && !c.Bool("count-matches") && !c.Bool("only-matching") && !c.Bool("stats")
	if countOnly || c.Bool("only-matching") && !c.Bool("json") {
		so.Before, so.After = 0, 0
	}
	if noPatterns || c.IsSet("max-count") && c.Int("max-count") == 0 {
		return status(false, failed, c.Bool("quiet")) // rg -m0: nothing can match
	}
	multi := len(paths) > 1 || isDirArg(paths)
	p := newPrinter(c, env, w, multi)
	p.context = so.Before > 0 || so.After > 0
	if p.mode == "agent" {
		single := len(paths) == 1 && !isDirArg(paths)
		p.agent = grep.NewAgentPrinter(grep.AgentOptions{Limit: c.Int("max-total-matches"), Before: before, After: after,
			MaxBytes: c.Int("max-bytes"), Name: func(path string) string {
				if single {
					return filepath.Base(path)
				}
				return path
			}})
		p.maxTotal, p.maxBytes = 0, 0 // the agent text applies them itself
		so.MaxCount = 0
	}
	if c.IsSet("replace") {
		p.replace = &replacer{re: m, tmpl: c.String("replace")}
	}
	// A large file is searched in pieces and printed as it goes, but for
	// the agent text and the output budgets, which weigh a file's output
	// whole. (AGENT_GREP_TEST_CHUNK=ABOVE,SIZE sets the sizes for tests.)
	if p.mode != "agent" && p.maxTotal == 0 && p.maxBytes == 0 {
		so.ChunkAbove = grep.DefaultChunkAbove
		if v := env.Getenv("AGENT_GREP_TEST_CHUNK"); v != "" {
			a, b, _ := strings.Cut(v, ",")
			n, err1 := strconv.ParseInt(a, 10, 64)
			k, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || n <= 0 || k <= 0 {
				return exit.Errorf(exit.Usage, "AGENT_GREP_TEST_CHUNK: %q is not ABOVE,SIZE (two byte counts)", v)
			}
			so.ChunkAbove, so.ChunkSize = n, k
		}
	}
	so.Spans = spanNeed(p) // spans.go
	start := time.Now()
	var total grep.Stats
	var searching time.Duration
	matched := false
	found := false // --files-without-match printed a path
	stop := false
	handle := func(r grep.FileResult) bool {
		if r.More {
			// a part of a large file's lines: the counts come with its last part
			before := p.printed
			if !p.file(r, time.Since(start)) {
				stop = true
				return false
			}
			total.BytesPrinted += p.printed - before
			return true
		}
		if r.Err != nil {
			warn("%s: %s", r.Path, grep.ErrText(r.Err))
			return true
		}
		total.Searches++
		total.BytesSearched += r.BytesSearched
		if p.mode == "files-without" && r.MatchedLines == 0 && !r.Skipped {
			found = true // rg: the status says whether a path was printed
		}
		if r.MatchedLines > 0 && !(r.BinaryQuit && (p.mode == "count" || p.mode == "count-matches")) {
			matched = true
			total.SearchesWithMatch++
			total.MatchedLines += r.MatchedLines
			if !so.Invert {
				total.Matches += r.Matches
			}
		}
		before := p.printed
		if !p.file(r, time.Since(start)) {
			stop = true
			return false
		}
		total.BytesPrinted += p.printed - before
		return !(c.Bool("quiet") && matched)
	}
	for _, s := range sources {
		if stop || (c.Bool("quiet") && matched) {
			break
		}
		t0 := time.Now()
		if s.stdin {
			data, err := io.ReadAll(env.Stdin)
			if err != nil {
				warn("<stdin>: %s", grep.ErrText(err))
				continue
			}
			sto := so
			sto.Slice = c.Bool("multiline")
			handle(grep.SearchDecoded(m, "<stdin>", data, sto))
		} else {
			grep.Search(c.Context, m, s.files, so, c.Int("threads"), handle)
			reportWalk(s)
		}
		searching += time.Since(t0)
	}
	if p.mode != "standard" && p.mode != "vimgrep" {
		total.BytesPrinted = 0 // rg counts the bytes of printed lines only
	}
	p.finish(total, searching, time.Since(start))
	if p.stopped != "" {
		app.Warnf(c, "%s", p.stopped)
	}
	if len(args) == 0 && paths[0] == "" && total.Searches == 0 {
		// rg 13: the working directory searched, every file filtered out
		fmt.Fprint(env.Stderr, "No files were searched, which means ripgrep probably applied a filter you didn't expect.\n"+
			"Running with --debug will show why files are being skipped.\n")
		return exit.Silent(exit.Usage)
	}
	if p.mode == "files-without" {
		matched = found
	}
	return status(matched, failed, c.Bool("quiet"))
}

// checkFlags refuses flag values and combinations agent-grep cannot honour.
func checkFlags(c *cli.Context) error {
	if s := c.String("path-separator"); c.IsSet("path-separator") && len(s) != 1 {
		return exit.Errorf(exit.Usage, "A path separator must be exactly one byte, but the given separator is %d bytes: %s\nIn some shells on Windows '/' is automatically expanded. Use '//' instead.", len(s), s)
	}
	for _, u := range unsupported {
		if c.IsSet(u.name) {
			return exit.Errorf(exit.Usage, "unsupported rg flag: --%s (%s)", u.name, u.why)
		}
	}
	switch c.String("color") {
	case "auto", "always", "never", "ansi":
	default:
		return exit.Errorf(exit.Usage, "--color: %q is not one of auto, always, never", c.String("color"))
	}
	for _, name := range []string{"sort", "sortr"} {
		switch v := c.String(name); v {
		case "", "path", "modified", "none":
		case "accessed", "created":
			return exit.Errorf(exit.Usage, "--%s %s is not supported (path, modified or none)", name, v)
		default:
			return exit.Errorf(exit.Usage, "--%s: %q is not one of path, modified, none", name, v)
		}
	}
	switch f := c.String("format"); f {
	case "", "standard":
	case "agent":
		for _, other := range []string{"json", "count", "count-matches", "files-with-matches", "files-without-match", "vimgrep", "only-matching", "replace", "files", "stats"} {
			if c.IsSet(other) {
				return exit.Errorf(exit.Usage, "--format agent cannot be combined with --%s", other)
			}
		}
	default:
		return exit.Errorf(exit.Usage, "--format: %q is not one of standard, agent", f)
	}
	for _, n := range []string{"max-total-matches", "max-bytes", "max-count", "max-columns", "threads", "after-context", "before-context", "context", "max-depth"} {
		if c.Int(n) < 0 {
			return exit.Errorf(exit.Usage, "--%s: must not be negative", n)
		}
	}
	return nil
}

func sortOrder(c *cli.Context) (string, bool) {
	if v := c.String("sortr"); v != "" {
		return v, true
	}
	if v := c.String("sort"); v != "" {
		return v, false
	}
	return "path", false
}

// status is rg's exit code: 0 when something matched (and nothing failed,
// unless -q), 2 when something failed, 1 otherwise.
func status(matched, failed, quiet bool) error {
	switch {
	case matched && (quiet || !failed):
		return nil
	case failed:
		return exit.Silent(exit.Usage)
	}
	return exit.Silent(exit.NoResult)
}

func isDirArg(paths []string) bool {
	for _, p := range paths {
		if p == "" {
			return true
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

func readArg(env *app.Env, f string) ([]byte, error) {
	if f == "-" {
		return io.ReadAll(env.Stdin)
	}
	return os.ReadFile(f)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	num := s
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult, num = 1<<10, s[:len(s)-1]
	case "M":
		mult, num = 1<<20, s[:len(s)-1]
	case "G":
		mult, num = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a size: %q (a number with an optional K, M or G suffix)", s)
	}
	return n * mult, nil
}

// globalIgnore is git's core.excludesFile, found as rg 13 finds it
// (grep.GlobalIgnorePath): in ~/.gitconfig, else $XDG_CONFIG_HOME/git/config,
// else $XDG_CONFIG_HOME/git/ignore; never in a repository's .git/config.
func globalIgnore(env *app.Env) string {
	return grep.GlobalIgnorePath(env.Getenv("HOME"), env.Getenv("XDG_CONFIG_HOME"), os.ReadFile)
}

type replacer struct {
	re   *grep.Matcher
	tmpl string
}

// readableStdin is rg's rule for searching stdin when no path is given:
// stdin is a pipe or a regular file (not a terminal, not /dev/null).
func readableStdin(env *app.Env) bool {
	f, ok := env.Stdin.(*os.File)
	if !ok {
		return !env.StdinTTY
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	m := st.Mode()
	return m&os.ModeNamedPipe != 0 || m.IsRegular() || m&os.ModeSocket != 0
}

// lastFlag is which of the named (long) flags comes last on the command
// line: rg lets later flags override earlier ones (-s -i is -i).
func lastFlag(c *cli.Context, args []string, names ...string) string {
	short := map[string]string{}
	takes := map[string]bool{}
	for _, f := range c.App.Flags {
		fn := f.Names()
		isBool := !app.TakesValue(f)
		for _, n := range fn {
			if len(n) == 1 {
				short[n] = fn[0]
				takes[n] = !isBool
			}
		}
	}
	longValue := map[string]bool{} // long names that take a value
	for _, f := range c.App.Flags {
		for _, n := range f.Names() {
			if len(n) > 1 && app.TakesValue(f) {
				longValue[n] = true
			}
		}
	}
	last := ""
	value := false // the argument is the value of the flag before it
	for i, a := range args {
		if i == 0 {
			continue
		}
		if value {
			value = false
			continue
		}
		if a == "--" {
			break
		}
		switch {
		case strings.HasPrefix(a, "--"):
			n, _, hasValue := strings.Cut(a[2:], "=")
			for _, want := range names {
				if n == want {
					last = want
				}
			}
			value = longValue[n] && !hasValue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j, ch := range a[1:] {
				long := short[string(ch)]
				for _, want := range names {
					if long == want {
						last = want
					}
				}
				if takes[string(ch)] {
					value = j == len(a)-2 // the rest is the flag's value, or the next argument
					break
				}
			}
		}
	}
	if last == "" {
		for _, n := range names {
			if c.Bool(n) {
				last = n
			}
		}
	}
	return last
}

// orDot is "." for the empty root (the working directory).
func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// pathSep applies --path-separator to a printed path.
func pathSep(c *cli.Context, path string) string {
	if s := c.String("path-separator"); s != "" && s != "/" {
		return strings.ReplaceAll(path, "/", s)
	}
	return path
}

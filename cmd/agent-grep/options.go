package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/grepfs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/printer"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
)

// options is everything a search does, read from the command line, the
// environment and (for -f -) stdin: the pure step between the flags and
// the search (execute). Its fields are exported for options_test.go's
// table, which compares them as JSON.
type options struct {
	TypeList   string   // --type-list: the table to print, and nothing else
	Files      bool     // --files: list the files, search nothing
	Patterns   []string // -e, -f and the first positional argument
	NoPatterns bool     // -f with only empty files: nothing can match
	MaxCount0  bool     // -m0: nothing can match
	Paths      []string // "": the working directory (paths printed without "./"); "-": stdin
	PathsGiven bool     // paths were named (else "No files were searched" applies)
	EmptyPaths int      // "" paths given: each is an error
	Match      regex.MatchOptions
	Walk       ignore.WalkOptions
	Search     search.SearchOptions // Slice is decided per run (execute), from the files
	Print      printer.PrintOptions
	SortPath   bool // sorted by path, reversed with SortReverse (walk entries reversed)
	SortRev    bool
	Threads    int
	Quiet      bool
	NoMessages bool
	Mmap       string // "mmap", "no-mmap" or "" (rg's choice by the paths)
	Multiline  bool
	// IgnoreFilesMissing are --ignore-file paths to warn about (rg warns
	// and goes on).
	IgnoreFiles []string
	matcher     *regex.Matcher // o.Match compiled (by the checks; the search uses it)
}

// flagSet answers for the parsed flags with rg's overrides applied: a
// flag is on when given and not overridden by a later one.
type flagSet struct {
	c     *cli.Context
	given map[string]bool
}

func (f flagSet) on(name string) bool { return f.given[name] }

func (f flagSet) str(name string) string {
	if !f.given[name] {
		return ""
	}
	return f.c.String(name)
}

func (f flagSet) num(name string) int {
	if !f.given[name] {
		return 0
	}
	return f.c.Int(name)
}

// parseOptions is the flags → options step: the usage errors (exit 2)
// and the options of a run.
func parseOptions(c *cli.Context, env *app.Env) (*options, error) {
	f := flagSet{c: c, given: givenFlags(flagOccurrences(c.App.Flags, env.Args))}
	if err := checkFlags(f); err != nil {
		return nil, err
	}
	o := &options{Files: f.on("files"), Quiet: f.on("quiet"), NoMessages: f.on("no-messages"),
		Threads: f.num("threads"), Multiline: f.on("multiline")}
	types, err := typeTable(f)
	if err != nil {
		return nil, err
	}
	if f.on("type-list") {
		o.TypeList = ignore.TypeList()
		if f.on("type-add") || f.on("type-clear") {
			o.TypeList = ignore.RenderTypeList(types)
		}
		return o, nil
	}
	if err := patternsAndPaths(f, env, o); err != nil {
		return nil, err
	}
	if err := walkOptions(f, env, o, types); err != nil {
		return nil, err
	}
	if !o.Files {
		if err := matchOptions(f, o); err != nil {
			return nil, err
		}
		searchOptions(f, o)
	}
	if err := printOpts(f, env, o); err != nil {
		return nil, err
	}
	return o, nil
}

// typeTable is rg's type table after --type-clear and --type-add.
func typeTable(f flagSet) (map[string][]string, error) {
	var types map[string][]string // nil: ignore.Types, made only when asked for
	if f.on("type") || f.on("type-not") {
		types = ignore.Types()
	}
	if f.on("type-add") || f.on("type-clear") {
		types = ignore.RGTypes()
		for _, t := range f.c.StringSlice("type-clear") {
			delete(types, t)
		}
		for _, def := range f.c.StringSlice("type-add") {
			if err := ignore.AddTypeDef(types, def); err != nil {
				return nil, exit.Wrap(exit.Usage, err)
			}
		}
	}
	return types, nil
}

// patternsAndPaths reads -e, -f and the positional arguments.
func patternsAndPaths(f flagSet, env *app.Env, o *options) error {
	// the positional arguments as rg reads them: a "--" after the
	// pattern still ends the flags (urfave/cli keeps it as an argument)
	args := positionals(f.c.App.Flags, env.Args)
	o.Patterns = append(o.Patterns, f.c.StringSlice("regexp")...)
	for _, file := range f.c.StringSlice("file") {
		data, err := readArg(env, file)
		if err != nil {
			return exit.Errorf(exit.Usage, "%s: %s", file, grepfs.ErrText(err))
		}
		o.Patterns = append(o.Patterns, patternLines(data)...)
	}
	if len(o.Patterns) == 0 && f.on("file") {
		o.NoPatterns = true // -f with an empty file: nothing can match
	}
	if len(o.Patterns) == 0 && !o.Files && !f.on("file") {
		if len(args) == 0 {
			return exit.Errorf(exit.Usage, "no pattern given (usage: agent-grep PATTERN [PATH...])")
		}
		o.Patterns, args = []string{args[0]}, args[1:]
	}
	o.PathsGiven = len(args) > 0
	for _, a := range args {
		if a == "" {
			o.EmptyPaths++ // rg: an error, as a file that is not there
		} else {
			o.Paths = append(o.Paths, a)
		}
	}
	if !o.PathsGiven {
		o.Paths = []string{""} // the working directory
		if !o.Files && readableStdin(env) && !slices.Contains(f.c.StringSlice("file"), "-") {
			// stdin, unless -f - read the patterns from it (rg then
			// searches the working directory)
			o.Paths = []string{"-"}
		}
	}
	return nil
}

// patternLines are the patterns of a -f file, one a line (rg drops a \r
// before a \n only).
func patternLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := string(data)
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		if i < len(lines)-1 || strings.HasSuffix(s, "\n") {
			lines[i] = strings.TrimSuffix(l, "\r")
		}
	}
	return lines
}

// walkOptions are the walk's: ignore files, globs, types, depth, size, order.
func walkOptions(f flagSet, env *app.Env, o *options, types map[string][]string) error {
	tsel, err := typeNames(types, f.c.StringSlice("type"))
	if err != nil {
		return err
	}
	tnot, err := typeNames(types, f.c.StringSlice("type-not"))
	if err != nil {
		return err
	}
	globs, iglobs := f.c.StringSlice("glob"), f.c.StringSlice("iglob")
	if f.on("glob-case-insensitive") {
		globs, iglobs = nil, append(globs, iglobs...)
	}
	overrides, err := ignore.CompileGlobs(globs, iglobs) // once for the run: every walk shares them
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	var maxSize int64
	if s := f.str("max-filesize"); f.on("max-filesize") {
		if maxSize, err = parseSize(s); err != nil {
			return exit.Wrap(exit.Usage, err) // (rg's message names the size, not the flag)
		}
	}
	u := f.c.Count("unrestricted") // rg's -u, -uu, -uuu
	w := ignore.WalkOptions{Hidden: f.on("hidden") || u >= 2, NoIgnore: f.on("no-ignore") || u >= 1,
		NoIgnoreVCS: f.on("no-ignore-vcs"), NoIgnoreDot: f.on("no-ignore-dot"), Follow: f.on("follow"),
		MaxDepth: f.num("max-depth"), MaxDepthSet: f.on("max-depth"), MaxFilesize: maxSize, MaxFilesizeSet: f.on("max-filesize"), Overrides: overrides,
		Types: tsel, TypesNot: tnot, GlobalIgnore: globalIgnore(env), Cwd: env.Dir, TypeTable: types,
		NoIgnoreParent: f.on("no-ignore-parent"), NoIgnoreGlobal: f.on("no-ignore-global"),
		NoIgnoreExclude: f.on("no-ignore-exclude"), NoRequireGit: f.on("no-require-git"),
		NoIgnoreFiles: f.on("no-ignore-files"), OneFileSystem: f.on("one-file-system"),
		IgnoreCaseInsensitive: f.on("ignore-file-case-insensitive")}
	w.IgnoreFiles = f.c.StringSlice("ignore-file")
	if !w.NoIgnoreFiles {
		o.IgnoreFiles = w.IgnoreFiles
	}
	sortBy, rev := "path", false
	if v := f.str("sortr"); v != "" {
		sortBy, rev = v, true
	} else if v := f.str("sort"); v != "" {
		sortBy = v
	}
	w.SortModified, w.SortReverse = sortBy == "modified", rev
	w.OneThread = oneThread(f, sortBy)
	o.SortPath, o.SortRev = sortBy == "path", rev
	o.Walk = w
	return nil
}

// oneThread is rg 13's choice of one search thread: a sort other than
// none (--sort-files is --sort path), -j1, or -j0 (the default) on one
// CPU (rg takes min(12, CPUs)). Its walk words errors differently then
// (WalkOptions.OneThread), and its parallel output puts the file
// separator between any two files' output (PrintOptions.Parallel).
func oneThread(f flagSet, sortBy string) bool {
	sorted := f.on("sort-files") || (f.on("sort") || f.on("sortr")) && sortBy != "none"
	j := f.num("threads")
	return sorted || j == 1 || j <= 0 && runtime.NumCPU() == 1
}

// typeNames checks -t/-T names against the table; "all" is every type.
func typeNames(types map[string][]string, names []string) ([]string, error) {
	var out []string
	for _, t := range names {
		if t == "all" {
			for name := range types {
				out = append(out, name)
			}
			continue
		}
		if _, ok := types[t]; !ok {
			return nil, exit.Errorf(exit.Usage, "unrecognized file type: %s", t)
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// matchOptions are the matcher's; the patterns compile here, so that a
// bad one is a usage error.
func matchOptions(f flagSet, o *options) error {
	o.Match = regex.MatchOptions{Patterns: o.Patterns, Fixed: f.on("fixed-strings"), IgnoreCase: f.on("ignore-case"),
		SmartCase: f.on("smart-case"), Word: f.on("word-regexp"), Line: f.on("line-regexp"),
		Multiline: o.Multiline, DotAll: o.Multiline && f.on("multiline-dotall"), NoUnicode: f.on("no-unicode")}
	for _, l := range []struct {
		flag string
		to   *int64
	}{{"dfa-size-limit", &o.Match.DFASizeLimit}, {"regex-size-limit", &o.Match.RegexSizeLimit}} {
		if v := f.str(l.flag); f.on(l.flag) {
			n, err := parseSize(v)
			if err != nil {
				return exit.Wrap(exit.Usage, err) // (rg's message names the size, not the flag)
			}
			if n == 0 && l.flag == "regex-size-limit" {
				n = -1 // (a limit of 0 bytes, not rg's default)
			}
			*l.to = n
		}
	}
	if o.NoPatterns {
		o.Match.Patterns = []string{"x"} // never run: only for the checks
	}
	if f.on("crlf") {
		o.Match = crlfMatch(o.Match)
	}
	if o.Multiline && !regex.MatchesNewline(o.Match) {
		// rg 13: -U with a pattern that cannot match a newline searches line by line
		o.Multiline, o.Match.Multiline, o.Match.DotAll = false, false, false
	}
	m, err := regex.Compile(o.Match)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	o.matcher = m
	return nil
}

// searchOptions are what the search keeps of each file.
func searchOptions(f flagSet, o *options) {
	before, after := f.num("before-context"), f.num("after-context")
	if f.on("context") {
		before, after = f.num("context"), f.num("context")
	}
	if f.on("passthru") {
		before, after = 1<<30, 1<<30 // every line: the others as context
	}
	count := f.on("count") || f.on("count-matches")
	firstOnly := o.Quiet || (f.on("files-with-matches") || f.on("files-without-match")) && !count
	countOnly := (count || firstOnly) && !f.on("json")
	so := search.SearchOptions{Invert: f.on("invert-match"), MaxCount: f.num("max-count"), Before: before, After: after,
		CountOnly: countOnly, Text: f.on("text"), Decompress: f.on("search-zip"),
		Binary: f.on("binary") || f.c.Count("unrestricted") >= 3, Passthru: f.on("passthru") && !countOnly, FirstOnly: firstOnly && !f.on("stats") && !f.on("invert-match")}
	so.LinesOnly = so.CountOnly && !f.on("count-matches") && !f.on("only-matching") && !f.on("stats") && !o.Multiline
	if countOnly {
		so.Before, so.After = 0, 0
	}
	o.MaxCount0 = f.on("max-count") && f.num("max-count") == 0
	if f.on("mmap") {
		o.Mmap = "mmap"
	} else if f.on("no-mmap") {
		o.Mmap = "no-mmap"
	}
	o.Search = so
}

// checkFlags refuses flag values and combinations agent-grep cannot honour.
func checkFlags(f flagSet) error {
	if s := f.str("path-separator"); f.on("path-separator") && len(s) != 1 {
		return exit.Errorf(exit.Usage, "A path separator must be exactly one byte, but the given separator is %d bytes: %s\nIn some shells on Windows '/' is automatically expanded. Use '//' instead.", len(s), s)
	}
	for _, u := range unsupported {
		if f.on(u.name) {
			return exit.Errorf(exit.Usage, "unsupported rg flag: --%s (%s)", u.name, u.why)
		}
	}
	if v := f.str("engine"); v != "" && v != "default" && v != "auto" {
		if v == "pcre2" {
			return exit.Errorf(exit.Usage, "unsupported rg flag: --engine pcre2 (the engine is RE2: no look-around or backreferences)")
		}
		return exit.Errorf(exit.Usage, "--engine: %q is not one of default, pcre2, auto", v)
	}
	switch f.c.String("color") {
	case "auto", "always", "never", "ansi":
	default:
		return exit.Errorf(exit.Usage, "--color: %q is not one of auto, always, never", f.c.String("color"))
	}
	for _, name := range []string{"sort", "sortr"} {
		switch v := f.str(name); v {
		case "", "path", "modified", "none":
		case "accessed", "created":
			return exit.Errorf(exit.Usage, "--%s %s is not supported (path, modified or none)", name, v)
		default:
			return exit.Errorf(exit.Usage, "--%s: %q is not one of path, modified, none", name, v)
		}
	}
	if f.on("json") {
		for _, other := range []string{"count", "count-matches", "files", "files-with-matches", "files-without-match"} {
			if f.on(other) {
				return exit.Errorf(exit.Usage, "The argument '--%s' cannot be used with '--json'", other)
			}
		}
	}
	if err := checkFormat(f); err != nil {
		return err
	}
	for _, n := range []string{"max-total-matches", "max-bytes", "max-count", "max-columns", "threads", "after-context", "before-context", "context", "max-depth"} {
		if f.c.Int(n) < 0 {
			return exit.Errorf(exit.Usage, "--%s: must not be negative", n)
		}
	}
	return nil
}

func checkFormat(f flagSet) error {
	switch v := f.c.String("format"); v {
	case "", "standard":
	case "agent":
		for _, other := range []string{"json", "count", "count-matches", "files-with-matches", "files-without-match", "vimgrep", "only-matching", "replace", "files", "stats"} {
			if f.on(other) {
				return exit.Errorf(exit.Usage, "--format agent cannot be combined with --%s", other)
			}
		}
	default:
		return exit.Errorf(exit.Usage, "--format: %q is not one of standard, agent", v)
	}
	return nil
}

func readArg(env *app.Env, f string) ([]byte, error) {
	if f == "-" {
		return io.ReadAll(env.Stdin)
	}
	return os.ReadFile(env.Abs(f))
}

// parseSize is rg 13's human-readable size (--max-filesize,
// --dfa-size-limit, --regex-size-limit): digits and an optional K, M or G
// (upper case), as a u64, with rg's messages; a size past int64 is as
// good as no limit.
func parseSize(s string) (int64, error) {
	num, mult := s, uint64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K':
			num, mult = s[:n-1], 1<<10
		case 'M':
			num, mult = s[:n-1], 1<<20
		case 'G':
			num, mult = s[:n-1], 1<<30
		}
	}
	if num == "" || strings.Trim(num, "0123456789") != "" {
		return 0, fmt.Errorf("invalid format for size '%s', which should be a sequence of digits followed by an optional 'K', 'M' or 'G' suffix", s)
	}
	v, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid integer found in size '%s': number too large to fit in target type", s)
	}
	if v > math.MaxUint64/mult {
		return 0, fmt.Errorf("size too big in '%s'", s)
	}
	return int64(min(v*mult, math.MaxInt64)), nil
}

// globalIgnore is git's core.excludesFile, found as rg 13 finds it
// (grep.GlobalIgnorePath): in ~/.gitconfig, else $XDG_CONFIG_HOME/git/config,
// else $XDG_CONFIG_HOME/git/ignore; never in a repository's .git/config.
func globalIgnore(env *app.Env) string {
	return ignore.GlobalIgnorePath(env.Getenv("HOME"), env.Getenv("XDG_CONFIG_HOME"), os.ReadFile)
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

// printOpts are the printer's options and what the output mode changes
// in the search's.
func printOpts(f flagSet, env *app.Env, o *options) error {
	po := printer.PrintOptions{Mode: outputMode(f, o),
		MaxColumns: f.num("max-columns"), Preview: f.on("max-columns-preview"), Only: f.on("only-matching"),
		Null: f.on("null"), Stats: f.on("stats"), MaxTotal: f.num("max-total-matches"), MaxBytes: f.num("max-bytes"),
		Invert: f.on("invert-match"), IncludeZero: f.on("include-zero"), Trim: f.on("trim"),
		ByteOffset: f.on("byte-offset"), LineBuffered: f.on("line-buffered"),
		Passthru: f.on("passthru"), CRLF: f.on("crlf"), Parallel: !o.Walk.OneThread,
		CountInvertedMatches: f.on("count") && f.on("only-matching") && !f.on("count-matches") && f.on("invert-match") && !o.Multiline}
	if err := colourOpts(f, env, &po); err != nil {
		return err
	}
	separators(f, &po)
	if f.on("with-filename") || f.on("no-filename") {
		w := f.on("with-filename")
		po.WithFilename = &w
	}
	tty := env.StdoutTTY || f.on("pretty")
	po.LineNumbers = (tty || f.on("column") || po.Mode == "vimgrep") && !f.on("no-line-number") || f.on("line-number")
	o.Search.NoLineNumbers = po.Mode == "standard" && !po.LineNumbers && !po.Passthru
	po.Column = (f.on("column") || po.Mode == "vimgrep") && !f.on("no-column")
	po.Heading = tty && !f.on("no-heading") || f.on("heading")
	if f.on("replace") {
		r := f.c.String("replace")
		po.Replace = &r
	}
	if po.Mode == "agent" {
		o.Search.MaxCount = 0 // the agent text applies its limits itself
	}
	if po.Passthru && o.Search.MaxCount > 0 {
		po.PassthruMax = o.Search.MaxCount // rg: nothing after the last match -m allows
	} else if po.Mode != "agent" && po.MaxTotal == 0 && po.MaxBytes == 0 {
		if err := chunking(env, o); err != nil {
			return err
		}
	}
	o.Print = po
	return nil
}

// colourOpts: whether to colour (rg's rules for --color, -p, TERM and
// --vimgrep) and in which colours (--colors).
func colourOpts(f flagSet, env *app.Env, po *printer.PrintOptions) error {
	when := f.c.String("color")
	if when == "ansi" {
		when = "always" // rg: ansi is always, in ANSI escapes (as every colour here)
	}
	// rg: -p makes "auto" colour as if on a terminal (NO_COLOR and
	// TERM=dumb still count)
	po.Color = env.Color(when, env.StdoutTTY || f.on("pretty"))
	if when == "auto" && env.Getenv("TERM") == "" && env.Getenv("CLICOLOR_FORCE") == "" {
		po.Color = false // rg's "auto" (termcolor): no colour without a TERM
	}
	if po.Mode == "vimgrep" && !f.on("color") {
		po.Color = false // rg: --vimgrep's colour is never unless asked
	}
	cs, err := printer.ParseColours(f.c.StringSlice("colors"))
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	po.Colours = cs
	return nil
}

// separators are rg's separator flags (escapes such as \x7F read).
func separators(f flagSet, po *printer.PrintOptions) {
	sep := "--"
	if f.on("context-separator") {
		sep = unescape(f.c.String("context-separator"))
	}
	if !f.on("no-context-separator") {
		po.ContextSep = &sep
	}
	po.MatchSep, po.CtxField = ":", "-"
	if f.on("field-match-separator") {
		po.MatchSep = unescape(f.c.String("field-match-separator"))
	}
	if f.on("field-context-separator") {
		po.CtxField = unescape(f.c.String("field-context-separator"))
	}
	if s := f.str("path-separator"); s != "/" {
		po.PathSep = s
	}
}

// outputMode is rg's choice of printer (summary kinds first).
func outputMode(f flagSet, o *options) string {
	switch {
	case o.Quiet:
		return "quiet"
	case f.c.String("format") == "agent":
		return "agent"
	case f.on("json"):
		return "json"
	case f.on("count-matches"), f.on("count") && (f.on("only-matching") || o.Multiline):
		return "count-matches" // rg: -c with -o, or with -U, counts matches
	case f.on("count"):
		return "count"
	case f.on("files-with-matches"):
		return "files"
	case f.on("files-without-match"):
		return "files-without"
	case f.on("vimgrep"):
		return "vimgrep"
	}
	return "standard"
}

// chunking: a large file is searched in pieces and printed as it goes,
// but for the agent text and the output budgets, which weigh a file's
// output whole, and --passthru with -m, which drops what follows the last
// match; in a memory map of it but with --no-mmap.
// (AGENT_GREP_TEST_CHUNK=ABOVE,SIZE[,MAP] sets the sizes for tests: MAP,
// the size above which a file searched in pieces is mapped, 0 never;
// ABOVE when absent.)
func chunking(env *app.Env, o *options) error {
	o.Search.ChunkAbove = search.DefaultChunkAbove
	o.Search.MapAbove = search.DefaultMapAbove
	defer func() {
		if o.Mmap == "no-mmap" {
			o.Search.MapAbove = 0 // rg's buffer: read
		}
	}()
	v := env.Getenv("AGENT_GREP_TEST_CHUNK")
	if v == "" {
		return nil
	}
	a, b, _ := strings.Cut(v, ",")
	b, c, mapped := strings.Cut(b, ",")
	n, err1 := strconv.ParseInt(a, 10, 64)
	k, err2 := strconv.Atoi(b)
	mn, err3 := n, error(nil)
	if mapped {
		mn, err3 = strconv.ParseInt(c, 10, 64)
	}
	if err1 != nil || err2 != nil || err3 != nil || n <= 0 || k <= 0 || mn < 0 {
		return exit.Errorf(exit.Usage, "AGENT_GREP_TEST_CHUNK: %q is not ABOVE,SIZE[,MAP] (byte counts)", v)
	}
	o.Search.ChunkAbove, o.Search.ChunkSize, o.Search.MapAbove = n, k, mn
	return nil
}

// unescape reads rg's escapes in a separator flag: \t \n \r \\ \xHH and
// \0; anything else stays as it is.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; c {
		case 't', 'n', 'r', '\\', '0':
			b.WriteByte(map[byte]byte{'t': '\t', 'n': '\n', 'r': '\r', '\\': '\\', '0': 0}[c])
			i++
		case 'x':
			if v, err := strconv.ParseUint(s[min(i+2, len(s)):min(i+4, len(s))], 16, 8); err == nil && i+4 <= len(s) {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

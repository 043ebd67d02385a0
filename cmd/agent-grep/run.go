package main

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/grep"
)

func run(c *cli.Context, env *app.Env) error {
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	defer w.Flush()
	if c.Bool("type-list") {
		_, err := w.WriteString(grep.TypeList())
		return err
	}
	for _, t := range append(c.StringSlice("type"), c.StringSlice("type-not")...) {
		if _, ok := grep.Types[t]; !ok {
			return exit.Errorf(exit.Usage, "unrecognized file type: %s (see --type-list)", t)
		}
	}
	args := c.Args().Slice()
	patterns := c.StringSlice("regexp")
	for _, f := range c.StringSlice("file") {
		data, err := readArg(env, f)
		if err != nil {
			return exit.Errorf(exit.Usage, "%s: %v", f, err)
		}
		for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			patterns = append(patterns, strings.TrimRight(l, "\r"))
		}
	}
	if len(patterns) == 0 && !c.Bool("files") {
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
	wo := grep.WalkOptions{Hidden: c.Bool("hidden"), NoIgnore: c.Bool("no-ignore"), NoIgnoreVCS: c.Bool("no-ignore-vcs"),
		NoIgnoreDot: c.Bool("no-ignore-dot"), Follow: c.Bool("follow"), MaxDepth: c.Int("max-depth"), MaxFilesize: maxSize,
		Globs: c.StringSlice("glob"), IGlobs: c.StringSlice("iglob"), Types: c.StringSlice("type"), TypesNot: c.StringSlice("type-not"),
		GlobalIgnore: globalIgnore(env)}
	failed := false
	warn := func(format string, a ...any) {
		failed = true
		app.Warnf(c, format, a...)
	}
	stdin := false
	var roots []string
	for _, p := range paths {
		if p == "-" {
			stdin = true
		} else if _, err := os.Stat(orDot(p)); err != nil {
			warn("%v", err) // a missing path is reported at once, as rg does
		} else {
			roots = append(roots, p)
		}
	}
	// The files stream from the walk into the search; the walk's errors are
	// reported as warnings when it ends.
	var walkErrs []error
	files := func(yield func(grep.File) bool) {
		for _, root := range roots {
			stopped := false
			walkErrs = append(walkErrs, grep.WalkFunc(root, wo, func(f grep.File) bool {
				stopped = !yield(f)
				return !stopped
			})...)
			if stopped {
				return
			}
		}
	}
	reportWalk := func() {
		for _, e := range walkErrs {
			warn("%v", e)
		}
		walkErrs = nil
	}
	if c.String("sort") == "modified" || c.Bool("files") {
		list := slices.Collect(iter.Seq[grep.File](files))
		reportWalk()
		if c.String("sort") == "modified" {
			sortModified(list)
		}
		if c.Bool("files") {
			sep := "\n"
			if c.Bool("null") {
				sep = "\x00"
			}
			for _, f := range list {
				w.WriteString(f.Path + sep)
			}
			return status(len(list) > 0, failed)
		}
		files = slices.Values(list)
	}
	m, err := grep.Compile(grep.MatchOptions{Patterns: patterns, Fixed: c.Bool("fixed-strings"), IgnoreCase: c.Bool("ignore-case") && !c.Bool("case-sensitive"),
		SmartCase: c.Bool("smart-case") && !c.Bool("case-sensitive"), Word: c.Bool("word-regexp"), Line: c.Bool("line-regexp"),
		Multiline: c.Bool("multiline"), DotAll: c.Bool("multiline-dotall")})
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	before, after := c.Int("before-context"), c.Int("after-context")
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
		CountOnly: countOnly, Text: c.Bool("text"), Decompress: c.Bool("search-zip"),
		FirstOnly: (c.Bool("files-with-matches") || c.Bool("files-without-match") || c.Bool("quiet")) && !c.Bool("stats")}
	if countOnly {
		so.Before, so.After = 0, 0
	}
	p := newPrinter(c, env, w, len(paths) > 1 || !stdin && isDirArg(paths))
	p.context = before > 0 || after > 0
	if c.String("replace") != "" || c.IsSet("replace") {
		p.replace = &replacer{re: m, tmpl: c.String("replace")}
	}
	start := time.Now()
	var total grep.Stats
	matched := false
	stop := false
	handle := func(r grep.FileResult) bool {
		if r.Err != nil {
			warn("%s: %v", r.Path, r.Err)
			return true
		}
		total.Searches++
		total.BytesSearched += r.BytesSearched
		if r.MatchedLines > 0 {
			matched = true
			total.SearchesWithMatch++
			total.MatchedLines += r.MatchedLines
			total.Matches += r.Matches
		}
		if !p.file(r, time.Since(start)) {
			stop = true
			return false
		}
		return !(c.Bool("quiet") && matched)
	}
	if stdin {
		data, err := io.ReadAll(env.Stdin)
		if err != nil {
			return err
		}
		handle(grep.SearchBuffer(m, "<stdin>", data, so))
	}
	if !stop && !(c.Bool("quiet") && matched) {
		grep.Search(c.Context, m, files, so, c.Int("threads"), handle)
	}
	reportWalk()
	total.BytesPrinted = p.printed
	p.finish(total, time.Since(start))
	if p.stopped != "" {
		app.Warnf(c, "%s", p.stopped)
	}
	return status(matched, failed)
}

func status(matched, failed bool) error {
	switch {
	case matched:
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
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult, s = 1<<10, s[:len(s)-1]
	case "M":
		mult, s = 1<<20, s[:len(s)-1]
	case "G":
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return n * mult, nil
}

// globalIgnore is git's core.excludesFile default ($XDG_CONFIG_HOME/git/ignore).
func globalIgnore(env *app.Env) string {
	if x := env.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x + "/git/ignore"
	}
	if h := env.Getenv("HOME"); h != "" {
		return h + "/.config/git/ignore"
	}
	return ""
}

func sortModified(files []grep.File) {
	mod := map[string]time.Time{}
	for _, f := range files {
		if st, err := os.Stat(f.Abs); err == nil {
			mod[f.Abs] = st.ModTime()
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return mod[files[i].Abs].Before(mod[files[j].Abs]) })
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

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

package main

import (
	"bufio"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/grepfs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/printer"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
)

func run(c *cli.Context, env *app.Env) error {
	o, err := parseOptions(c, env)
	if err != nil {
		return err
	}
	tuneGC(env.Getenv) // gc.go
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	defer w.Flush()
	if o.TypeList != "" {
		_, err := w.WriteString(o.TypeList)
		return err
	}
	x := &execution{c: c, env: env, o: o, w: w}
	for _, f := range o.IgnoreFiles {
		if _, err := os.Stat(env.Abs(f)); err != nil {
			app.Warnf(c, "%s: %s", f, grepfs.ErrText(err)) // rg warns, and the exit status stays
		}
	}
	for range o.EmptyPaths {
		msg := ": No such file or directory (os error 2)"
		if o.Walk.OneThread {
			msg = ": IO error for operation on " + msg // (rg's one-thread walk's words)
		}
		x.warn("%s", msg)
	}
	srcs := x.sources()
	if o.Files {
		return x.listFiles(srcs)
	}
	if o.NoPatterns || o.MaxCount0 {
		return status(false, x.failed, o.Quiet) // nothing can match
	}
	return x.search(srcs)
}

// execution is one run of the search the options describe.
type execution struct {
	c      *cli.Context
	env    *app.Env
	o      *options
	w      *bufio.Writer
	failed bool // a warning was printed (the exit status is 2)
}

// source is one path of the command line: stdin, or the files of a walk,
// streamed into the search as the walk finds them (its problems are
// warnings).
type source struct {
	stdin bool
	files iter.Seq[ignore.File]
	errs  []error
}

func (x *execution) warn(format string, a ...any) {
	x.failed = true
	if !x.o.NoMessages {
		app.Warnf(x.c, format, a...)
	}
}

func (x *execution) sources() []*source {
	out := make([]*source, len(x.o.Paths))
	for i, p := range x.o.Paths {
		s := &source{stdin: p == "-"}
		if !s.stdin {
			root, wo := p, x.o.Walk
			s.files = func(yield func(ignore.File) bool) {
				s.errs = append(s.errs, grepfs.WalkFunc(root, wo, yield)...)
			}
			if x.o.SortPath && x.o.SortRev {
				// reversed: each directory's entries in reverse, as rg
				list := slices.Collect(s.files)
				slices.Reverse(list)
				s.files = slices.Values(list)
			}
		}
		out[i] = s
	}
	return out
}

func (x *execution) reportWalk(s *source) {
	for _, e := range s.errs {
		x.warn("%v", e)
	}
	s.errs = nil
}

// listFiles is --files.
func (x *execution) listFiles(srcs []*source) error {
	sep := "\n"
	if x.c.Bool("null") {
		sep = "\x00"
	}
	n := 0
	for _, s := range srcs {
		if s.stdin {
			continue
		}
		for f := range s.files {
			if !x.o.Quiet { // rg: -q --files prints nothing, the status says
				path := []byte(pathSep(x.o.Print.PathSep, f.Path))
				if x.o.Print.Color {
					path = x.o.Print.Colours.Path.Paint(path)
				}
				x.w.Write(append(path, sep...))
			}
			n++
		}
		x.reportWalk(s)
	}
	return status(n > 0, x.failed, x.o.Quiet)
}

// slice is rg's choice of reading files whole (a memory map: up to ten
// named files, or -U) rather than through its buffer, which changes where
// it notices binary data.
func (x *execution) slice() bool {
	switch x.o.Mmap {
	case "no-mmap":
		return x.o.Multiline
	case "mmap":
		return true
	}
	slice := len(x.o.Paths) <= 10 || x.o.Multiline
	for _, p := range x.o.Paths {
		if p == "-" {
			slice = x.o.Multiline
		} else if st, err := os.Stat(x.env.Abs(orDot(p))); err != nil || !st.Mode().IsRegular() {
			slice = slice && x.o.Multiline
		}
	}
	return slice
}

// search runs the search over the sources and prints as the options say.
func (x *execution) search(srcs []*source) error {
	o := x.o
	m := o.matcher
	if m == nil {
		var err error
		if m, err = regex.Compile(o.Match); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
	}
	so := o.Search
	so.Slice = x.slice()
	if !search.LiteralScan(m, so) {
		so.MapAbove = 0 // a large file is read: the search goes line by line
	}
	multi := len(o.Paths)+o.EmptyPaths > 1 || x.isDirArg()
	p := printer.NewPrinter(o.Print, m, x.w, multi)
	so.Spans = p.SpanNeed() // only what the output prints
	p.SetSearch(so)
	if p.Mode() == "agent" {
		p.SetAgent(x.agentPrinter(so))
	}
	so.Format = p.LineFormat() // the search prints the lines it finds (nil: it keeps them)
	t := &tally{x: x, p: p, invert: so.Invert, start: time.Now()}
	for _, s := range srcs {
		if t.stop || (o.Quiet && t.matched) {
			break
		}
		t0 := time.Now()
		if s.stdin {
			sto := so
			sto.Slice, sto.Stdin = o.Multiline, true
			p.SetSearch(sto)
			// (a stream, searched in pieces once large: bounded memory)
			if err := grepfs.SearchReader(m, "<stdin>", x.env.Stdin, sto, t.handle); err != nil {
				x.warn("<stdin>: %s", grepfs.ErrText(err))
			}
			p.SetSearch(so)
		} else {
			grepfs.Search(x.c.Context, m, s.files, so, o.Threads, t.handle)
			x.reportWalk(s)
		}
		t.searching += time.Since(t0)
	}
	return x.finish(t)
}

// finish prints what follows the results and decides the exit status.
func (x *execution) finish(t *tally) error {
	p := t.p
	if p.Mode() != "standard" && p.Mode() != "vimgrep" {
		t.total.BytesPrinted = 0 // rg counts the bytes of printed lines only
	}
	p.Finish(t.total, t.searching, time.Since(t.start))
	if p.Stopped() != "" {
		app.Warnf(x.c, "%s", p.Stopped())
	}
	if !x.o.PathsGiven && x.o.Paths[0] == "" && t.total.Searches == 0 {
		// rg 13: the working directory searched, every file filtered out
		fmt.Fprint(x.env.Stderr, "No files were searched, which means ripgrep probably applied a filter you didn't expect.\n"+
			"Running with --debug will show why files are being skipped.\n")
		return exit.Silent(exit.Usage)
	}
	if x.c.Context.Err() != nil {
		return exit.Silent(exit.Interrupted) // what was found is printed
	}
	matched := t.matched
	if p.Mode() == "files-without" {
		matched = t.found
	}
	return status(matched, x.failed, x.o.Quiet)
}

func (x *execution) agentPrinter(so search.SearchOptions) *printer.AgentPrinter {
	single := len(x.o.Paths) == 1 && !x.isDirArg()
	return printer.NewAgentPrinter(printer.AgentOptions{Limit: x.o.Print.MaxTotal, Before: so.Before, After: so.After,
		MaxBytes: x.o.Print.MaxBytes, Name: func(path string) string {
			if single {
				return filepath.Base(path)
			}
			return path
		}})
}

// tally takes each file's result: it prints it and adds up the stats.
type tally struct {
	x         *execution
	p         *printer.Printer
	invert    bool
	start     time.Time
	total     printer.Stats
	searching time.Duration
	matched   bool
	found     bool // --files-without-match printed a path
	stop      bool
}

func (t *tally) handle(r search.FileResult) bool {
	p := t.p
	if r.Err != nil && !r.More {
		if t.x.c.Context.Err() != nil {
			t.stop = true // interrupted: no warning for each file left
			return false
		}
		t.x.warn("%s: %s", r.Path, grepfs.ErrText(r.Err))
		return true
	}
	if t.x.o.Print.CRLF {
		r = search.CRLFSubs(r)
	}
	r = p.Prepare(r) // (rg's binary rules that depend on the output)
	if !r.More {
		t.count(r)
	}
	before := p.Printed()
	if !p.File(r, time.Since(t.start)) {
		t.stop = true
		return false
	}
	t.total.BytesPrinted += p.Printed() - before
	return r.More || !(t.x.o.Quiet && t.matched)
}

// count adds a file's final result to the stats.
func (t *tally) count(r search.FileResult) {
	t.total.Searches++
	t.total.BytesSearched += r.BytesSearched
	if t.p.Mode() == "files-without" && r.MatchedLines == 0 && !r.Skipped {
		t.found = true // rg: the status says whether a path was printed
	}
	if r.MatchedLines > 0 {
		// rg: a count stopped at binary data is not printed and does not
		// make the status 0, but --stats counts it
		t.matched = t.matched || !(r.BinaryQuit && (t.p.Mode() == "count" || t.p.Mode() == "count-matches"))
		t.total.SearchesWithMatch++
		t.total.MatchedLines += r.MatchedLines
		if !t.invert {
			t.total.Matches += r.Matches
		}
	}
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

func (x *execution) isDirArg() bool {
	for _, p := range x.o.Paths {
		if p == "" {
			return true
		}
		if p == "-" {
			continue // stdin, whatever is named "-" in the directory
		}
		if st, err := os.Stat(x.env.Abs(p)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// orDot is "." for the empty root (the working directory).
func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// pathSep applies --path-separator to a printed path.
func pathSep(s, path string) string {
	if s != "" && s != "/" {
		return strings.ReplaceAll(path, "/", s)
	}
	return path
}

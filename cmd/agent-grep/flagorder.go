package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

// overrides are rg 13's overriding flags (clap's overrides_with, which
// works both ways): of two flags of a pair, the later on the command line
// wins and the earlier one counts as not given (-C3 -A0 is -A0 alone,
// -x -w is -w). Every flag also overrides itself (the last value counts).
var overrides = [][2]string{
	{"after-context", "passthru"}, {"after-context", "context"}, {"before-context", "passthru"},
	{"before-context", "context"}, {"context", "passthru"},
	{"binary", "no-binary"}, {"binary", "text"}, {"binary", "no-text"}, {"no-binary", "text"}, {"no-binary", "no-text"},
	{"text", "no-text"},
	{"block-buffered", "no-block-buffered"}, {"block-buffered", "line-buffered"}, {"block-buffered", "no-line-buffered"},
	{"no-block-buffered", "line-buffered"}, {"no-block-buffered", "no-line-buffered"}, {"line-buffered", "no-line-buffered"},
	{"case-sensitive", "ignore-case"}, {"case-sensitive", "smart-case"}, {"ignore-case", "smart-case"},
	{"column", "no-column"}, {"context-separator", "no-context-separator"}, {"count", "count-matches"},
	{"crlf", "no-crlf"}, {"crlf", "null-data"}, {"debug", "trace"}, {"encoding", "no-encoding"},
	{"files-with-matches", "files-without-match"}, {"fixed-strings", "no-fixed-strings"}, {"follow", "no-follow"},
	{"glob-case-insensitive", "no-glob-case-insensitive"}, {"heading", "no-heading"}, {"hidden", "no-hidden"},
	{"ignore-file-case-insensitive", "no-ignore-file-case-insensitive"}, {"json", "no-json"},
	{"line-number", "no-line-number"}, {"line-regexp", "word-regexp"},
	{"max-columns-preview", "no-max-columns-preview"}, {"mmap", "no-mmap"}, {"multiline", "no-multiline"},
	{"multiline-dotall", "no-multiline-dotall"}, {"no-ignore", "ignore"}, {"no-ignore-dot", "ignore-dot"},
	{"no-ignore-exclude", "ignore-exclude"}, {"no-ignore-files", "ignore-files"}, {"no-ignore-global", "ignore-global"},
	{"no-ignore-messages", "ignore-messages"}, {"no-ignore-parent", "ignore-parent"}, {"no-ignore-vcs", "ignore-vcs"},
	{"no-messages", "messages"}, {"no-require-git", "require-git"}, {"no-unicode", "unicode"},
	{"no-pcre2-unicode", "pcre2-unicode"}, {"no-pcre2-unicode", "unicode"}, {"no-unicode", "pcre2-unicode"},
	{"one-file-system", "no-one-file-system"}, {"pcre2", "no-pcre2"}, {"pcre2", "auto-hybrid-regex"},
	{"pcre2", "no-auto-hybrid-regex"}, {"pcre2", "engine"}, {"no-pcre2", "auto-hybrid-regex"},
	{"no-pcre2", "no-auto-hybrid-regex"}, {"no-pcre2", "engine"}, {"auto-hybrid-regex", "no-auto-hybrid-regex"},
	{"auto-hybrid-regex", "engine"}, {"no-auto-hybrid-regex", "engine"},
	{"pre", "no-pre"}, {"pre", "search-zip"}, {"search-zip", "no-search-zip"},
	{"sort-files", "no-sort-files"}, {"sort-files", "sort"}, {"sort-files", "sortr"}, {"no-sort-files", "sort"},
	{"no-sort-files", "sortr"}, {"sort", "sortr"}, {"stats", "no-stats"}, {"trim", "no-trim"},
	{"with-filename", "no-filename"},
}

// occurrence is one flag on the command line: its first (canonical) name
// and its value ("" for a switch).
type occurrence struct{ name, value string }

// flagOccurrences lists the flags of args (args[0] is the program) in
// command-line order, read as internal/app hands them to urfave/cli:
// flags after positional arguments count, "--" ends them, one-letter
// flags cluster (-nC1: the first that takes a value takes the rest, or
// the next argument), a flag's value may start with '-' (-r -n).
func flagOccurrences(flags []cli.Flag, args []string) []occurrence {
	occ, _ := scanArgs(flags, args)
	return occ
}

// positionals are the arguments of args that are not flags or their
// values, in order; everything after the first "--" is one.
func positionals(flags []cli.Flag, args []string) []string {
	_, pos := scanArgs(flags, args)
	return pos
}

// scanArgs reads args into the flags and the positional arguments.
func scanArgs(flags []cli.Flag, args []string) ([]occurrence, []string) {
	canon := map[string]string{}
	takes := map[string]bool{}
	for _, f := range flags {
		names := f.Names()
		for _, n := range names {
			canon[n], takes[n] = names[0], app.TakesValue(f)
		}
	}
	var out []occurrence
	var pos []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		if strings.HasPrefix(a, "--") {
			n, v, hasValue := strings.Cut(a[2:], "=")
			if takes[n] && !hasValue && i+1 < len(args) {
				i++
				v = args[i]
			}
			out = append(out, occurrence{canon[n], v})
			continue
		}
		for j := 1; j < len(a); j++ {
			n := a[j : j+1]
			if !takes[n] {
				out = append(out, occurrence{canon[n], ""})
				continue
			}
			v := strings.TrimPrefix(a[j+1:], "=")
			if j+1 == len(a) && i+1 < len(args) {
				i++
				v = args[i]
			}
			out = append(out, occurrence{canon[n], v})
			break
		}
	}
	return out, pos
}

// givenFlags is the set of flags that count after rg's overrides: a flag
// given and not overridden by a later one.
func givenFlags(occ []occurrence) map[string]bool {
	over := map[string][]string{}
	for _, p := range overrides {
		over[p[0]] = append(over[p[0]], p[1])
		over[p[1]] = append(over[p[1]], p[0])
	}
	given := map[string]bool{}
	for _, o := range occ {
		for _, other := range over[o.name] {
			delete(given, other)
		}
		given[o.name] = true
	}
	return given
}

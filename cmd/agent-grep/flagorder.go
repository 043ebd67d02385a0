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
	t := newFlagTable(flags)
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
		occ, used, _ := t.token(a, args[i+1:])
		out = append(out, occ...)
		i += used
	}
	return out, pos
}

// canonicalArgs spells each flag of args by its first name, one flag a
// token with its value attached (-nC1 is --line-number --context=1), so
// that a flag given in two forms (-n --line-number, -e a --regexp b) is
// one flag given twice: rg allows it, urfave/cli refuses it ("two forms
// of the same flag"). Tokens it does not know stay as they are.
func canonicalArgs(flags []cli.Flag, args []string) []string {
	t := newFlagTable(flags)
	out := append([]string(nil), args[:min(1, len(args))]...)
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		occ, used, known := t.token(a, args[i+1:])
		if !known || !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
			continue
		}
		for _, o := range occ {
			tok := "--" + o.name
			if t.takes[o.name] {
				tok += "=" + o.value
			}
			out = append(out, tok)
		}
		i += used
	}
	return out
}

// flagTable knows each flag name's first name and whether it takes a value.
type flagTable struct {
	canon map[string]string
	takes map[string]bool
}

func newFlagTable(flags []cli.Flag) flagTable {
	t := flagTable{canon: map[string]string{}, takes: map[string]bool{}}
	for _, f := range flags {
		names := flagNames(f)
		for _, n := range names {
			t.canon[n], t.takes[n] = names[0], app.TakesValue(f)
		}
	}
	return t
}

// token reads one flag token (--name, --name=value, or a cluster of
// one-letter flags, the first that takes a value taking the rest or the
// next argument); used is how many of next became a value, known whether
// every name in it is a flag (a value flag with no value is not known).
func (t flagTable) token(a string, next []string) (occ []occurrence, used int, known bool) {
	if strings.HasPrefix(a, "--") {
		n, v, hasValue := strings.Cut(a[2:], "=")
		if t.takes[n] && !hasValue {
			if len(next) == 0 {
				return []occurrence{{t.canon[n], ""}}, 0, false
			}
			v, used = next[0], 1
		}
		_, known = t.canon[n]
		return []occurrence{{t.canon[n], v}}, used, known
	}
	known = true
	for j := 1; j < len(a); j++ {
		n := a[j : j+1]
		if _, ok := t.canon[n]; !ok {
			known = false
		}
		if !t.takes[n] {
			occ = append(occ, occurrence{t.canon[n], ""})
			continue
		}
		v := strings.TrimPrefix(a[j+1:], "=")
		if j+1 == len(a) {
			if len(next) == 0 {
				return append(occ, occurrence{t.canon[n], ""}), 0, false
			}
			v, used = next[0], 1
		}
		return append(occ, occurrence{t.canon[n], v}), used, known
	}
	return occ, 0, known
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

package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:                   "agent-grep",
		Usage:                  "search files for a regex, ripgrep-compatible",
		ArgsUsage:              "PATTERN [PATH...]",
		UseShortOptionHandling: true,
		// "-g '*.{go,md}'" and "-e 'a,b'" are one value each
		DisableSliceFlagSeparator: true,
		HideHelpCommand:           true,
		Description: `agent-grep searches files for lines matching a regular expression (Go's RE2 syntax, with \w \d
\s as Unicode classes as in rg), with ripgrep 13's flags, output formats and exit codes: 0 when
something matched, 1 when nothing did, 2 on an error (a bad regex names the position; an
unreadable file or a missing path is a warning, the search goes on and the exit status is 2).
Of two flags that override each other in rg (-s -i, -C3 -A0, -x -w, --hidden --no-hidden), the
later wins.

Directories are walked with rg's rules: hidden files and what .gitignore, .git/info/exclude,
core.excludesFile, .ignore and .rgignore exclude are skipped (ignore files are read as git reads
them); -g/--iglob globs come first (a match either way is final). Binary files (a NUL byte) found
by walking are skipped; named files are searched and print "binary file matches" instead of the
lines (--binary does this for walked files too, -a searches everything as text). Output is sorted
by path (rg's --sort path) whatever the parallelism; --sort none prints in completion order.
--json prints exactly ripgrep's JSON Lines. Flags of rg that agent-grep does not implement (-P,
--pre, --encoding, …) are refused (exit 2), never ignored.

For agents: --max-total-matches N stops after N matches in all, --max-bytes N stops before the
output passes N bytes; both say so on stderr and, with --json, in the summary record's
"x_agent". --format agent prints the agent grep tool's text (numbered matches, ">>" on the match
line, context indented, a bracketed notice when a limit cut it), the text agent-tool's grep tool
returns.

Examples:
   agent-grep -n 'func main' .
   agent-grep -i -t go -C2 'todo|fixme'
   agent-grep --json -w Add src/ | jq -c 'select(.type=="match")'
   agent-grep --files -g '*.md'
   agent-grep -c error app.log
   agent-grep --format agent -C1 --max-total-matches 20 'Handler\(' .` + refusedText(),
		Flags:  flags(),
		Action: func(c *cli.Context) error { return run(c, env) },
	}
}

func flags() []cli.Flag {
	return append(flagsWithoutNegations(), negationFlags()...)
}

func flagsWithoutNegations() []cli.Flag {
	return slices.Concat(matchFlags(), walkFlags(), outputFlags(), unsupportedFlags())
}

// matchFlags are the flags of what matches and how it prints.
func matchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "regexp", Aliases: []string{"e"}, Usage: "a `PATTERN` (repeatable; then every argument is a path)"},
		&cli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "read patterns from `FILE`, one per line"},
		&cli.BoolFlag{Name: "fixed-strings", Aliases: []string{"F"}, Usage: "patterns are literal strings"},
		&cli.BoolFlag{Name: "ignore-case", Aliases: []string{"i"}, Usage: "case-insensitive"},
		&cli.BoolFlag{Name: "smart-case", Aliases: []string{"S"}, Usage: "case-insensitive unless a pattern has an uppercase letter"},
		&cli.BoolFlag{Name: "case-sensitive", Aliases: []string{"s"}, Usage: "case-sensitive (the default)"},
		&cli.BoolFlag{Name: "word-regexp", Aliases: []string{"w"}, Usage: "only whole words"},
		&cli.BoolFlag{Name: "line-regexp", Aliases: []string{"x"}, Usage: "only whole lines"},
		&cli.BoolFlag{Name: "invert-match", Aliases: []string{"v"}, Usage: "lines that do not match"},
		&cli.BoolFlag{Name: "multiline", Aliases: []string{"U"}, Usage: "let matches span lines"},
		&cli.BoolFlag{Name: "multiline-dotall", Usage: "with -U, . matches newlines too"},
		&cli.BoolFlag{Name: "only-matching", Aliases: []string{"o"}, Usage: "print only the matched parts"},
		&cli.StringFlag{Name: "replace", Aliases: []string{"r"}, Usage: "print `TEXT` instead of each match ($1, ${name} expand; files are never written)"},
		&cli.IntFlag{Name: "after-context", Aliases: []string{"A"}, Usage: "`NUM` lines after each match"},
		&cli.IntFlag{Name: "before-context", Aliases: []string{"B"}, Usage: "`NUM` lines before each match"},
		&cli.IntFlag{Name: "context", Aliases: []string{"C"}, Usage: "`NUM` lines before and after each match"},
		&cli.IntFlag{Name: "max-count", Aliases: []string{"m"}, Usage: "at most `NUM` matching lines per file"},
		&cli.BoolFlag{Name: "files-with-matches", Aliases: []string{"l"}, Usage: "print the paths of files with a match"},
		&cli.BoolFlag{Name: "files-without-match", Usage: "print the paths of files without a match"},
		&cli.BoolFlag{Name: "count", Aliases: []string{"c"}, Usage: "print the number of matching lines per file"},
		&cli.BoolFlag{Name: "count-matches", Usage: "print the number of matches per file"},
		&cli.BoolFlag{Name: "line-number", Aliases: []string{"n"}, Usage: "show line numbers (the default on a terminal)"},
		&cli.BoolFlag{Name: "no-line-number", Aliases: []string{"N"}, Usage: "hide line numbers"},
		&cli.BoolFlag{Name: "column", Usage: "show the column of the first match"},
		&cli.BoolFlag{Name: "with-filename", Aliases: []string{"H"}, Usage: "show the path with each line"},
		&cli.BoolFlag{Name: "no-filename", Aliases: []string{"I"}, Usage: "never show the path"},
		&cli.BoolFlag{Name: "heading", Usage: "group matches under each file's path (the default on a terminal)"},
		&cli.BoolFlag{Name: "no-heading", Usage: "the path on every line"},
		&cli.BoolFlag{Name: "vimgrep", Usage: "path:line:column:text for every match"},
		&cli.BoolFlag{Name: "null", Aliases: []string{"0"}, Usage: "a NUL byte after each path"},
		&cli.BoolFlag{Name: "json", Usage: "ripgrep's JSON Lines (begin/match/context/end/summary)"},
		&cli.BoolFlag{Name: "stats", Usage: "print search statistics at the end"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing; the exit code says whether something matched"},
		&cli.IntFlag{Name: "max-columns", Aliases: []string{"M"}, Usage: "omit lines longer than `NUM` bytes (\"[Omitted long matching line]\")"},
		&cli.BoolFlag{Name: "max-columns-preview", Usage: "with -M, show the start of long lines instead of omitting them"},
	}
}

// walkFlags are the flags of which files are searched, and how.
func walkFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "glob", Aliases: []string{"g"}, Usage: "include (or with !, exclude) paths matching `GLOB` (gitignore syntax, {a,b} alternates; overrides ignore files)"},
		&cli.StringSliceFlag{Name: "iglob", Usage: "like --glob, case-insensitive"},
		&cli.BoolFlag{Name: "glob-case-insensitive", Usage: "every --glob is case-insensitive (an --iglob)"},
		&cli.StringSliceFlag{Name: "type", Aliases: []string{"t"}, Usage: "only files of `TYPE` (see --type-list)"},
		&cli.StringSliceFlag{Name: "type-not", Aliases: []string{"T"}, Usage: "no files of `TYPE`"},
		&cli.BoolFlag{Name: "type-list", Usage: "list the file types and exit"},
		&cli.StringSliceFlag{Name: "type-add", Usage: "add `TYPE:GLOB` (or TYPE:include:A,B) to the type table"},
		&cli.StringSliceFlag{Name: "type-clear", Usage: "remove `TYPE` from the type table (before --type-add)"},
		&cli.BoolFlag{Name: "hidden", Aliases: []string{"."}, Usage: "search hidden files and directories"},
		&cli.BoolFlag{Name: "no-ignore", Usage: "do not read ignore files"},
		&cli.BoolFlag{Name: "no-ignore-vcs", Usage: "do not read .gitignore, .git/info/exclude or core.excludesFile"},
		&cli.BoolFlag{Name: "no-ignore-dot", Usage: "do not read .ignore files (.rgignore still counts, as in rg)"},
		&cli.BoolFlag{Name: "no-ignore-parent", Usage: "do not read ignore files in the directories above a path searched"},
		&cli.BoolFlag{Name: "no-ignore-global", Usage: "do not read core.excludesFile"},
		&cli.BoolFlag{Name: "no-ignore-exclude", Usage: "do not read .git/info/exclude"},
		&cli.BoolFlag{Name: "no-require-git", Usage: "read git's ignore files outside a git repository too"},
		&cli.StringSliceFlag{Name: "ignore-file", Usage: "also ignore what the gitignore-style `PATH` lists (relative to the working directory; below every other ignore file)"},
		&cli.BoolFlag{Name: "no-ignore-files", Usage: "do not read the --ignore-file files"},
		&cli.BoolFlag{Name: "follow", Aliases: []string{"L"}, Usage: "follow symbolic links"},
		&cli.IntFlag{Name: "max-depth", Aliases: []string{"d", "maxdepth"}, Usage: "descend at most `NUM` directories (0: only the paths given)"},
		&cli.StringFlag{Name: "max-filesize", Usage: "skip files larger than `SIZE` (K, M, G suffixes)"},
		&cli.BoolFlag{Name: "text", Aliases: []string{"a"}, Usage: "search binary files as text"},
		&cli.BoolFlag{Name: "binary", Usage: "search binary files found by walking as named ones are (\"binary file matches\")"},
		&cli.BoolFlag{Name: "search-zip", Aliases: []string{"z"}, Usage: "search .gz, .bz2 and .zst files decompressed"},
		&cli.BoolFlag{Name: "files", Usage: "list the files that would be searched"},
		&cli.StringFlag{Name: "sort", Usage: "`ORDER`: path (the default), modified or none"},
		&cli.StringFlag{Name: "sortr", Usage: "like --sort, in reverse `ORDER`"},
		&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Usage: "`NUM` search threads (default: one per CPU)"},
		&cli.StringFlag{Name: "color", Value: "auto", Usage: "`WHEN`: auto, always or never (auto: on a terminal, unless NO_COLOR is set)"},
	}
}

// outputFlags are the agent budgets, the formats and rg's other flags.
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "max-total-matches", Usage: "stop after `NUM` matches in all (agent budget)"},
		&cli.IntFlag{Name: "max-bytes", Usage: "stop before the output passes `NUM` bytes (agent budget)"},
		&cli.StringFlag{Name: "format", Usage: "`FORMAT`: standard (rg's, the default) or agent (the agent grep tool's numbered matches)"},
		&cli.BoolFlag{Name: "unrestricted", Aliases: []string{"u"}, Count: new(int), Usage: "-u: --no-ignore; -uu: and --hidden; -uuu: and --binary"},
		&cli.BoolFlag{Name: "no-messages", Usage: "print no warnings about unreadable files and paths (the exit status still says 2)"},
		&cli.BoolFlag{Name: "include-zero", Usage: "with -c or --count-matches, also the files that matched nothing"},
		&cli.BoolFlag{Name: "trim", Usage: "drop the leading white space of printed lines"},
		&cli.BoolFlag{Name: "byte-offset", Aliases: []string{"b"}, Usage: "show the byte offset of each line (of each match with -o)"},
		&cli.StringFlag{Name: "context-separator", Value: "--", Usage: "`SEPARATOR` between context groups"},
		&cli.BoolFlag{Name: "no-context-separator", Usage: "no separator between context groups"},
		&cli.BoolFlag{Name: "pretty", Aliases: []string{"p"}, Usage: "--color always --heading --line-number"},
		&cli.BoolFlag{Name: "passthru", Aliases: []string{"passthrough"}, Usage: "print every line, the non-matching ones as context"},
		&cli.StringFlag{Name: "path-separator", Usage: "print paths with `SEPARATOR` (one byte) instead of /"},
		&cli.StringFlag{Name: "field-match-separator", Value: ":", Usage: "`SEPARATOR` after the path, line and column of a match line"},
		&cli.StringFlag{Name: "field-context-separator", Value: "-", Usage: "`SEPARATOR` after the path and line of a context line"},
		&cli.BoolFlag{Name: "mmap", Usage: "read every file whole, as rg's memory maps do (where it looks for binary data changes)"},
		&cli.BoolFlag{Name: "no-mmap", Usage: "read every file through rg's 64 KiB buffer (with read(2): a large file is not memory-mapped either)"},
		&cli.BoolFlag{Name: "no-ignore-messages", Usage: "print no ignore-file parse errors (agent-grep prints none; accepted for rg command lines)"},
		&cli.BoolFlag{Name: "line-buffered", Usage: "flush the output after each file's lines (as they are found)"},
		&cli.BoolFlag{Name: "block-buffered", Usage: "flush the output in 64 KiB blocks (the default)"},
		&cli.BoolFlag{Name: "one-file-system", Usage: "do not descend into directories on other file systems"},
		&cli.BoolFlag{Name: "crlf", Usage: "lines may end in \\r\\n: '$' matches before it (rg rewrites '$' to (?:\\r??$))"},
		&cli.StringFlag{Name: "engine", Usage: "`ENGINE`: default or auto (both RE2: a pattern RE2 cannot compile is an error); pcre2 is refused"},
		&cli.BoolFlag{Name: "auto-hybrid-regex", Usage: "--engine auto"},
		&cli.BoolFlag{Name: "no-unicode", Usage: "patterns start with Unicode off, as if each began with (?-u): \\xFF, '.' and [^a] match single bytes, \\w \\d \\s \\b are ASCII, and a non-ASCII character in a pattern is an error (--unicode undoes it)"},
		&cli.StringFlag{Name: "regex-size-limit", Usage: "refuse a pattern whose compiled size, estimated as rg 13's, is above `NUM` bytes with an optional K, M or G (default 100M, as rg)"},
		&cli.StringFlag{Name: "dfa-size-limit", Usage: "the lazy DFA's cache bound, `NUM` bytes with an optional K, M or G (default about 4M); past it the cache is emptied, and a line that fills it alone is left to the regexp"},
		&cli.StringSliceFlag{Name: "colors", Usage: "`COLOR_SPEC` TYPE:fg:COLOR, TYPE:bg:COLOR, TYPE:style:STYLE or TYPE:none (TYPE: path, line, column, match), as rg"},
		&cli.BoolFlag{Name: "ignore-file-case-insensitive", Usage: "match ignore files' patterns case-insensitively"},
		&cli.BoolFlag{Name: "no-config", Usage: "read no configuration file (agent-grep never reads one; accepted for rg command lines)"},
	}
}

// negationFlags are the names in rg's overrides (flagorder.go) not
// defined otherwise, accepted and hidden from --help: a negation of a
// default (--no-hidden), a default itself (--messages, --require-git,
// --unicode, --sort-files: the output is always sorted by path), or the
// negation of a refused flag (--no-pcre2).
func negationFlags() []cli.Flag {
	defined := map[string]bool{}
	for _, f := range flagsWithoutNegations() {
		for _, n := range flagNames(f) {
			defined[n] = true
		}
	}
	var out []cli.Flag
	for _, p := range overrides {
		for _, n := range p {
			if n != "" && !defined[n] {
				defined[n] = true
				out = append(out, &cli.BoolFlag{Name: n, Hidden: true})
			}
		}
	}
	return out
}

// flagNames are a flag's name and aliases. urfave/cli's Names works them
// out with a regexp each call, which a hundred flags made a tenth of a
// search's start-up (internal/app wraps the flags the same way once the
// app is built; this is for the tables made before it).
func flagNames(f cli.Flag) []string {
	switch t := f.(type) {
	case *cli.BoolFlag:
		return append([]string{t.Name}, t.Aliases...)
	case *cli.StringFlag:
		return append([]string{t.Name}, t.Aliases...)
	case *cli.StringSliceFlag:
		return append([]string{t.Name}, t.Aliases...)
	case *cli.IntFlag:
		return append([]string{t.Name}, t.Aliases...)
	}
	return f.Names()
}

// unsupported are rg 13 flags agent-grep refuses (exit 2) rather than
// ignore; they are hidden from --help.
var unsupported = []struct {
	name, alias string
	value       bool
	why         string
}{
	{"pcre2", "P", false, "the engine is RE2: no look-around or backreferences"},
	{"pcre2-version", "", false, "the engine is RE2: no look-around or backreferences"},
	{"no-pcre2-unicode", "", false, "patterns are always Unicode-aware"},
	{"pre", "", true, "no preprocessors: agent-grep runs no programs"},
	{"pre-glob", "", true, "no preprocessors: agent-grep runs no programs"},
	{"null-data", "", false, "lines end in \\n, or \\r\\n with --crlf"},
	{"encoding", "E", true, "input is read as UTF-8, a UTF-8 or UTF-16 BOM sniffed"},
	{"debug", "", false, "no debug output"},
	{"trace", "", false, "no debug output"},
}

// refusedText lists the refused rg flags, with the reasons, for --help
// and the man page.
func refusedText() string {
	var reasons []string
	names := map[string][]string{}
	for _, u := range unsupported {
		n := "--" + u.name
		if u.alias != "" {
			n = "-" + u.alias + "/" + n
		}
		if names[u.why] == nil {
			reasons = append(reasons, u.why)
		}
		names[u.why] = append(names[u.why], n)
	}
	var parts []string
	for _, why := range reasons {
		parts = append(parts, strings.Join(names[why], ", ")+" ("+why+")")
	}
	return "\n\nrg flags refused with exit 2 (\"unsupported rg flag\"): " + strings.Join(parts, "; ") +
		"; also --engine pcre2, and -z on .xz, .lzma, .lz4, .Z and .br files (rg runs external decompressors)."
}

func unsupportedFlags() []cli.Flag {
	var out []cli.Flag
	for _, u := range unsupported {
		var aliases []string
		if u.alias != "" {
			aliases = []string{u.alias}
		}
		if u.value {
			out = append(out, &cli.StringFlag{Name: u.name, Aliases: aliases, Hidden: true})
		} else {
			out = append(out, &cli.BoolFlag{Name: u.name, Aliases: aliases, Hidden: true})
		}
	}
	return out
}

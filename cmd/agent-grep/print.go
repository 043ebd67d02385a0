package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/grep"
)

// printer writes results in the mode the flags chose, counting bytes for
// --max-bytes and matches for --max-total-matches.
type printer struct {
	w                  *bufio.Writer
	mode               string // standard, json, count, count-matches, files, files-without, quiet, vimgrep
	withPath, lineNums bool
	heading, column    bool
	only               bool
	null               bool
	color              bool
	maxCols            int
	preview            bool
	replace            *replacer
	stats              bool
	maxTotal, maxBytes int
	printed            int64
	total              int
	stopped            string
	first              bool
	context            bool // -A/-B/-C: "--" between groups, across files too
	jsonPrinted        int64
	jsonStats          grep.Stats
}

func newPrinter(c *cli.Context, env *app.Env, w *bufio.Writer, multi bool) *printer {
	p := &printer{w: w, first: true, color: env.Color(c.String("color"), env.StdoutTTY), maxCols: c.Int("max-columns"),
		preview: c.Bool("max-columns-preview"), only: c.Bool("only-matching"), null: c.Bool("null"), column: c.Bool("column"),
		stats: c.Bool("stats"), maxTotal: c.Int("max-total-matches"), maxBytes: c.Int("max-bytes")}
	switch {
	case c.Bool("quiet"):
		p.mode = "quiet"
	case c.Bool("json"):
		p.mode = "json"
	case c.Bool("files-with-matches"):
		p.mode = "files"
	case c.Bool("files-without-match"):
		p.mode = "files-without"
	case c.Bool("count-matches"):
		p.mode = "count-matches"
	case c.Bool("count"):
		p.mode = "count"
	case c.Bool("vimgrep"):
		p.mode = "vimgrep"
	default:
		p.mode = "standard"
	}
	p.withPath = multi
	if c.Bool("with-filename") {
		p.withPath = true
	}
	if c.Bool("no-filename") {
		p.withPath = false
	}
	p.lineNums = env.StdoutTTY || c.Bool("column")
	if c.Bool("line-number") {
		p.lineNums = true
	}
	if c.Bool("no-line-number") {
		p.lineNums = false
	}
	p.heading = env.StdoutTTY && p.withPath
	if c.Bool("heading") {
		p.heading = true
	}
	if c.Bool("no-heading") {
		p.heading = false
	}
	return p
}

func (p *printer) sty(code string, b []byte) []byte {
	if !p.color {
		return b
	}
	return append(append([]byte("\x1b["+code+"m"), b...), "\x1b[0m"...)
}

// emit writes one output unit, unless it would pass --max-bytes.
func (p *printer) emit(b []byte) bool {
	if p.maxBytes > 0 && p.printed+int64(len(b)) > int64(p.maxBytes) {
		p.stopped = fmt.Sprintf("output stopped at %d bytes (--max-bytes %d); narrow the search", p.printed, p.maxBytes)
		return false
	}
	p.w.Write(b)
	p.printed += int64(len(b))
	return true
}

func (p *printer) pathBytes(path string) []byte {
	b := p.sty("35", []byte(path))
	return b
}

func (p *printer) sep() string {
	if p.null {
		return "\x00"
	}
	return ":"
}

// file prints one file's result; false stops the search.
func (p *printer) file(r grep.FileResult, elapsed time.Duration) bool {
	if p.maxTotal > 0 && p.total >= p.maxTotal {
		return false
	}
	switch p.mode {
	case "quiet":
		return true
	case "files":
		if r.MatchedLines > 0 {
			return p.emit(append(p.pathBytes(r.Path), p.eol()...))
		}
		return true
	case "files-without":
		if r.MatchedLines == 0 && !r.Skipped {
			return p.emit(append(p.pathBytes(r.Path), p.eol()...))
		}
		return true
	case "count", "count-matches":
		n := r.MatchedLines
		if p.mode == "count-matches" {
			n = r.Matches
		}
		if n == 0 {
			return true
		}
		var b []byte
		if p.withPath {
			b = append(append(b, p.pathBytes(r.Path)...), p.sep()...)
		}
		return p.emit(append(strconv.AppendInt(b, int64(n), 10), '\n'))
	case "json":
		recs, st := grep.JSONRecords(p.budget(r), elapsed)
		// rg's summary adds up the files that printed records
		p.jsonStats.Searches += st.Searches
		p.jsonStats.SearchesWithMatch += st.SearchesWithMatch
		p.jsonStats.BytesSearched += st.BytesSearched
		p.jsonStats.MatchedLines += st.MatchedLines
		p.jsonStats.Matches += st.Matches
		p.jsonStats.BytesPrinted += st.BytesPrinted
		p.jsonStats.Elapsed = st.Elapsed
		for _, rec := range recs {
			if !p.emit(append(rec, '\n')) {
				return false
			}
		}
		return p.stopped == ""
	}
	r = p.budget(r)
	if len(r.Lines) == 0 {
		return true
	}
	var out bytes.Buffer
	if p.heading && p.mode == "standard" {
		if !p.first {
			out.WriteByte('\n')
		}
		out.Write(p.pathBytes(r.Path))
		out.WriteByte('\n')
	}
	p.first = false
	for k, l := range r.Lines {
		if p.mode == "standard" && (l.Gap || (k == 0 && p.context && p.printed > 0)) {
			out.Write(p.sty("2", []byte("--")))
			out.WriteByte('\n')
		}
		text := bytes.TrimRight(l.Text, "\r\n")
		if p.mode == "vimgrep" {
			for _, s := range l.Subs {
				fmt.Fprintf(&out, "%s:%d:%d:%s\n", r.Path, l.Number, s.Start+1, text)
			}
			continue
		}
		sep := byte(':')
		if !l.Match {
			sep = '-'
		}
		prefix := func() {
			if p.withPath && !p.heading {
				out.Write(p.pathBytes(r.Path))
				if p.null {
					out.WriteByte(0)
				} else {
					out.WriteByte(sep)
				}
			}
			if p.lineNums {
				out.Write(p.sty("32", []byte(strconv.Itoa(l.Number))))
				out.WriteByte(sep)
			}
			if p.column && l.Match && len(l.Subs) > 0 {
				out.WriteString(strconv.Itoa(l.Subs[0].Start + 1))
				out.WriteByte(sep)
			}
		}
		if p.only && l.Match {
			for _, s := range l.Subs {
				prefix()
				part := text[min(s.Start, len(text)):min(s.End, len(text))]
				if p.replace != nil {
					part = p.replace.re.ExpandMatch(text, s, p.replace.tmpl)
				}
				out.Write(p.sty("1;31", part))
				out.WriteByte('\n')
			}
			continue
		}
		prefix()
		if p.maxCols > 0 && len(text) > p.maxCols {
			if p.preview {
				out.Write(text[:p.maxCols])
				out.WriteString(" [... omitted end of long line]\n")
			} else {
				fmt.Fprintf(&out, "[Omitted long line with %d matches]\n", len(l.Subs))
			}
			continue
		}
		out.Write(p.highlight(text, l))
		out.WriteByte('\n')
	}
	return p.emit(out.Bytes())
}

func (p *printer) eol() []byte {
	if p.null {
		return []byte{0}
	}
	return []byte{'\n'}
}

// highlight colours the matches of a line, or replaces them (--replace).
func (p *printer) highlight(text []byte, l grep.Line) []byte {
	if (!p.color && p.replace == nil) || !l.Match || len(l.Subs) == 0 {
		return text
	}
	var b []byte
	last := 0
	for _, s := range l.Subs {
		if s.Start < last || s.Start > len(text) {
			continue
		}
		end := min(s.End, len(text))
		b = append(b, text[last:s.Start]...)
		part := text[s.Start:end]
		if p.replace != nil {
			part = p.replace.re.ExpandMatch(text, s, p.replace.tmpl)
		}
		b = append(b, p.sty("1;31", part)...)
		last = end
	}
	return append(b, text[last:]...)
}

// budget trims a result to what --max-total-matches still allows.
func (p *printer) budget(r grep.FileResult) grep.FileResult {
	if p.maxTotal <= 0 {
		return r
	}
	left := p.maxTotal - p.total
	var kept []grep.Line
	for _, l := range r.Lines {
		if l.Match {
			if left == 0 {
				p.stopped = fmt.Sprintf("stopped after %d matches (--max-total-matches); narrow the search or raise the limit", p.maxTotal)
				break
			}
			left--
		}
		kept = append(kept, l)
	}
	p.total = p.maxTotal - left
	r.Lines = kept
	return r
}

func (p *printer) finish(st grep.Stats, elapsed time.Duration) {
	if p.mode == "json" {
		js := p.jsonStats
		p.w.Write(grep.JSONSummary(elapsed, js))
		p.w.WriteByte('\n')
		return
	}
	if p.stats {
		fmt.Fprintf(p.w, "\n%d matches\n%d matched lines\n%d files contained matches\n%d files searched\n%d bytes printed\n%d bytes searched\n%.6f seconds\n",
			st.Matches, st.MatchedLines, st.SearchesWithMatch, st.Searches, st.BytesPrinted, st.BytesSearched, elapsed.Seconds())
	}
}

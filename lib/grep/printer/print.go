package printer

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"strconv"
	"strings"
	"time"
)

// Printer writes results as rg prints them, in every output mode (one
// layer: the standard and --vimgrep lines, the -c/-l summaries, --json's
// records from json.go, the agent text from agent.go), counting bytes for
// --max-bytes and matches for --max-total-matches. It writes to w only.
type Printer struct {
	*format            // how a line prints (shared with the searches that stream, LineFormat)
	w                  *bufio.Writer
	stats              bool
	maxTotal, maxBytes int
	printed            int64
	total              int
	filesWith          int
	stopped            string // why the output stopped early (a budget), for the final notice
	reason             string // max_total_matches or max_bytes
	first              bool
	context            bool // -A/-B/-C: "--" between groups, across files too
	jsonStats          Stats
	agent              *AgentPrinter
	includeZero        bool     // --include-zero
	ctxSep             []byte   // --context-separator (nil: none)
	lineBuffered       bool     // --line-buffered
	cur                part     // the file whose result is coming in parts (FileResult.More)
	passthruMax        int      // --passthru -m N
	maxCount           int      // -m
	slice              bool     // files are read whole (SearchOptions.Slice)
	passthru           bool     // --passthru
	after              int      // -A
	parallel           bool     // PrintOptions.Parallel
	multiline          bool     // -U searches the whole file, not line by line
	noneInverted       bool     // PrintOptions.CountInvertedMatches
	out                []byte   // standard's text of a part, reused
	outBufs            *outBufs // the buffers of FileResult.Out, for reuse (stream.go)
	jsonBuf            []byte   // --json's records of a file, reused from file to file
}

// format is how the standard and --vimgrep formats print a line: set
// once, then only read, by the printer and by the searches that format
// their lines as they find them (LineFormat), on any goroutine.
type format struct {
	mode               string // standard, json, count, count-matches, files, files-without, quiet, vimgrep, agent
	withPath, lineNums bool
	heading, column    bool
	only               bool
	null               bool
	color              bool
	invert             bool
	maxCols            int
	preview            bool
	replace            *replacer
	trim               bool   // --trim
	byteOffset         bool   // -b
	matchSep, ctxField string // --field-match-separator, --field-context-separator
	pathSep            string // --path-separator ("": /)
	crlf               bool   // --crlf
	colours            Colours
	granular           bool // rg finds each match of a line (colour, -r, -o, --column, --vimgrep, --stats)
}

// part is what the printer keeps of a file whose result comes in parts.
type part struct {
	open    bool  // a part came, the last has not
	started bool  // lines of the file were printed
	stopped bool  // rg's "binary file matches" ended the file's lines
	begun   bool  // --json: the begin record is out
	printed int64 // --json: the bytes of the file's records so far
	// lastMatch is the offset of the last matching line of the parts so
	// far (-1: none)
	lastMatch int64
	// the binary stop (binary_stop.go): the number of the last matching
	// line handed over, whether there was one (or lines the search
	// printed), where rg's search stood (read whole), and the matching
	// lines (and their matches) left out after the stop
	lastNum                int
	matchSeen              bool
	stopBytes, visited     int64
	dropLines, dropMatches int
}

// replacer is -r: each match replaced by the template ($1, ${name}).
type replacer struct {
	re   *regex.Matcher
	tmpl string
}

// PrintOptions are the printer's: rg's standard and --vimgrep formats,
// the summaries (-c, -l, --files-without-match, --stats), --json
// (json.go) and the agent text (agent.go), all printed here.
type PrintOptions struct {
	Mode               string // standard, json, count, count-matches, files, files-without, quiet, vimgrep, agent
	Color              bool
	MaxColumns         int
	Preview            bool // --max-columns-preview
	Only               bool // -o
	Null               bool // -0
	Column             bool
	Stats              bool
	MaxTotal, MaxBytes int  // the agent budgets
	Invert             bool // -v
	IncludeZero        bool
	Trim               bool
	ByteOffset         bool
	ContextSep         *string // --context-separator (nil: none)
	MatchSep, CtxField string  // --field-match-separator, --field-context-separator
	PathSep            string  // --path-separator ("": /)
	LineBuffered       bool
	WithFilename       *bool // -H/-I (nil: when several files are searched)
	LineNumbers        bool
	Heading            bool    // --heading (shown only where paths are)
	Replace            *string // -r
	Passthru           bool
	PassthruMax        int  // --passthru -m N: no lines after the Nth match
	CRLF               bool // --crlf: -o ends each match with "\r\n"
	Colours            Colours
	// CountInvertedMatches: -c -o -v (not --count-matches): rg counts the
	// matches of the inverted lines, none, and prints 0 for a file that
	// has such lines.
	CountInvertedMatches bool
	// Parallel: rg would search with several threads, whose output puts
	// the file separator ("--" with context, a blank line with --heading)
	// between any two files' output, a binary note alone too.
	Parallel bool
}

func NewPrinter(po PrintOptions, m *regex.Matcher, w *bufio.Writer, multi bool) *Printer {
	f := &format{color: po.Color, maxCols: po.MaxColumns, preview: po.Preview, only: po.Only,
		null: po.Null, column: po.Column, invert: po.Invert, trim: po.Trim, byteOffset: po.ByteOffset,
		matchSep: po.MatchSep, ctxField: po.CtxField, pathSep: po.PathSep, mode: po.Mode,
		lineNums: po.LineNumbers, crlf: po.CRLF, colours: po.Colours,
		granular: po.Color || po.Replace != nil || po.Only || po.Column || po.Mode == "vimgrep" || po.Stats}
	p := &Printer{format: f, w: w, first: true, stats: po.Stats, maxTotal: po.MaxTotal, maxBytes: po.MaxBytes,
		includeZero: po.IncludeZero, lineBuffered: po.LineBuffered, passthruMax: po.PassthruMax, passthru: po.Passthru,
		parallel: po.Parallel, multiline: m != nil && m.Multiline, noneInverted: po.CountInvertedMatches}
	if po.ContextSep != nil {
		p.ctxSep = []byte(*po.ContextSep)
	}
	if po.Replace != nil {
		p.replace = &replacer{re: m, tmpl: *po.Replace}
	}
	p.withPath = multi || p.mode == "vimgrep" // rg: --vimgrep names the file in every mode
	if po.WithFilename != nil {
		p.withPath = *po.WithFilename
	}
	// rg: with --heading, files are apart by a blank line, under their
	// path where paths are shown
	p.heading = po.Heading && p.mode != "vimgrep"
	return p
}

// SetSearch tells the printer what the search keeps: context lines (the
// "--" between groups), -m, and whether files are read whole (rg's
// binary-data rules differ).
func (p *Printer) SetSearch(so search.SearchOptions) {
	p.context = (so.Before > 0 || so.After > 0) && !p.passthru // rg: --passthru has no "--"
	p.maxCount, p.slice, p.after = so.MaxCount, so.Slice, so.After
}

// ctxBreaks: "--" between groups of lines (-A/-B/-C), in the standard
// and --vimgrep formats alike (rg's), and between files.
func (p *Printer) ctxBreaks() bool {
	return (p.mode == "standard" || p.mode == "vimgrep") && p.context && p.ctxSep != nil
}

// SetAgent makes the printer collect results into the agent text, which
// applies the output budgets itself.
func (p *Printer) SetAgent(a *AgentPrinter) {
	p.agent = a
	p.maxTotal, p.maxBytes = 0, 0
}

// Printed is the number of bytes printed so far.
func (p *Printer) Printed() int64 { return p.printed }

// Mode is the output mode (PrintOptions.Mode).
func (p *Printer) Mode() string { return p.mode }

// Stopped says why a budget stopped the output ("" when none did).
func (p *Printer) Stopped() string { return p.stopped }

// paint appends an element of the output to b, coloured when colour is
// on (--colors).
func (p *format) paint(b []byte, c Colour, text []byte) []byte {
	if !p.color {
		return append(b, text...)
	}
	return c.appendPaint(b, text)
}

// stopAtTotal records that --max-total-matches stopped the output.
func (p *Printer) stopAtTotal() {
	p.stopped = fmt.Sprintf("stopped after %d matches (--max-total-matches %d); narrow the search or raise the limit", p.maxTotal, p.maxTotal)
	p.reason = "max_total_matches"
}

// emit writes one output unit, unless it would pass --max-bytes.
func (p *Printer) emit(b []byte) bool {
	if p.maxBytes > 0 && p.printed+int64(len(b)) > int64(p.maxBytes) {
		p.stopped = fmt.Sprintf("output stopped at %d bytes (--max-bytes %d); narrow the search or raise the limit", p.printed, p.maxBytes)
		p.reason = "max_bytes"
		return false
	}
	p.w.Write(b)
	p.printed += int64(len(b))
	if p.lineBuffered {
		p.w.Flush()
	}
	return true
}

func (p *format) pathBytes(path string) []byte {
	if p.pathSep != "" {
		path = strings.ReplaceAll(path, "/", p.pathSep)
	}
	if !p.color {
		return []byte(path)
	}
	return p.colours.Path.Paint([]byte(path))
}

// linePath is the path as each line of a file begins with it (format.
// prefix); nil with --heading or without paths.
func (p *format) linePath(path string) []byte {
	if p.withPath && !p.heading {
		return p.pathBytes(path)
	}
	return nil
}

// eol ends a path printed alone (-l, a heading): NUL with --null.
func (p *format) eol() []byte {
	if p.null {
		return []byte{0}
	}
	return p.nl()
}

// nl ends a line the printer makes (a path, a count, an -o match):
// "\r\n" with --crlf, as rg.
func (p *format) nl() []byte {
	if p.crlf {
		return []byte("\r\n")
	}
	return []byte{'\n'}
}

// File prints one file's result, or a part of it (r.More, then the last
// part, without lines and with the final counts); false stops the search.
func (p *Printer) File(r search.FileResult, elapsed time.Duration) bool {
	last := !r.More && p.cur.open // the last part of a result in parts
	if r.More {
		p.partCame(r)
	} else {
		defer func() { p.cur = part{} }()
	}
	if p.maxTotal > 0 && p.total >= p.maxTotal && !last {
		if r.MatchedLines > 0 && p.mode != "quiet" {
			p.stopAtTotal()
			return false
		}
		return true
	}
	if r.More {
		// parts come only for the modes that print lines (the others
		// count and so keep none)
		switch p.mode {
		case "json":
			return p.jsonPart(r, elapsed)
		case "standard", "vimgrep":
		default:
			return true
		}
	}
	if r.MatchedLines > 0 {
		p.filesWith++
	}
	if p.passthruMax > 0 && r.MatchedLines >= p.passthruMax {
		// rg: --passthru -m N prints nothing after the Nth match
		seen := 0
		for k, l := range r.Lines {
			if l.Match {
				if seen++; seen == p.passthruMax {
					r.Lines = r.Lines[:k+1]
					break
				}
			}
		}
	}
	switch p.mode {
	case "quiet":
		return true
	case "agent":
		return p.agent.Add(r)
	case "files", "files-without", "count", "count-matches":
		return p.summary(r)
	case "json":
		if last {
			return p.jsonPart(r, elapsed)
		}
		return p.jsonFile(r, elapsed)
	}
	return p.standard(r, last)
}

// partCame notes a part of a result in parts.
func (p *Printer) partCame(r search.FileResult) {
	if !p.cur.open {
		p.cur.lastMatch = -1
	}
	p.cur.open = true
	for _, l := range r.Lines {
		if l.Match {
			p.cur.lastMatch = l.Offset
		}
	}
}

// summary prints -l, --files-without-match, -c and --count-matches.
func (p *Printer) summary(r search.FileResult) bool {
	if r.BinaryQuit && p.mode != "files" {
		return true // rg prints no count for a file it stopped at binary data
	}
	switch p.mode {
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
	}
	n := r.MatchedLines
	if p.mode == "count-matches" {
		n = r.Matches
	}
	if p.noneInverted {
		n = 0 // (-c -o -v: rg counts the matches of the inverted lines, which hold none)
	}
	if n == 0 && !(p.noneInverted && r.MatchedLines > 0) && !(p.includeZero && !r.Skipped) {
		return true
	}
	var b []byte
	if p.withPath {
		b = append(b, p.pathBytes(r.Path)...)
		if p.null {
			b = append(b, 0)
		} else {
			b = append(b, ':')
		}
	}
	return p.emit(append(strconv.AppendInt(b, int64(n), 10), p.nl()...))
}

// jsonFile prints a whole file's --json records.
func (p *Printer) jsonFile(r search.FileResult, elapsed time.Duration) bool {
	if p.invert {
		r.Matches = 0 // rg counts no matches in inverted lines
	}
	// a file's records go out whole or not at all (--max-bytes)
	all, st := appendJSONFile(p.jsonBuf[:0], p.budget(r), elapsed)
	p.keepJSONBuf(all)
	if len(all) > 0 && !p.emit(all) {
		return false
	}
	p.addJSONStats(st)
	return p.stopped == ""
}

// standard prints a file's lines (or a part's) in rg's standard and
// --vimgrep formats, with rg's notes about binary data after them.
func (p *Printer) standard(r search.FileResult, last bool) bool {
	r = p.budget(r)
	out := p.out[:0] // reused: a part of every line of a 1 MiB piece is over 1 MB
	defer func() { p.out = out[:0] }()
	if len(r.Lines) > 0 || len(r.Out) > 0 {
		if p.heading && p.mode == "standard" && !p.cur.started {
			if !p.first {
				out = append(out, '\n')
			}
			if p.withPath {
				out = append(out, p.pathBytes(r.Path)...)
				out = append(out, p.eol()...) // rg: --null ends the heading with NUL
			}
		}
		p.first = false
		if len(r.Out) > 0 && p.ctxBreaks() && !p.cur.started && p.printed > 0 && !p.heading {
			out = append(append(out, p.ctxSep...), '\n') // (Printer.lines's, before a file's first group)
		}
		if len(r.Out) > 0 {
			if !p.printOut(out, r.Out) {
				return false
			}
			out = out[:0]
		}
		out = p.lines(out, r)
		p.cur.started = true
	} else if !last && r.Stop == search.StopNone {
		return p.stopped == ""
	}
	if r.Stop != search.StopNone {
		out = p.binaryStopped(out, r)
	}
	if !r.More && r.BinaryFrom >= 0 && !p.slice && !p.cur.stopped && p.cur.started {
		// rg's buffered read saw a NUL after the matches it printed
		out = p.binaryMatches(out, r)
	}
	if !r.More && r.BinaryQuit && r.MatchedLines > 0 && p.cur.started {
		if r.StopGap && p.ctxBreaks() {
			out = append(append(out, p.ctxSep...), '\n')
		}
		if p.withPath {
			out = append(out, p.pathBytes(r.Path)...)
			out = append(out, ": "...)
		}
		out = fmt.Appendf(out, "WARNING: stopped searching binary file after match (found \"\\0\" byte around offset %d)\n", r.BinaryOffset)
	}
	if len(out) == 0 {
		return p.stopped == ""
	}
	return p.emit(out)
}

// maxCountBinary: when -m stopped rg's buffered read before the fill
// with the NUL byte, rg never saw it.
func (p *Printer) maxCountBinary(r search.FileResult) search.FileResult {
	if p.maxCount == 0 || r.MatchedLines < p.maxCount || p.slice {
		return r
	}
	lastMatch := int64(-1)
	if p.cur.open {
		lastMatch = p.cur.lastMatch
	}
	for _, l := range r.Lines {
		if l.Match {
			lastMatch = l.Offset
		}
	}
	if r.BinaryQuit || r.BinaryFrom >= 0 && lastMatch >= 0 && lastMatch < r.BinaryFrom {
		r.BinaryQuit, r.BinaryFrom = false, -1
	}
	return r
}

// jsonPart prints a part of a file's result in --json: the begin record
// before its first lines, the end record after the last part.
func (p *Printer) jsonPart(r search.FileResult, elapsed time.Duration) bool {
	all := p.jsonBuf[:0]
	if len(r.Lines) > 0 && !p.cur.begun {
		all = append(append(all, JSONBegin(r.Path)...), '\n')
		p.cur.begun = true
		p.cur.printed += int64(len(all))
	}
	all, p.cur.printed = JSONLines(all, p.cur.printed, r.Path, r.Lines)
	var st Stats
	if !r.More && p.cur.begun && r.MatchedLines > 0 {
		if p.invert {
			r.Matches = 0 // rg counts no matches in inverted lines
		}
		var end []byte
		end, st = JSONEnd(r, p.cur.printed, elapsed)
		all = append(append(all, end...), '\n')
	}
	p.keepJSONBuf(all)
	if len(all) > 0 && !p.emit(all) {
		return false
	}
	if st.Searches > 0 {
		p.addJSONStats(st)
	}
	return p.stopped == ""
}

// keepJSONBuf keeps the storage of a file's records for the next file's
// (emit copies them out): --json over a tree appended each file's
// records into a new buffer, grown by doubling, twice its output in
// garbage. A buffer larger than maxOut is not kept.
func (p *Printer) keepJSONBuf(all []byte) {
	if cap(all) <= maxOut {
		p.jsonBuf = all[:0]
	}
}

// addJSONStats adds a file's end-record stats to the summary's: rg's
// summary adds up the files that printed records.
func (p *Printer) addJSONStats(st Stats) {
	p.jsonStats.Searches += st.Searches
	p.jsonStats.SearchesWithMatch += st.SearchesWithMatch
	p.jsonStats.BytesSearched += st.BytesSearched
	p.jsonStats.MatchedLines += st.MatchedLines
	p.jsonStats.Matches += st.Matches
	p.jsonStats.BytesPrinted += st.BytesPrinted
	p.jsonStats.Elapsed = st.Elapsed
}

// lines appends the lines of a result (or of a part of it) in the
// standard and vimgrep formats to out.
func (p *Printer) lines(out []byte, r search.FileResult) []byte {
	k := 0
	path := p.linePath(r.Path)
	for _, rec := range r.Lines {
		if rec.Match && multiLine(rec.Text) && !p.only && (p.mode == "vimgrep" || p.replace != nil) {
			// -U: rg prints a match spanning lines once, from its first line
			out = p.record(out, path, rec)
			k++
			continue
		}
		for _, l := range physicalLines([]search.Line{rec}) {
			if p.ctxBreaks() && (l.Gap || (k == 0 && !p.cur.started && p.printed > 0 && !p.heading)) {
				out = append(append(out, p.ctxSep...), '\n')
			}
			out = p.line(out, path, l)
			k++
		}
	}
	return out
}

func (p *Printer) binaryMatches(out []byte, r search.FileResult) []byte {
	if p.withPath {
		out = append(out, p.pathBytes(r.Path)...)
		out = append(out, ": "...)
	}
	return fmt.Appendf(out, "binary file matches (found \"\\0\" byte around offset %d)\n", r.BinaryOffset)
}

func multiLine(text []byte) bool {
	i := bytes.IndexByte(text, '\n')
	return i >= 0 && i < len(text)-1
}

// record appends a -U match that spans lines: with -r replaced as a
// whole after its first line's number; in --vimgrep once per match, with
// the line it starts on.
func (p *format) record(out, path []byte, l search.Line) []byte {
	text := bytes.TrimSuffix(l.Text, []byte{'\n'})
	if p.mode != "vimgrep" {
		out = p.prefix(out, path, l, p.matchSep, l.Subs[0].Start+1, l.Offset)
		out = p.highlight(out, text, l, -1)
		return append(out, '\n')
	}
	for _, s := range l.Subs {
		start := bytes.LastIndexByte(text[:s.Start], '\n') + 1
		end := bytes.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text) - start
		}
		pl := search.Line{Number: l.Number + bytes.Count(text[:start], []byte{'\n'}), Match: true}
		out = p.prefix(out, path, pl, p.matchSep, s.Start-start+1, l.Offset+int64(s.Start))
		// (the match's part on its first line coloured)
		part := regex.Span{Start: s.Start - start, End: min(s.End-start, end)}
		out = p.paintSpans(out, text[start:start+end], []regex.Span{part}, -1, nil)
		out = append(out, '\n')
	}
	return out
}

// prefix appends what comes before a line's text: path, line number,
// column and byte offset, as the flags ask.
func (p *format) prefix(out, path []byte, l search.Line, sep string, col int, off int64) []byte {
	if p.withPath && !p.heading {
		out = append(out, path...)
		if p.null {
			out = append(out, 0)
		} else {
			out = append(out, sep...)
		}
	}
	var num [20]byte // (the digits, without an allocation)
	if p.lineNums {
		out = p.paint(out, p.colours.Line, strconv.AppendInt(num[:0], int64(l.Number), 10))
		out = append(out, sep...)
	}
	if p.column && col > 0 {
		out = p.paint(out, p.colours.Column, strconv.AppendInt(num[:0], int64(col), 10))
		out = append(out, sep...)
	}
	if p.byteOffset {
		out = p.paint(out, p.colours.Column, strconv.AppendInt(num[:0], off, 10))
		out = append(out, sep...)
	}
	return out
}

// line appends one physical line.
func (p *format) line(out, path []byte, l search.Line) []byte {
	text := bytes.TrimSuffix(l.Text, []byte{'\n'})
	if p.crlf {
		text = bytes.TrimSuffix(text, []byte{'\r'})
	}
	own := l.Text[len(text):] // the line's terminator
	// rg: -o -v prints the lines, and each match of a context line
	only := p.only && len(l.Subs) > 0 && (l.Match != p.invert)
	var wide *wideLine
	if !only {
		wide = p.tooWide(text, own, l) // (rg measures the line before --trim)
	}
	// --trim trims what prints, not the columns and offsets before it (rg 13)
	shown, sl, hl := text, l, p
	if p.trim {
		shown, sl, hl = p.trimmed(text, l)
	}
	sep := p.matchSep
	if !l.Match {
		sep = p.ctxField
	}
	end := p.lineEnd(own, wide == nil && (len(l.Subs) == 0 || !p.color && p.replace == nil))
	switch {
	case only: // (before --vimgrep's line per match: rg)
		return p.onlyMatching(out, path, l, text, sep)
	case p.mode == "vimgrep" && len(l.Subs) > 0: // (rg: -v prints the line once, no column; its context lines per match)
		for i, s := range l.Subs {
			out = p.prefix(out, path, l, sep, s.Start+1, l.Offset+int64(s.Start))
			if wide == nil {
				out = hl.highlight(out, shown, sl, i)
			} else {
				// rg counts every match of the line after the preview,
				// but colours (and with colour counts) this one alone
				spans := wide.subs
				if p.color && i < len(spans) {
					spans = spans[i : i+1]
				}
				out = p.exceeded(out, wide, l, spans, spans)
			}
			out = append(out, end...)
		}
		return out
	}
	firstCol := 0
	if len(l.Subs) > 0 {
		firstCol = l.Subs[0].Start + 1
	}
	out = p.prefix(out, path, l, sep, firstCol, l.Offset)
	if wide == nil {
		out = hl.highlight(out, shown, sl, -1)
	} else {
		out = p.exceeded(out, wide, l, wide.subs, wide.subs)
	}
	return append(out, end...)
}

// lineEnd is what ends a printed line, as rg ends it: its own terminator
// (own) when the line is printed as it is (asIs), else (no terminator,
// colour, -r, an -M note) the searcher's, "\r\n" with --crlf.
func (p *format) lineEnd(own []byte, asIs bool) []byte {
	if len(own) > 0 && (asIs || !p.crlf) {
		return own[:len(own):len(own)]
	}
	return p.nl()
}

// trimmed is --trim's line: rg trims the line as printed, with -r the
// replaced one (then hl, the format that highlights it, replaces no more).
func (p *format) trimmed(text []byte, l search.Line) (shown []byte, sl search.Line, hl *format) {
	if p.replace == nil || len(l.Subs) == 0 {
		shown, sl = trimLine(text, l)
		return shown, sl, p
	}
	b, subs := p.replace.all(text, l.Subs)
	shown, sl = trimLine(b, search.Line{Match: l.Match, Subs: subs})
	q := *p
	q.replace = nil
	return shown, sl, &q
}

// asciiSpace is what --trim trims.
const asciiSpace = " \t\v\f\r"

// trimLine is --trim: the line without its leading white space (the
// match spans move).
func trimLine(text []byte, l search.Line) ([]byte, search.Line) {
	cut := len(text) - len(bytes.TrimLeft(text, asciiSpace))
	var subs []regex.Span
	for _, s := range l.Subs {
		if s.End > cut {
			subs = append(subs, regex.Span{Start: max(s.Start-cut, 0), End: s.End - cut})
		}
	}
	l.Subs = subs
	l.Offset += int64(cut)
	return text[cut:], l
}

// onlyMatching is -o: each match on its own line (rg skips the part of a
// -U match that is only a line's end).
func (p *format) onlyMatching(out, path []byte, l search.Line, text []byte, sep string) []byte {
	for _, s := range l.Subs {
		part := text[min(s.Start, len(text)):min(s.End, len(text))]
		if len(part) == 0 && s.End > s.Start {
			continue
		}
		out = p.prefix(out, path, l, sep, s.Start+1, l.Offset+int64(s.Start))
		if p.replace != nil {
			part = p.replace.re.ExpandMatch(text, s, p.replace.tmpl)
		}
		if p.trim {
			part = bytes.TrimLeft(part, asciiSpace)
		}
		if p.maxCols > 0 && len(part) > p.maxCols {
			out = p.onlyExceeded(out, text, l, part)
		} else {
			out = p.paint(out, p.colours.Match, part)
		}
		out = append(out, p.nl()...)
	}
	return out
}

// physicalLines splits -U records that hold several lines into one Line
// per line, each with the parts of the matches on it.
func physicalLines(lines []search.Line) []search.Line {
	multi := false
	for _, l := range lines {
		if i := bytes.IndexByte(l.Text, '\n'); i >= 0 && i < len(l.Text)-1 {
			multi = true
			break
		}
	}
	if !multi {
		return lines
	}
	var out []search.Line
	for _, l := range lines {
		start := 0
		for k := 0; start < len(l.Text); k++ {
			end := bytes.IndexByte(l.Text[start:], '\n')
			if end < 0 {
				end = len(l.Text)
			} else {
				end += start + 1
			}
			pl := search.Line{Number: l.Number + k, Offset: l.Offset + int64(start), Text: l.Text[start:end], Match: l.Match, Gap: l.Gap && k == 0}
			for _, s := range l.Subs {
				a, b := max(s.Start, start), min(s.End, end)
				if a < b || (s.Start == s.End && s.Start >= start && s.Start < end) {
					pl.Subs = append(pl.Subs, regex.Span{Start: a - start, End: b - start})
				}
			}
			out = append(out, pl)
			start = end
		}
	}
	return out
}

// highlight appends a line with its matches coloured, or replaced
// (--replace); only >= 0 colours that match alone (--vimgrep's line of
// one match: rg replaces them all, colours that one).
func (p *format) highlight(out, text []byte, l search.Line, only int) []byte {
	return p.paintSpans(out, text, l.Subs, only, p.replace)
}

// paintSpans appends text with the spans coloured, or replaced (rep);
// only >= 0 colours that span alone.
func (p *format) paintSpans(out, text []byte, subs []regex.Span, only int, rep *replacer) []byte {
	if (!p.color && rep == nil) || len(subs) == 0 {
		return append(out, text...)
	}
	last := 0
	for i := 0; i < len(subs); i++ {
		s := subs[i]
		if s.Start < last || s.Start > len(text) {
			continue
		}
		end := min(s.End, len(text))
		out = append(out, text[last:s.Start]...)
		part := text[s.Start:end]
		if rep != nil {
			part = rep.re.ExpandMatch(text, s, rep.tmpl)
		}
		// rg ends a match's colour only at text that is not a match:
		// matches that touch are one coloured run ("oo" in foo, "XX"
		// with -r X).
		for only < 0 && p.color && i+1 < len(subs) && subs[i+1].Start == end && subs[i+1].End > end && end < len(text) {
			i++
			if rep != nil {
				part = append(part[:len(part):len(part)], rep.re.ExpandMatch(text, subs[i], rep.tmpl)...)
			}
			end = min(subs[i].End, len(text))
		}
		if rep == nil {
			part = text[s.Start:end]
		}
		if only >= 0 && i != only {
			out = append(out, part...)
		} else {
			out = p.paint(out, p.colours.Match, part)
		}
		last = end
	}
	return append(out, text[last:]...)
}

// budget trims a result to what --max-total-matches still allows.
func (p *Printer) budget(r search.FileResult) search.FileResult {
	if p.maxTotal <= 0 {
		return r
	}
	left := p.maxTotal - p.total
	var kept []search.Line
	for _, l := range r.Lines {
		if l.Match {
			if left == 0 {
				p.stopAtTotal()
				break
			}
			left--
		}
		kept = append(kept, l)
	}
	p.total = p.maxTotal - left
	if len(kept) < len(r.Lines) {
		// the stats of what is printed
		r.MatchedLines, r.Matches = 0, 0
		for _, l := range kept {
			if l.Match {
				r.MatchedLines++
				r.Matches += len(l.Subs)
			}
		}
	}
	r.Lines = kept
	return r
}

// Finish writes what comes after the results: the JSON summary (with
// "x_agent" under an agent budget), rg's --stats, the agent text and its
// notices.
func (p *Printer) Finish(st Stats, searching, elapsed time.Duration) {
	switch p.mode {
	case "json":
		var ag *AgentSummary
		if p.maxTotal > 0 || p.maxBytes > 0 {
			ag = &AgentSummary{LimitReached: p.stopped != "", Reason: p.reason, FilesWithMatches: p.jsonStats.SearchesWithMatch, TotalMatches: p.jsonStats.Matches}
		}
		p.w.Write(JSONSummary(elapsed, p.jsonStats, ag))
		p.w.WriteByte('\n')
		return
	case "agent":
		res := p.agent.Finish()
		p.w.WriteString(res.Text)
		p.w.WriteByte('\n')
		return
	}
	if p.stats {
		fmt.Fprintf(p.w, "\n%d matches\n%d matched lines\n%d files contained matches\n%d files searched\n%d bytes printed\n%d bytes searched\n%.6f seconds spent searching\n%.6f seconds\n",
			st.Matches, st.MatchedLines, st.SearchesWithMatch, st.Searches, st.BytesPrinted, st.BytesSearched, searching.Seconds(), elapsed.Seconds())
	}
}

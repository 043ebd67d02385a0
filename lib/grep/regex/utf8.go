package regex

import (
	"bytes"
	"unicode/utf8"
)

// Rust's regex (rg's engine) never matches invalid UTF-8: '.' or a class
// stops at a byte that is not part of a valid character. Go's regexp reads
// such a byte as U+FFFD and matches it. fixInvalidUTF8 redoes the lines
// where a Go match holds invalid UTF-8, searching each valid run of the
// line on its own (no match can span an invalid byte).
func FixInvalidUTF8(m *Matcher, buf []byte, spans []Span) []Span {
	bad := -1
	for i, s := range spans {
		if !utf8.Valid(buf[s.Start:s.End]) {
			bad = i
			break
		}
	}
	if bad < 0 {
		return spans
	}
	out := append([]Span(nil), spans[:bad]...)
	for i := bad; i < len(spans); {
		s := spans[i]
		start := bytes.LastIndexByte(buf[:s.Start], '\n') + 1
		end := bytes.IndexByte(buf[s.Start:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += s.Start
		}
		// the spans of this line
		j := i
		valid := true
		for j < len(spans) && spans[j].Start < end {
			if !utf8.Valid(buf[spans[j].Start:spans[j].End]) {
				valid = false
			}
			j++
		}
		if valid {
			out = append(out, spans[i:j]...)
		} else {
			out = append(out, validRuns(m, buf, start, end)...)
		}
		i = j
	}
	return out
}

// validRuns searches each maximal run of valid UTF-8 in buf[start:end].
func validRuns(m *Matcher, buf []byte, start, end int) []Span {
	var out []Span
	run := start
	flush := func(to int) {
		if to <= run {
			return
		}
		seg := buf[run:to]
		var locs []Span
		if m.Word {
			locs = m.WordsIn(buf[:to], run, to, 0, nil)
			out = append(out, locs...)
			return
		}
		for _, loc := range m.Re.FindAllIndex(seg, -1) {
			out = append(out, Span{run + loc[0], run + loc[1]})
		}
	}
	for i := start; i < end; {
		r, n := utf8.DecodeRune(buf[i:end])
		if r == utf8.RuneError && n <= 1 {
			flush(i)
			i++
			run = i
			continue
		}
		i += n
	}
	flush(end)
	return out
}

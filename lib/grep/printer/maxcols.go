package printer

import (
	"fmt"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"github.com/rivo/uniseg"
)

// A line over -M (--max-columns), as rg 13 measures and previews it: rg
// measures the bytes it would print, the line with its terminator, or
// with -r the replaced text (which has none), and previews the first N
// grapheme clusters of those bytes.

// wideLine is a line rg would not print whole under -M: the bytes rg
// measured and the spans of the matches in them (rg's "sunk" line).
type wideLine struct {
	b    []byte
	subs []regex.Span
	// counted: rg found the line's matches (it needs their positions:
	// colour, -r, -o, --column, --vimgrep, --stats), so its notes count them
	counted bool
}

// tooWide is the line as rg measures it when it is over -M, or nil.
func (p *format) tooWide(text, own []byte, l search.Line) *wideLine {
	if p.maxCols <= 0 {
		return nil
	}
	counted := p.granular && len(l.Subs) > 0 // (-v: a context line's matches too)
	if counted && p.replace != nil {
		b, subs := p.replace.all(text, l.Subs)
		if len(b) <= p.maxCols {
			return nil
		}
		return &wideLine{b: b, subs: subs, counted: true}
	}
	if len(text)+len(own) <= p.maxCols {
		return nil
	}
	w := &wideLine{b: l.Text[:len(text)+len(own)], counted: counted}
	if counted {
		w.subs = l.Subs
	}
	return w
}

// all is the text with every match replaced, and where each replacement
// is in it.
func (r *replacer) all(text []byte, subs []regex.Span) ([]byte, []regex.Span) {
	var b []byte
	out := make([]regex.Span, 0, len(subs))
	last := 0
	for _, s := range subs {
		if s.Start < last || s.Start > len(text) {
			continue
		}
		b = append(b, text[last:s.Start]...)
		start := len(b)
		b = append(b, r.re.ExpandMatch(text, s, r.tmpl)...)
		out = append(out, regex.Span{Start: start, End: len(b)})
		last = min(s.End, len(text))
	}
	return append(b, text[last:]...), out
}

// exceeded appends what rg prints for a line over -M: a note, or with
// --max-columns-preview its first N graphemes and the number of matches
// (of count) that start after them. paint are the matches coloured.
func (p *format) exceeded(out []byte, w *wideLine, l search.Line, paint, count []regex.Span) []byte {
	if !p.preview {
		switch {
		case w.counted && !p.only:
			return fmt.Appendf(out, "[Omitted long line with %d matches]", len(l.Subs))
		case l.Match:
			return append(out, "[Omitted long matching line]"...)
		}
		return append(out, "[Omitted long context line]"...)
	}
	cut := graphemesEnd(w.b, p.maxCols)
	shown := search.Line{Match: true, Text: w.b[:cut]}
	for _, s := range paint {
		if s.Start < cut {
			shown.Subs = append(shown.Subs, regex.Span{Start: s.Start, End: min(s.End, cut)})
		}
	}
	text := p.trimEnd(shown.Text)
	if p.trim {
		text, shown = trimLine(text, shown)
	}
	out = p.paintSpans(out, text, shown.Subs, -1, nil)
	if !w.counted {
		return append(out, " [... omitted end of long line]"...)
	}
	more := 0
	for _, s := range count {
		if s.Start >= cut && s.Start < len(w.b) {
			more++
		}
	}
	noun := "matches"
	if more == 1 {
		noun = "match"
	}
	return fmt.Appendf(out, " [... %d more %s]", more, noun)
}

// trimEnd is b without its line terminator ("\n", and "\r\n" with --crlf).
func (p *format) trimEnd(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); p.crlf && n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// graphemesEnd is where the first n grapheme clusters of b end (rg 13's
// preview counts columns in graphemes).
func graphemesEnd(b []byte, n int) int {
	end, state := 0, -1
	for k := 0; k < n && end < len(b); k++ {
		var cluster []byte
		cluster, _, _, state = uniseg.FirstGraphemeCluster(b[end:], state)
		end += len(cluster)
	}
	return end
}

// onlyExceeded is an -o match over -M (part: the match as printed): rg's
// note, or the match's preview. Without colour rg counts the line's
// matches (in the replaced line with -r) that start in the rest of the
// match; with colour, the match alone.
func (p *format) onlyExceeded(out, text []byte, l search.Line, part []byte) []byte {
	w := &wideLine{b: part, counted: true}
	paint := []regex.Span{{Start: 0, End: len(part)}}
	count := paint
	if !p.color && p.preview {
		count = l.Subs
		if p.replace != nil {
			_, count = p.replace.all(text, l.Subs)
		}
	}
	return p.exceeded(out, w, l, paint, count)
}

package printer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/agentutils/agentutils/lib/grep/search"
	"strconv"
	"time"
	"unicode/utf8"
)

// ripgrep's --json records, with fields in rg's order.

// Data is rg's arbitrary-data field: {"text":…} or {"bytes":<base64>}.
type Data struct {
	Text  *string `json:"text,omitempty"`
	Bytes *string `json:"bytes,omitempty"`
}

// NewData encodes b as rg does.
func NewData(b []byte) Data {
	if utf8.Valid(b) {
		s := string(b)
		return Data{Text: &s}
	}
	s := base64.StdEncoding.EncodeToString(b)
	return Data{Bytes: &s}
}

// MarshalJSON writes the string as serde_json (rg) does: only '"', '\\'
// and control characters are escaped (\b \f \n \r \t short, others
// \u00xx); '<', '>', '&' and U+2028 stay as they are.
func (d Data) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if d.Bytes != nil {
		b.WriteString(`{"bytes":`)
		writeJSONString(&b, *d.Bytes)
	} else {
		b.WriteString(`{"text":`)
		s := ""
		if d.Text != nil {
			s = *d.Text
		}
		writeJSONString(&b, s)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	var buf [64]byte
	b.Write(appendJSONString(buf[:0], s))
}

// appendJSONString appends s as a JSON string, escaped as serde_json does.
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendData appends b as rg's arbitrary data (NewData, MarshalJSON).
func appendData(out, b []byte) []byte {
	if utf8.Valid(b) {
		out = append(out, `{"text":`...)
		out = appendJSONString(out, b)
	} else {
		out = append(out, `{"bytes":"`...)
		out = base64.StdEncoding.AppendEncode(out, b)
		out = append(out, '"')
	}
	return append(out, '}')
}

// marshal encodes v without Go's HTML escaping (rg does not escape).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// Elapsed is rg's duration.
type Elapsed struct {
	Secs  int64  `json:"secs"`
	Nanos int64  `json:"nanos"`
	Human string `json:"human"`
}

// NewElapsed converts a duration.
func NewElapsed(d time.Duration) Elapsed {
	return Elapsed{Secs: int64(d / time.Second), Nanos: int64(d % time.Second), Human: fmt.Sprintf("%.6fs", d.Seconds())}
}

// Stats are rg's search statistics.
type Stats struct {
	Elapsed           Elapsed `json:"elapsed"`
	Searches          int     `json:"searches"`
	SearchesWithMatch int     `json:"searches_with_match"`
	BytesSearched     int64   `json:"bytes_searched"`
	BytesPrinted      int64   `json:"bytes_printed"`
	MatchedLines      int     `json:"matched_lines"`
	Matches           int     `json:"matches"`
}

type record struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// appendJSONFile appends one file's begin/match/context/end records to
// all, each ended by a newline (nothing for a file without matches, as rg
// does), and gives the end record's stats.
func appendJSONFile(all []byte, r search.FileResult, elapsed time.Duration) ([]byte, Stats) {
	if r.MatchedLines == 0 && len(r.Lines) == 0 {
		return all, Stats{} // (--passthru prints a file without a match too)
	}
	from := len(all)
	all = append(append(all, JSONBegin(r.Path)...), '\n')
	all, printed := JSONLines(all, int64(len(all)-from), r.Path, r.Lines)
	end, st := JSONEnd(r, printed, elapsed)
	return append(append(all, end...), '\n'), st
}

// JSONBegin is a file's begin record. The parts of a result that comes in
// parts (FileResult.More) are rendered with JSONBegin before the first
// one's lines, JSONLines for each, and JSONEnd for the last.
func JSONBegin(path string) []byte {
	return marshal(record{"begin", struct {
		Path Data `json:"path"`
	}{NewData([]byte(path))}})
}

// JSONLines appends the match and context records of lines to out, each
// ended by a newline, and adds their bytes to printed.
func JSONLines(out []byte, printed int64, path string, lines []search.Line) ([]byte, int64) {
	p := appendData(nil, []byte(path))
	from := len(out)
	for _, l := range lines {
		out = append(appendJSONLine(out, p, l), '\n')
	}
	return out, printed + int64(len(out)-from)
}

// appendJSONLine appends a line's match or context record (path: its
// path as data), as encoding/json wrote the
// record (json_test.go checks it against encoding/json).
func appendJSONLine(out, path []byte, l search.Line) []byte {
	if l.Match {
		out = append(out, `{"type":"match","data":{"path":`...)
	} else {
		out = append(out, `{"type":"context","data":{"path":`...)
	}
	out = append(out, path...)
	out = append(out, `,"lines":`...)
	out = appendData(out, l.Text)
	out = append(out, `,"line_number":`...)
	out = strconv.AppendInt(out, int64(l.Number), 10)
	out = append(out, `,"absolute_offset":`...)
	out = strconv.AppendInt(out, l.Offset, 10)
	out = append(out, `,"submatches":[`...)
	// (-v: a context line's matches too)
	for i, s := range l.Subs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"match":`...)
		out = appendData(out, l.Text[s.Start:s.End])
		out = append(out, `,"start":`...)
		out = strconv.AppendInt(out, int64(s.Start), 10)
		out = append(out, `,"end":`...)
		out = strconv.AppendInt(out, int64(s.End), 10)
		out = append(out, '}')
	}
	return append(out, "]}}"...)
}

// JSONEnd is a file's end record, with its stats (printed: the bytes of
// its begin, match and context records).
func JSONEnd(r search.FileResult, printed int64, elapsed time.Duration) ([]byte, Stats) {
	st := Stats{Elapsed: NewElapsed(elapsed), Searches: 1, BytesSearched: r.BytesSearched,
		BytesPrinted: printed, MatchedLines: r.MatchedLines, Matches: r.Matches}
	if r.MatchedLines > 0 {
		st.SearchesWithMatch = 1
	}
	var bin any
	if r.BinaryOffset >= 0 {
		bin = r.BinaryOffset
	}
	return marshal(record{"end", struct {
		Path         Data  `json:"path"`
		BinaryOffset any   `json:"binary_offset"`
		Stats        Stats `json:"stats"`
	}{NewData([]byte(r.Path)), bin, st}}), st
}

// AgentSummary is the summary's "x_agent" field, present only when an
// agent budget (--max-total-matches, --max-bytes) was given.
type AgentSummary struct {
	LimitReached     bool   `json:"limit_reached"`
	Reason           string `json:"reason,omitempty"`   // "max_total_matches" or "max_bytes"
	FilesWithMatches int    `json:"files_with_matches"` // in the printed records
	TotalMatches     int    `json:"total_matches"`      // in the printed records
}

// JSONSummary is the last record. rg writes it with its keys in
// alphabetical order (unlike the other records), so it is built from maps.
func JSONSummary(total time.Duration, st Stats, agent *AgentSummary) []byte {
	el := func(e Elapsed) map[string]any {
		return map[string]any{"secs": e.Secs, "nanos": e.Nanos, "human": e.Human}
	}
	data := map[string]any{
		"elapsed_total": el(NewElapsed(total)),
		"stats": map[string]any{"elapsed": el(st.Elapsed), "searches": st.Searches, "searches_with_match": st.SearchesWithMatch,
			"bytes_searched": st.BytesSearched, "bytes_printed": st.BytesPrinted, "matched_lines": st.MatchedLines, "matches": st.Matches},
	}
	if agent != nil {
		data["x_agent"] = agent
	}
	return marshal(map[string]any{"type": "summary", "data": data})
}

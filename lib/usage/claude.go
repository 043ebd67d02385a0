package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentutils/agentutils/lib/transcript"
)

// FromClaude reads the API responses of one Claude Code transcript (a
// project's .jsonl) straight from its bytes: the fast path of `usage`,
// with the totals of the importer (lib/transcript's FromClaude, then
// FromEntries) without building messages. Only lines holding the key
// "usage" are read (found by a byte search over the file), and of those
// only the fields a total needs (type, timestamp, cwd, message id, model
// and the four token counts), by a scanner that skips every other value
// without decoding it.
//
// As the importer counts them: the lines of one API message (message.id)
// are one response, timed by its first line, with the model and usage of
// its last line that has them; a response with no tokens is not counted.
// The project is the first cwd the file gives, else project. A line that
// is not a JSON object is a problem (the importer's wording, its line
// number), and skipped.
func FromClaude(data []byte, project string) ([]Entry, []transcript.Problem) {
	var (
		out      []Entry
		problems []transcript.Problem
		open     = map[string]int{} // message id → its entry in out
		cwd      string
		line     int // the number of the line at pos, counted lazily
		counted  int // bytes up to which line is counted
	)
	lineAt := func(pos int) int {
		line += bytes.Count(data[counted:pos], []byte{'\n'})
		counted = pos
		return line + 1
	}
	hit := -1 // the next `"usage"` at or after pos; -1 to find
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		if hit < pos && hit != -2 {
			if i := indexUsage(data[pos:]); i >= 0 {
				hit = pos + i
			} else {
				hit = -2 // none left
			}
		}
		raw := data[pos:end]
		has := hit >= pos && hit < end
		pos = end + 1
		if len(raw) == 0 || (raw[0] == '{' && !has && cwd != "") {
			continue
		}
		l := bytes.TrimSpace(raw)
		if len(l) == 0 {
			continue
		}
		var r claudeLine
		if l[0] != '{' || !r.parse(l, has) {
			if !has && raw[0] == '{' {
				continue // a line read only for its cwd: the importer reads it whole, and reports it there
			}
			problems = append(problems, transcript.Problem{Line: lineAt(end - len(raw)), Err: notJSON(l)})
			continue
		}
		if cwd == "" {
			cwd = r.cwd
		}
		if r.typ != "assistant" {
			continue
		}
		if i, ok := open[r.id]; ok && r.id != "" {
			e := &out[i]
			if r.model != "" {
				e.Model = r.model
			}
			if r.usage {
				e.Input, e.Output, e.CacheRead, e.CacheWrite = r.n[0], r.n[1], r.n[2], r.n[3]
			}
			continue
		}
		t, _ := time.Parse(time.RFC3339Nano, r.ts)
		e := Entry{Agent: "claude", Provider: "anthropic", Model: r.model, Time: time.UnixMilli(t.UnixMilli()).UTC()}
		if r.usage {
			e.Input, e.Output, e.CacheRead, e.CacheWrite = r.n[0], r.n[1], r.n[2], r.n[3]
		}
		if r.id != "" {
			e.Key = "anthropic/" + r.id
			open[r.id] = len(out)
		}
		out = append(out, e)
	}
	if cwd != "" {
		project = cwd
	}
	kept := out[:0]
	for _, e := range out {
		if e.Input+e.Output+e.CacheRead+e.CacheWrite != 0 {
			e.Project = project
			kept = append(kept, e)
		}
	}
	return kept, problems
}

var usageKey = []byte(`"usage"`)

// indexUsage is bytes.Index(b, usageKey), anchored on the key's rarest
// byte: 'g' is about 1% of a transcript's bytes where '"', which
// bytes.Index would look for first, is 6%.
func indexUsage(b []byte) int {
	const at = 4 // usageKey[at] == 'g'
	for i := at; i < len(b); {
		j := bytes.IndexByte(b[i:], 'g')
		if j < 0 {
			return -1
		}
		i += j
		if i+3 <= len(b) && bytes.Equal(b[i-at:i+3], usageKey) {
			return i - at
		}
		i++
	}
	return -1
}

// notJSON is the importer's error for a line it cannot read.
func notJSON(l []byte) error {
	var v any
	err := json.Unmarshal(l, &v)
	if err == nil {
		err = errors.New("not a JSON object")
	}
	return errors.New("not JSON: " + err.Error())
}

// claudeLine is what a total reads of a Claude Code line.
type claudeLine struct {
	typ, ts, cwd, id, model string
	usage                   bool     // message.usage is an object
	n                       [4]int64 // input, output, cache read, cache write
}

// parse reads a line's fields; full is false for a line read only for its
// cwd. It reports whether the line is a well-formed JSON object as far as
// the scanner walked it (the values it skips are checked for balance).
func (r *claudeLine) parse(l []byte, full bool) bool {
	s := scanner{b: l}
	ok := s.object(func(k []byte) bool {
		switch string(k) {
		case "type":
			return s.str(&r.typ)
		case "timestamp":
			return s.str(&r.ts)
		case "cwd":
			return s.str(&r.cwd)
		case "message":
			if !full {
				return s.skip()
			}
			return s.object(func(k []byte) bool {
				switch string(k) {
				case "id":
					return s.str(&r.id)
				case "model":
					return s.str(&r.model)
				case "usage":
					return s.usage(r)
				}
				return s.skip()
			})
		}
		return s.skip()
	})
	s.ws()
	return ok && s.i == len(s.b)
}

// scanner walks JSON text; each method reports whether the text was well formed.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object reads {"key": value, …}, calling f at each value; a value that is
// not an object (null, a string …) is skipped, as a decoder leaves the
// fields unset on a type mismatch.
func (s *scanner) object(f func(key []byte) bool) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return s.skip()
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		k, esc, ok := s.raw()
		if !ok {
			return false
		}
		if esc {
			k = nil // no field of ours is spelt with escapes
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if !f(k) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// raw reads a string at s.i: its bytes between the quotes, and whether
// they hold an escape.
func (s *scanner) raw() ([]byte, bool, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
	j := start
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			return nil, false, false
		}
		q := j + k
		bs := 0
		for p := q - 1; p >= start && s.b[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			s.i = q + 1
			str := s.b[start:q]
			return str, bytes.IndexByte(str, '\\') >= 0, true
		}
		j = q + 1
	}
}

// str reads a string into v; another value leaves v as it was.
func (s *scanner) str(v *string) bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return s.skip()
	}
	start := s.i
	b, esc, ok := s.raw()
	if !ok {
		return false
	}
	if !esc {
		*v = string(b)
		return true
	}
	return json.Unmarshal(s.b[start:s.i], v) == nil
}

// usage reads message.usage's four counts.
func (s *scanner) usage(r *claudeLine) bool {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return s.skip() // null: no usage on this line
	}
	r.usage = true
	r.n = [4]int64{}
	return s.object(func(k []byte) bool {
		switch string(k) {
		case "input_tokens":
			return s.int(&r.n[0])
		case "output_tokens":
			return s.int(&r.n[1])
		case "cache_read_input_tokens":
			return s.int(&r.n[2])
		case "cache_creation_input_tokens":
			return s.int(&r.n[3])
		}
		return s.skip()
	})
}

// int reads an integer; a fraction, an exponent or another value leaves v 0.
func (s *scanner) int(v *int64) bool {
	start := s.i
	if !s.skip() {
		return false
	}
	t := s.b[start:s.i]
	neg := len(t) > 0 && t[0] == '-'
	if neg {
		t = t[1:]
	}
	var n int64
	for _, c := range t {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return true
		}
		n = n*10 + int64(c-'0')
	}
	if len(t) == 0 {
		return true
	}
	if neg {
		n = -n
	}
	*v = n
	return true
}

// skip passes one value: strings by their quotes, objects and arrays by
// their balance, literals and numbers up to the next delimiter.
func (s *scanner) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '"':
		_, _, ok := s.raw()
		return ok
	case '{', '[':
		var buf [32]byte
		stack := buf[:0] // the closers awaited
		for s.i < len(s.b) {
			switch c := s.b[s.i]; c {
			case '"':
				if _, _, ok := s.raw(); !ok {
					return false
				}
				continue
			case '{', '[':
				stack = append(stack, c+2) // '{'+2 == '}', '['+2 == ']'
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != c {
					return false
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case '}', ']', ',', ':':
		return false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return s.i > start
		}
		s.i++
	}
	return s.i > start
}

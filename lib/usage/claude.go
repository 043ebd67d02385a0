package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/transcript"
)

// FromClaude reads the API responses of one Claude Code transcript (a
// project's .jsonl) straight from its bytes: the fast path of `usage`,
// with the totals of the importer (lib/transcript's FromClaude, then
// FromEntries) without building messages. Only lines holding the key
// "usage" are read (found by a byte search over the file), and of those
// only the fields a total needs (type, timestamp, cwd, message id, model
// and the four token counts), by lib/session's skimmer (session.Members),
// which checks the JSON structure and crosses every other value without
// decoding it.
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

// parse reads a line's fields with lib/session's skimmer (Members checks
// the JSON structure and crosses the values it is not asked about by a
// byte search); full is false for a line read only for its cwd. It
// reports whether the line is a well-formed JSON object.
func (r *claudeLine) parse(l []byte, full bool) bool {
	return session.Members(l, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			r.typ = str(v, r.typ)
		case "timestamp":
			r.ts = str(v, r.ts)
		case "cwd":
			r.cwd = str(v, r.cwd)
		case "message":
			if full && len(v) > 0 && v[0] == '{' {
				session.Members(v, func(k, v []byte) bool {
					switch string(k) {
					case "id":
						r.id = str(v, r.id)
					case "model":
						r.model = str(v, r.model)
					case "usage":
						r.readUsage(v)
					}
					return true
				})
			}
		}
		return true
	})
}

// str is the string value v, or was when v is not a string (a decoder
// leaves the field as it was on a type mismatch).
func str(v []byte, was string) string {
	if s, ok := session.StrVal(v); ok {
		return s
	}
	return was
}

// readUsage reads message.usage's four counts; null leaves no usage.
func (r *claudeLine) readUsage(v []byte) {
	if len(v) == 0 || v[0] != '{' {
		r.usage = false // null, or not an object: no usage on this line
		return
	}
	r.usage = true
	r.n = [4]int64{}
	session.Members(v, func(k, v []byte) bool {
		i := -1
		switch string(k) {
		case "input_tokens":
			i = 0
		case "output_tokens":
			i = 1
		case "cache_read_input_tokens":
			i = 2
		case "cache_creation_input_tokens":
			i = 3
		}
		if i >= 0 {
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err == nil {
				r.n[i] = n
			} else if string(v) != "null" {
				r.n[i] = 0 // a fraction, an exponent or another type: the decoder's zero
			}
		}
		return true
	})
}

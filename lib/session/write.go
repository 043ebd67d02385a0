package session

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/agentutils/agentutils/lib/jsonw"
)

// MaxPersistChars is the longest string written to a session file; longer
// strings are cut and marked with TruncationNotice.
const MaxPersistChars = 500_000

// TruncationNotice ends a string cut at persistence.
const TruncationNotice = "\n\n[Session persistence truncated large content]"

// BlobThreshold is the base64 length from which images go to the blob store.
const BlobThreshold = 1024

// BlobPrefix marks image data kept in the blob store.
const BlobPrefix = "blob:sha256:"

// agentEventTypes are lines of an agent event stream that are not persisted.
var agentEventTypes = map[string]bool{
	"agent_start": true, "agent_end": true, "turn_start": true, "turn_end": true,
	"message_start": true, "message_update": true, "tool_execution_start": true,
	"tool_execution_update": true, "tool_execution_end": true, "auto_retry_start": true,
	"auto_retry_end": true, "context_overflow": true, "compaction_suggested": true,
	"request": true, "error": true, "state": true, "context_end": true,
}

// persistedRoles become "message" entries; the others listed map to custom_message.
var persistedRoles = map[string]bool{"user": true, "assistant": true, "toolResult": true,
	"fileMention": true, "bashExecution": true, "pythonExecution": true}

// FromView turns one decoded line that agent-session append reads into
// the entry to persist: a message_end event becomes a message entry
// (custom and hookMessage roles a custom_message entry), an entry event
// its entry, a bare session record itself. Other agent events give
// ok=false. The entry may lack id, parentId and timestamp: the writer
// assigns them.
func FromView(v *View) (entry View, ok bool, err error) {
	switch {
	case v.Type == "message_end":
		msg, _ := v.Get("message")
		if len(msg) == 0 || msg[0] != '{' {
			return View{}, false, errors.New("message_end without a message object")
		}
		m, _ := ParseMsg(msg)
		if m.Role == "" {
			return View{}, false, errors.New("message_end: the message has no role")
		}
		role := m.Role
		if role == "assistant" && m.Retried {
			// A failed attempt agent-chat sent again: the events show it,
			// the session keeps one entry per answer.
			return View{}, false, nil
		}
		if persistedRoles[role] {
			raw := concatObject(`{"type":"message","message":`, msg)
			return View{Record: Record{Raw: raw, Type: "message", Blob: v.Blob},
				Members: []Member{{"type", json.RawMessage(`"message"`)}, {"message", msg}}, spaced: v.spaced}, true, nil
		}
		if role == "custom" || role == "hookMessage" {
			return customMessageEntry(m)
		}
		return View{}, false, nil
	case v.Type == "entry":
		e, _ := v.Get("entry")
		if len(e) == 0 || e[0] != '{' {
			return View{}, false, errors.New("entry event without an entry object")
		}
		ev, err := Decode(e)
		if err != nil {
			return View{}, false, fmt.Errorf("entry event: %v", err)
		}
		return ev, true, nil
	case agentEventTypes[v.Type]:
		return View{}, false, nil
	case v.Type == "session":
		return View{}, false, nil
	}
	return *v, true, nil
}

func concatObject(prefix string, v json.RawMessage) []byte {
	b := append([]byte(prefix), v...)
	return append(b, '}')
}

func customMessageEntry(m Msg) (View, bool, error) {
	e := map[string]any{"type": "custom_message", "customType": m.CustomType, "content": m.Content, "display": string(m.Display) != "false"}
	if len(m.Content) == 0 {
		e["content"] = ""
	}
	if len(m.Details) > 0 {
		e["details"] = m.Details
	}
	b, err := json.Marshal(e)
	if err != nil {
		return View{}, false, err
	}
	v, err := Decode(b)
	return v, err == nil, err
}

// StripStreamFields removes the stream-only members (pending, and a
// header's file, leafId, carried and omitted) before a record is written
// to a file.
func StripStreamFields(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`"pending"`)) && !bytes.Contains(raw, []byte(`"leafId"`)) && !bytes.Contains(raw, []byte(`"file"`)) &&
		!bytes.Contains(raw, []byte(`"carried"`)) && !bytes.Contains(raw, []byte(`"omitted"`)) {
		return raw
	}
	o, err := ParseObject(raw)
	if err != nil {
		return raw
	}
	o.Delete("pending")
	if t, _ := o.Get("type"); string(t) == `"session"` {
		o.Delete("file")
		o.Delete("leafId")
		o.Delete("carried")
		o.Delete("omitted")
	}
	return o.Bytes()
}

// PrepareForWrite applies the reference's write-time transforms to one
// entry: strings over MaxPersistChars cut with the notice, partialJson and
// jsonlEvents keys dropped, lineCount recomputed where content was cut, and
// large base64 images under a "content" array moved to the blob store
// through putBlob (which stores the decoded bytes and returns their sha256
// hex). An entry that needs none of it is returned unchanged, byte for byte.
func PrepareForWrite(raw []byte, putBlob func([]byte) (string, error)) ([]byte, error) {
	raw = StripStreamFields(raw)
	if len(raw) < BlobThreshold && !bytes.Contains(raw, []byte("partialJson")) && !bytes.Contains(raw, []byte("jsonlEvents")) {
		return raw, nil
	}
	v, err := jsonw.Decode(raw)
	if err != nil {
		return nil, jsonError(err)
	}
	changed := false
	var walk func(v any, underContent bool) (any, error)
	walk = func(v any, underContent bool) (any, error) {
		switch x := v.(type) {
		case string:
			if len(x) > MaxPersistChars {
				if s, cut := truncate(x); cut {
					changed = true
					return s, nil
				}
			}
		case []any:
			for i := range x {
				if underContent && putBlob != nil {
					if img, ok := x[i].(jsonw.Object); ok && img.Get("type") == "image" {
						if d, ok := img.Get("data").(string); ok && len(d) >= BlobThreshold && !strings.HasPrefix(d, BlobPrefix) {
							if data, err := base64.StdEncoding.DecodeString(d); err == nil {
								hash, err := putBlob(data)
								if err != nil {
									return nil, err
								}
								x[i] = img.Set("data", BlobPrefix+hash)
								changed = true
								continue
							}
						}
					}
				}
				nv, err := walk(x[i], false)
				if err != nil {
					return nil, err
				}
				x[i] = nv
			}
		case jsonw.Object:
			for _, k := range []string{"partialJson", "jsonlEvents"} {
				var del bool
				if x, del = x.Delete(k); del {
					changed = true
				}
			}
			for i := 0; i < len(x); i++ {
				k := x[i].Key
				before := changed
				changed = false
				nv, err := walk(x[i].Val, k == "content")
				if err != nil {
					return nil, err
				}
				x[i].Val = nv
				if changed && k == "content" {
					if s, ok := nv.(string); ok && x.Get("lineCount") != nil {
						x = x.Set("lineCount", json.Number(strconv.Itoa(strings.Count(s, "\n")+1)))
					}
				}
				changed = changed || before
			}
			return x, nil
		}
		return v, nil
	}
	nv, err := walk(v, false)
	if err != nil {
		return nil, err
	}
	if !changed {
		return raw, nil
	}
	return jsonw.Append(nil, nv, jsonw.Options{})
}

// truncate cuts s to MaxPersistChars UTF-16 units including the notice,
// never splitting a surrogate pair, as the reference measures length.
func truncate(s string) (string, bool) {
	units := 0
	limit := MaxPersistChars - len(utf16.Encode([]rune(TruncationNotice)))
	for i, r := range s {
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > limit {
			return s[:i] + TruncationNotice, true
		}
		units += n
	}
	return s, false
}

// ResolveBlobs replaces blob references in an entry with the stored data
// (base64). A missing blob is left as a reference and reported in warns.
func ResolveBlobs(raw []byte, getBlob func(hash string) ([]byte, error)) ([]byte, []string, error) {
	var warns []string
	out := raw
	for {
		i := bytes.Index(out, []byte(`"`+BlobPrefix))
		if i < 0 {
			return out, warns, nil
		}
		start := i + 1 + len(BlobPrefix)
		end := start
		for end < len(out) && isHex(out[end]) {
			end++
		}
		hash := string(out[start:end])
		if end >= len(out) || out[end] != '"' || len(hash) != 64 {
			warns = append(warns, "malformed blob reference")
			return out, warns, nil
		}
		data, err := getBlob(hash)
		if err != nil {
			warns = append(warns, fmt.Sprintf("blob %s: %v (left as a reference)", hash[:12], err))
			// step past this reference
			rest, w, err := ResolveBlobs(out[end:], getBlob)
			return append(append([]byte(nil), out[:end]...), rest...), append(warns, w...), err
		}
		enc := base64.StdEncoding.EncodeToString(data)
		out = append(append(append([]byte(nil), out[:i+1]...), enc...), out[end:]...)
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// WriteRecord writes one record as a line.
func WriteRecord(w io.Writer, raw []byte) error {
	if bytes.IndexByte(raw, '\n') >= 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return err
		}
		raw = b.Bytes()
	}
	if bw, ok := w.(*bufio.Writer); ok {
		bw.Write(raw)
		return bw.WriteByte('\n')
	}
	_, err := w.Write(append(append([]byte(nil), raw...), '\n'))
	return err
}

// NewEntryID draws the reference's 8-hex entry id from rnd, retrying on a
// collision up to 100 times, then falls back to 16 hex characters.
func NewEntryID(rnd io.Reader, exists func(string) bool) string {
	var b [8]byte
	for i := 0; i < 100; i++ {
		io.ReadFull(rnd, b[:4])
		id := hex.EncodeToString(b[:4])
		if !exists(id) {
			return id
		}
	}
	io.ReadFull(rnd, b[:])
	return hex.EncodeToString(b[:])
}

// NewSessionID is a 16-hex snowflake: milliseconds since 2015 shifted left
// by 22 bits, or'ed with a 22-bit sequence.
func NewSessionID(nowMs int64, seq uint32) string {
	v := uint64(nowMs-1420070400000)<<22 | uint64(seq&(1<<22-1))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return hex.EncodeToString(b[:])
}

// EncodeCwd is the session directory name of a working directory:
// --<path without its leading separator, / \ : as ->--.
func EncodeCwd(cwd string) string {
	p := strings.TrimLeft(cwd, `/\`)
	p = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(p)
	return "--" + p + "--"
}

// BlobHash is the store key of decoded image bytes.
func BlobHash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

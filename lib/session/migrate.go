package session

import (
	"encoding/json"
	"fmt"
)

// Migrate brings a v1 or v2 session to v3 in memory (the caller rewrites
// the file): v1→v2 gives every entry a fresh id (newID) and chains parents
// in file order, and maps compaction firstKeptEntryIndex to
// firstKeptEntryId; v2→v3 renames the message role hookMessage to custom.
// It returns the new header and entries and whether anything changed.
func Migrate(header []byte, entries []Record, newID func() string) ([]byte, []Record, bool, error) {
	h, err := ParseHeader(header)
	if err != nil {
		return nil, nil, false, err
	}
	if h.Version >= 3 {
		return header, entries, false, nil
	}
	out := append([]Record(nil), entries...)
	if h.Version < 2 {
		ids := make([]string, len(out))
		for i := range out {
			ids[i] = newID()
		}
		for i := range out {
			o, err := ParseObject(out[i].Raw)
			if err != nil {
				return nil, nil, false, fmt.Errorf("entry %d: %v", i+1, err)
			}
			o.Set("id", mustJSON(ids[i]))
			if i == 0 {
				o.Set("parentId", json.RawMessage("null"))
			} else {
				o.Set("parentId", mustJSON(ids[i-1]))
			}
			if out[i].Type == "compaction" {
				if v, ok := o.Get("firstKeptEntryIndex"); ok {
					var idx int
					// The index counts the header as position 0.
					if json.Unmarshal(v, &idx) == nil && idx >= 1 && idx <= len(ids) {
						o.Set("firstKeptEntryId", mustJSON(ids[idx-1]))
					}
					o.Delete("firstKeptEntryIndex")
				}
			}
			rec, err := ParseRecord(o.Bytes())
			if err != nil {
				return nil, nil, false, fmt.Errorf("entry %d: %v", i+1, err)
			}
			out[i] = rec
		}
	}
	for i := range out {
		if out[i].Type != "message" {
			continue
		}
		var m struct {
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		if json.Unmarshal(out[i].Raw, &m) != nil || m.Message.Role != "hookMessage" {
			continue
		}
		o, _ := ParseObject(out[i].Raw)
		msg, _ := o.Get("message")
		mo, err := ParseObject(msg)
		if err != nil {
			continue
		}
		mo.Set("role", json.RawMessage(`"custom"`))
		o.Set("message", mo.Bytes())
		out[i], _ = ParseRecord(o.Bytes())
	}
	ho, _ := ParseObject(header)
	ho.Set("version", json.RawMessage("3"))
	return ho.Bytes(), out, true, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

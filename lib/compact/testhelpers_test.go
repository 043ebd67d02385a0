package compact

import (
	"encoding/json"

	"github.com/agentutils/agentutils/lib/session"
)

// Helpers the tests read entries with (the commands use ReadHead and
// Complete).

// ReadEntry reads one line of a session stream (without its newline) in
// one pass over its bytes: the base fields and the message, as
// session.Decode reads them. Raw is line itself, not a copy:
// line must not change while the entry is in use. The ids are strings of
// their own, not shares of line: the path's id maps hash and compare them
// often, and small strings close together are read faster than ones
// spread over a long session's bytes (shares cost agent-compact a fifth
// more CPU time on the bench's 32,000 entries). A line that is not a
// record gets its error.
func ReadEntry(line []byte) (Entry, error) {
	v, err := session.Decode(line)
	if err != nil {
		return Entry{}, err
	}
	msg, _ := v.Get("message")
	return index(v.Record, msg), nil
}

// Index reads records already parsed (tests, other callers of the
// Record-based session API).
func Index(recs []session.Record) []Entry { return EntriesOf(recs) }

// EstimateTokens is the reference's chars/4 estimate of one AgentMessage
// (user images are not counted, tool-result images count 1200 tokens;
// custom and file-mention messages are estimated like user ones).
func EstimateTokens(raw json.RawMessage) int { return skimMessage(raw, false).tokens }

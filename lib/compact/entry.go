package compact

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// Entry is a record of a session stream with what compaction asks of it,
// read once: the message it contributes to the context, its role, its
// token estimate and the few fields pruning and the threshold test use.
// Its bytes are the record's (Raw is not copied), so a long session is
// indexed without keeping decoded copies of it.
type Entry struct {
	session.Record
	Message json.RawMessage // session.MessageOf(Record); nil when it contributes none
	Role    string          // Message's role
	Tokens  int             // EstimateTokens(Message)
	info    msgInfo
	raw     []byte // a Head entry's "message" value, until Complete reads it
	head    bool   // read by ReadHead: Message, Role, Tokens wait for Complete
	own     bool   // a copy Window.Cut carries, its bytes its own
}

// msgInfo is what one skim of an AgentMessage yields.
type msgInfo struct {
	role, stopReason, toolName string
	provider, model            []byte // raw JSON values, for session.ModelFold
	usage                      []byte // raw usage object of an assistant message
	pruned, retried            bool
	tokens                     int
	files                      []fileOp // the files of read/write/edit tool calls
}

// fileOp is a file a tool call read ("read"), wrote ("write") or changed ("edit").
type fileOp struct{ op, path string }

// ReadHead is ReadEntry for a reader that may never need the entry's
// message: the line is checked and its base fields read, and the message is
// read by Complete, when and if the entry is used.
func ReadHead(line []byte) (Entry, error) {
	v, err := session.Decode(line)
	if err != nil {
		return Entry{}, err
	}
	msg, _ := v.Get("message")
	return Entry{Record: v.Record, raw: msg, head: true}, nil
}

// Complete reads the messages of the entries ReadHead left unread.
func Complete(entries []Entry) {
	for i := range entries {
		if e := &entries[i]; e.head {
			*e = index(e.Record, e.raw)
		}
	}
}

// index completes an Entry from its record and, for a message entry, the
// raw value of its "message" member, checked as JSON with the record (and
// so walked without checking it again).
func index(r session.Record, msg []byte) Entry {
	e := Entry{Record: r}
	switch r.Type {
	case "message":
		if len(msg) == 0 || msg[0] != '{' {
			return e
		}
		e.info = skimMessage(msg, true)
		if e.info.role == "assistant" && e.info.retried { // as session.MessageOf
			return e
		}
		e.Message = msg
	case "custom_message", "branch_summary":
		if e.Message = session.MessageOf(r); e.Message == nil {
			return e
		}
		e.info = skimMessage(e.Message, false)
	default:
		return e
	}
	e.Role, e.Tokens = e.info.role, e.info.tokens
	return e
}

// EntryOf reads a record (parsed, so checked) as an entry.
func EntryOf(r session.Record) Entry {
	var msg []byte
	if r.Type == "message" {
		msg = session.MemberVals(r.Raw, "message")[0]
	}
	return index(r, msg)
}

// EntriesOf reads records as entries (EntryOf).
func EntriesOf(recs []session.Record) []Entry {
	out := make([]Entry, len(recs))
	for i, r := range recs {
		out[i] = EntryOf(r)
	}
	return out
}

// skimMessage reads an AgentMessage without decoding it: every stage
// estimates every message, and decoding was most of agent-compact's time
// on long sessions.
func skimMessage(raw []byte, checked bool) msgInfo {
	// (checked: raw was checked with the record it is in, so it is walked
	// without checking it again)
	members := func(obj []byte, fn func(k, v []byte)) { eachMember(checked, obj, fn) }
	elements := func(arr []byte, fn func(v []byte)) { eachElement(checked, arr, fn) }
	var m msgInfo
	var role, content, command, output, summary []byte
	members(raw, func(k, v []byte) {
		switch string(k) {
		case "role":
			role = v
		case "content":
			content = v
		case "command":
			command = v
		case "output":
			output = v
		case "summary":
			summary = v
		case "stopReason":
			m.stopReason, _ = session.CommonStrVal(v)
		case "toolName":
			m.toolName, _ = session.CommonStrVal(v)
		case "provider":
			m.provider = v
		case "model":
			m.model = v
		case "usage":
			if len(v) > 0 && v[0] == '{' {
				m.usage = v
			}
		case "prunedAt":
			m.pruned = string(v) != "null"
		case "retried":
			m.retried = string(v) == "true"
		}
	})
	m.role, _ = session.CommonStrVal(role)
	slen := func(v []byte) int { return max(0, session.StrLen(v)) }
	// blocks calls fn with each content block's type, text, thinking and
	// name lengths and raw arguments (a string content is one text block).
	blocks := func(fn func(typ []byte, text, thinking int, name, args []byte)) {
		if len(content) > 0 && content[0] == '"' {
			fn([]byte("text"), slen(content), 0, nil, nil)
			return
		}
		elements(content, func(b []byte) {
			var typ, name, args []byte
			text, thinking := 0, 0
			members(b, func(k, v []byte) {
				switch string(k) {
				case "type":
					typ = v
				case "text":
					text = slen(v)
				case "thinking":
					thinking = slen(v)
				case "name":
					name = v
				case "arguments":
					args = v
				}
			})
			fn(bytes.Trim(typ, `"`), text, thinking, name, args)
		})
	}
	chars := 0
	switch m.role {
	case "user", "custom", "hookMessage", "fileMention", "pythonExecution":
		blocks(func(typ []byte, text, _ int, _, _ []byte) {
			chars += text
			if string(typ) == "image" && m.role == "hookMessage" {
				chars += imageChars
			}
		})
	case "assistant":
		blocks(func(typ []byte, text, thinking int, name, args []byte) {
			chars += text + thinking
			if string(typ) == "toolCall" {
				chars += max(0, session.StrLen(name)) + len(args)
				m.files = toolFiles(name, args, m.files, checked)
			}
		})
	case "toolResult":
		blocks(func(typ []byte, text, _ int, _, _ []byte) {
			chars += text
			if string(typ) == "image" {
				chars += imageChars
			}
		})
	case "bashExecution":
		chars = slen(command) + slen(output)
	case "branchSummary", "compactionSummary":
		chars = slen(summary)
	}
	m.tokens = int(math.Ceil(float64(chars) / 4))
	return m
}

// toolFiles are the files a file tool call names: its "path" argument
// (also "file_path" and "notebook_path", matched as encoding/json matches
// names: in any case, the last one wins), or for a patch without one the
// files its "*** Add/Update/Delete File:" lines name.
func toolFiles(name, args []byte, ops []fileOp, checked bool) []fileOp {
	// The file tools of agentutils and pi, and by their aliases those of
	// the agents whose transcripts 'agent-session import' converts
	// (Claude Code's Read, Write, Edit, MultiEdit, NotebookEdit).
	tool, _ := session.StrVal(name)
	t, _ := tooldef.Resolve(tool)
	op := t.FileOp
	if op == "" {
		return ops
	}
	path, patch := "", ""
	eachMember(checked, args, func(k, v []byte) {
		switch key := string(k); {
		case strings.EqualFold(key, "path"), strings.EqualFold(key, "file_path"), strings.EqualFold(key, "notebook_path"):
			path, _ = session.StrVal(v)
		case key == "input" || key == "patch":
			patch, _ = session.StrVal(v)
		}
	})
	if path != "" {
		return append(ops, fileOp{op, path})
	}
	if op != "edit" || patch == "" {
		return ops
	}
	for _, l := range strings.Split(patch, "\n") {
		for _, h := range []struct{ prefix, op string }{{"*** Add File: ", "write"}, {"*** Update File: ", "edit"}, {"*** Delete File: ", "edit"}, {"*** Move to: ", "write"}} {
			if p, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), h.prefix); ok && strings.TrimSpace(p) != "" {
				ops = append(ops, fileOp{h.op, strings.TrimSpace(p)})
			}
		}
	}
	return ops
}

// eachMember calls fn with each member of the object obj, checking obj
// unless it has been checked already.
func eachMember(checked bool, obj []byte, fn func(k, v []byte)) {
	if checked {
		session.WalkMembers(obj, fn)
		return
	}
	session.Members(obj, func(k, v []byte) bool { fn(k, v); return true })
}

// eachElement calls fn with each element of the array arr, checking arr
// unless it has been checked already.
func eachElement(checked bool, arr []byte, fn func(v []byte)) {
	if checked {
		session.WalkElements(arr, fn)
		return
	}
	session.Elements(arr, func(v []byte) bool { fn(v); return true })
}

// ActivePath is the path BuildContext resolves over a stream's entries
// (reference §7.1: the last entry is the leaf), from session.ContextPath:
// a pending record with the id of an earlier one stands in its place, and
// the path runs from the last entry up its parents (a missing parent ends
// it; a cycle is cut where it closes). It returns indexes into entries,
// root first; for 'agent-session open' output that is every entry, in
// order.
func ActivePath(entries []Entry) []int {
	path, _ := session.ContextPath(len(entries), func(i int) *session.Record { return &entries[i].Record }, "")
	return path
}

// MissingFirstKept is the first-kept id of the newest compaction on path
// when that entry is not on the path before it ("" when it is, or when
// there is no compaction): the resolver then keeps nothing from before the
// compaction but its summary.
func MissingFirstKept(path []Entry) string {
	if c, kept, id := lastCompaction(path); c >= 0 && kept < 0 {
		return id
	}
	return ""
}

// lastCompaction finds the newest compaction on path (c = -1 when there is
// none), its firstKeptEntryId and where that entry is on the path before it
// (kept = -1 when the id is empty or not there).
func lastCompaction(path []Entry) (c, kept int, id string) {
	for c = len(path) - 1; c >= 0; c-- {
		if path[c].Type == "compaction" {
			break
		}
	}
	if c < 0 {
		return -1, -1, ""
	}
	if id, _ = session.StrVal(session.MemberVals(path[c].Raw, "firstKeptEntryId")[0]); id != "" {
		for j, e := range path[:c] {
			if e.ID == id {
				return c, j, id
			}
		}
	}
	return c, -1, id
}

// LastAssistant is the newest assistant message of the resolved context
// (nil when a compaction or nothing comes after the last one).
func LastAssistant(path []Entry) json.RawMessage {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == "compaction" {
			return nil
		}
		if path[i].Message != nil {
			if path[i].Role == "assistant" {
				return path[i].Message
			}
			return nil
		}
	}
	return nil
}

// DefaultModel is the stream's "default" model as BuildContext folds it
// over the path (session.ModelFold): the later of the last model_change of
// the default role and the last assistant message that names its provider
// and model.
func DefaultModel(path []Entry) string {
	var f session.ModelFold
	for i := range path {
		switch e := &path[i]; e.Type {
		case "model_change":
			f.ModelChange(e.Raw)
		case "message":
			if e.info.role == "assistant" {
				f.Assistant(e.info.provider, e.info.model)
			}
		}
	}
	return f.Default()
}

// Carry keeps, of the entries a streaming reader lets go of (in stream
// order, all before the newest compaction's kept part), the few that the
// path's decisions and session.BuildContext still read: every state
// change BuildContext folds (model, thinking level, injected rules, mode),
// the newest assistant message that names its model (DefaultModel), and
// the newest assistant message with a usage (LastUsage). carry is the list
// so far, in stream order; placed before the entries still held, it gives
// the decisions what the whole path would.
func Carry(carry []Entry, e Entry) []Entry {
	switch {
	case FoldsState(e.Type):
		return append(carry, e)
	case e.Type != "message" || e.info.role != "assistant":
		return carry
	}
	names, counts := namesModel(e), countsUsage(e)
	if !names && !counts {
		return carry
	}
	out := carry[:0]
	for _, c := range carry {
		if c.Type == "message" && (!namesModel(c) || names) && (!countsUsage(c) || counts) {
			continue // what c told, e tells again, later
		}
		out = append(out, c)
	}
	return append(out, e)
}

// FoldsState says whether BuildContext folds an entry of type typ into the
// context's state wherever it is on the path.
func FoldsState(typ string) bool {
	switch typ {
	case "model_change", "thinking_level_change", "ttsr_injection", "mode_change":
		return true
	}
	return false
}

func namesModel(e Entry) bool { return str(e.info.provider) && str(e.info.model) }

func str(v []byte) bool { return len(v) > 2 && v[0] == '"' }

func countsUsage(e Entry) bool {
	return e.info.usage != nil && e.info.stopReason != "error" && e.info.stopReason != "aborted"
}

// CarryRecords is Carry over the records let go of (in stream order),
// reading (EntryOf) only those it needs: the state changes, and of the
// assistant messages only the newest that names its model and the newest
// with a usage can matter (carryIndexes).
func CarryRecords(carry []Entry, gone []session.Record) []Entry {
	keep, _ := carryIndexes(len(gone), func(i int) string { return gone[i].Type }, func(i int) (Entry, error) { return EntryOf(gone[i]), nil })
	for _, i := range keep {
		carry = Carry(carry, EntryOf(gone[i]))
	}
	return carry
}

// Package export renders a session for people and other programs: a
// markdown transcript, one JSON document, and one self-contained HTML page
// (no network, no external files) with thinking folded, tool calls and
// their results, and the session tree for navigation.
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/session"
)

// Session is what is exported: the header, every entry in file order, and
// the current leaf (whose path is the transcript).
type Session struct {
	Header  []byte
	Entries [][]byte
	LeafID  string
	// Subagents are the sessions of the sub-agents whose answers the
	// task results hold, by the file their details name: the HTML page
	// draws each conversation inside its call.
	Subagents map[string]Session
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Name      string          `json:"name"`
	ID        string          `json:"id"`
	Arguments json.RawMessage `json:"arguments"`
	MimeType  string          `json:"mimeType"`
	Data      string          `json:"data"`
}

// entry is a record decoded once: its view (base fields and members) and,
// for a message entry, its message.
type entry struct {
	session.View
	msg   session.Msg
	isMsg bool
}

// entries decodes the header and every entry once; recs are the entries'
// records, for the session package's tree functions.
func (s Session) entries() ([]*entry, []session.Record, session.Header, error) {
	h, err := session.ParseHeader(s.Header)
	if err != nil {
		return nil, nil, h, err
	}
	ents := make([]*entry, len(s.Entries))
	recs := make([]session.Record, len(s.Entries))
	for i, raw := range s.Entries {
		v, err := session.Decode(raw)
		if err != nil {
			return nil, nil, h, fmt.Errorf("entry %d: %v", i+1, err)
		}
		e := &entry{View: v}
		if v.Type == "message" {
			if m, ok := v.Get("message"); ok {
				e.msg, e.isMsg = session.ParseMsg(m)
			}
		}
		ents[i], recs[i] = e, v.Record
	}
	return ents, recs, h, nil
}

// blocksOf is a message's content as blocks (a string is one text block).
func blocksOf(content json.RawMessage) []block {
	var bl []block
	if json.Unmarshal(content, &bl) != nil {
		var s string
		json.Unmarshal(content, &s)
		bl = []block{{Type: "text", Text: s}}
	}
	return bl
}

// view is one displayed item of the transcript.
type view struct {
	kind, title string
	blocks      []block
	text        string
}

func transcript(recs []session.Record, leaf string) ([]view, error) {
	ctx, err := session.BuildContext(recs, &leaf)
	if err != nil {
		return nil, err
	}
	var out []view
	for _, raw := range ctx.Messages {
		m, _ := session.ParseMsg(raw)
		v := view{kind: m.Role, blocks: blocksOf(m.Content)}
		switch m.Role {
		case "user":
			v.title = "User"
		case "assistant":
			v.title = "Assistant"
			if m.Model != "" {
				v.title += " (" + m.Provider + "/" + m.Model + ")"
			}
		case "toolResult":
			v.title = "Result of " + m.ToolName
			if m.IsError {
				v.title += " (error)"
			}
		case "bashExecution":
			v.title = "$ " + m.Command
			v.text = m.Output
		case "compactionSummary":
			v.title, v.text = "Summary of the earlier conversation", m.Summary
		case "branchSummary":
			v.title, v.text = "Summary of an abandoned branch", m.Summary
		case "custom":
			v.title = "Note (" + m.CustomType + ")"
		default:
			v.title = m.Role
		}
		out = append(out, v)
	}
	return out, nil
}

// Markdown renders the transcript of the current branch.
func Markdown(s Session) ([]byte, error) {
	_, recs, h, err := s.entries()
	if err != nil {
		return nil, err
	}
	views, err := transcript(recs, s.LeafID)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	title := h.Title
	if title == "" {
		title = "Session " + h.ID
	}
	fmt.Fprintf(&b, "# %s\n\n- id: `%s`\n- cwd: `%s`\n- created: %s\n", title, h.ID, h.Cwd, h.Timestamp)
	for _, v := range views {
		fmt.Fprintf(&b, "\n## %s\n\n", v.title)
		if v.text != "" {
			b.WriteString(fence(v.text, ""))
		}
		for _, bl := range v.blocks {
			switch bl.Type {
			case "text":
				switch {
				case bl.Text == "":
				case v.kind == "toolResult":
					b.WriteString(fence(bl.Text, ""))
				default:
					b.WriteString(bl.Text + "\n")
				}
			case "thinking":
				fmt.Fprintf(&b, "<details><summary>Thinking</summary>\n\n%s\n\n</details>\n", bl.Thinking)
			case "toolCall":
				args, _ := json.MarshalIndent(json.RawMessage(bl.Arguments), "", "  ")
				fmt.Fprintf(&b, "**%s** `%s`\n%s", bl.Name, bl.ID, fence(string(args), "json"))
			case "image":
				fmt.Fprintf(&b, "*(image, %s)*\n", bl.MimeType)
			}
		}
	}
	return b.Bytes(), nil
}

// JSON is one document: the header, every entry, the leaf and the tree.
func JSON(s Session) ([]byte, error) {
	out, err := s.doc()
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}

// doc is the JSON document of s: header, leafId, entries, tree, and
// subagents (by file, each such a document) when there are any.
func (s Session) doc() (map[string]any, error) {
	_, recs, _, err := s.entries()
	if err != nil {
		return nil, err
	}
	entries := make([]json.RawMessage, len(s.Entries))
	for i, e := range s.Entries {
		entries[i] = e
	}
	out := map[string]any{"header": json.RawMessage(s.Header), "leafId": s.LeafID, "entries": entries, "tree": session.Flatten(session.Tree(recs))}
	if len(s.Subagents) > 0 {
		subs := map[string]any{}
		for f, sub := range s.Subagents {
			if subs[f], err = sub.doc(); err != nil {
				return nil, fmt.Errorf("sub-agent %s: %v", f, err)
			}
		}
		out["subagents"] = subs
	}
	return out, nil
}

// ParseJSON reads the document JSON writes (its tree is not read: it is
// the entries').
func ParseJSON(data []byte) (Session, error) {
	var doc struct {
		Header    json.RawMessage            `json:"header"`
		Entries   []json.RawMessage          `json:"entries"`
		LeafID    string                     `json:"leafId"`
		Subagents map[string]json.RawMessage `json:"subagents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Session{}, err
	}
	if len(doc.Header) == 0 {
		return Session{}, fmt.Errorf("no \"header\"")
	}
	s := Session{Header: doc.Header, LeafID: doc.LeafID}
	for _, e := range doc.Entries {
		s.Entries = append(s.Entries, e)
	}
	for f, d := range doc.Subagents {
		sub, err := ParseJSON(d)
		if err != nil {
			return Session{}, fmt.Errorf("sub-agent %s: %v", f, err)
		}
		if s.Subagents == nil {
			s.Subagents = map[string]Session{}
		}
		s.Subagents[f] = sub
	}
	return s, nil
}

// fence is text as a fenced code block whose fence is longer than any run
// of backticks inside, so tool output never ends the block or turns into
// markdown.
func fence(text, lang string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

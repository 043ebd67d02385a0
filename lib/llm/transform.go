package llm

import (
	"strings"
	"unicode/utf8"
)

// NormalizeEach prepares a history for a call to model m (the reference's
// transform-messages, §1.9) and hands each message to emit, so a codec can
// build its request from a long history without a second copy of it:
// thinking from other models becomes text, their thought and text signatures are
// dropped and tool-call ids are rewritten with idFn (and the matching
// results with them); orphan tool calls get a "No result provided" error
// result; errored or aborted assistant messages are left out, as pi
// 0.73's transformMessages leaves them out (an incomplete turn is not
// replayed: the model goes on from the last complete one), and so are
// results that answer their calls (pi writes none; sent, they would
// answer no call); text is made valid UTF-8. emit must not keep a
// message's Content (or Usage) past its call: the next message reuses
// them. The error is Context.Each's.
func NormalizeEach(c Context, m Model, idFn func(string) string, emit func(Message)) error {
	var last int64 // the timestamp of the last message out
	n := 0
	put := func(msg Message) {
		last = msg.Timestamp
		n++
		emit(msg)
	}
	idMap := map[string]string{}
	var pending []Content // tool calls waiting for results
	answered := map[string]bool{}
	dropped := map[string]bool{} // the calls of left-out assistant messages
	flushOrphans := func(ts int64) {
		for _, tc := range pending {
			if !answered[tc.ID] {
				put(Message{Role: "toolResult", ToolCallID: tc.ID, ToolName: tc.Name,
					Content: []Content{TextBlock("No result provided")}, IsError: true, Timestamp: ts})
				answered[tc.ID] = true
			}
		}
		pending = nil
	}
	var scratch []Content // the assistant blocks kept, reused from message to message
	err := c.each(func(msg Message) {
		msg.Content = sanitize(msg.Content)
		switch msg.Role {
		case "assistant":
			flushOrphans(msg.Timestamp)
			if msg.StopReason == StopError || msg.StopReason == StopAborted {
				for _, c := range msg.Content {
					if c.Type == "toolCall" {
						dropped[c.ID] = true
					}
				}
				return
			}
			same := msg.Provider == m.Provider && msg.API == m.API && msg.Model == m.ID
			cs := scratch[:0]
			for _, c := range msg.Content {
				switch c.Type {
				case "thinking":
					if same && (c.ThinkingSignature != "" || c.Redacted) {
						cs = append(cs, c)
					} else if strings.TrimSpace(c.Thinking) != "" && !c.Redacted {
						cs = append(cs, TextBlock(c.Thinking))
					}
				case "text":
					if !same {
						c.TextSignature = "" // another model's: a Gemini signature is no Responses item id
					}
					cs = append(cs, c)
				case "toolCall":
					if !same {
						c.ThoughtSignature = ""
						if idFn != nil {
							n := idFn(c.ID)
							idMap[c.ID] = n
							c.ID = n
						}
					}
					cs = append(cs, c)
				default:
					cs = append(cs, c)
				}
			}
			msg.Content = cs
			scratch = cs[:0]
			put(msg)
			pending = msg.ToolCalls()
		case "toolResult":
			if dropped[msg.ToolCallID] {
				return
			}
			if n, ok := idMap[msg.ToolCallID]; ok {
				msg.ToolCallID = n
			}
			if answered[msg.ToolCallID] {
				return
			}
			answered[msg.ToolCallID] = true
			put(msg)
		default:
			flushOrphans(msg.Timestamp)
			put(msg)
		}
	}, true)
	if err != nil {
		return err
	}
	if n > 0 {
		flushOrphans(last)
	}
	return nil
}

func sanitize(cs []Content) []Content {
	// Written only when something changes: a request body may be encoded
	// again (a retry, a cassette) while another goroutine reads it.
	// utf8.ValidString first: it checks ASCII eight bytes at a time, where
	// ToValidUTF8 decodes rune by rune even when nothing is wrong.
	for i := range cs {
		if !utf8.ValidString(cs[i].Text) {
			cs[i].Text = strings.ToValidUTF8(cs[i].Text, "")
		}
		if !utf8.ValidString(cs[i].Thinking) {
			cs[i].Thinking = strings.ToValidUTF8(cs[i].Thinking, "")
		}
	}
	return cs
}

// safeID keeps [A-Za-z0-9_-] and cuts to n characters.
func safeID(id string, n int) string {
	var b strings.Builder
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= n {
			break
		}
	}
	return b.String()
}

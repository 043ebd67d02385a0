package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentutils/agentutils/lib/checkpoint"
)

// CheckView checks one decoded record against the session format
// (formats/session/schema.json, in Go): a header needs a string id and a
// known version; an entry of a known type needs its members with their
// types, a message entry an AgentMessage of a known role with its members
// and content blocks. Unknown entry types, unknown roles' other members and
// unknown members anywhere pass (they round-trip verbatim). An entry's id,
// parentId and timestamp are checked only when present: a writer assigns
// the missing ones. The error names the member at fault.
func CheckView(v *View) error {
	top := make(map[string]json.RawMessage, len(v.Members))
	for _, m := range v.Members {
		top[m.Key] = m.Val
	}
	return checkTop(top)
}

func checkTop(top map[string]json.RawMessage) error {
	c := checker{obj: top}
	typ, _ := c.str("type", true)
	if c.err != nil {
		return c.err
	}
	if typ == "" {
		return fmt.Errorf(`"type" is empty`)
	}
	if typ == "session" {
		c.nonEmpty("id", true)
		if v, ok := top["version"]; ok && !oneOf(string(v), "1", "2", "3") {
			return fmt.Errorf(`"version" is %s, want 1, 2 or 3`, v)
		}
		for _, k := range []string{"title", "timestamp", "cwd", "parentSession", "parentToolCallId", "file"} {
			c.str(k, false)
		}
		c.kind("leafId", false, "string", "null")
		for _, k := range []string{"carried", "omitted"} { // a cut stream's counts
			if v, ok := c.member(k, false, "number"); ok {
				if n, err := strconv.Atoi(string(v)); err != nil || n < 0 {
					c.fail("%q is %s, want a count (an integer from 0)", k, v)
				}
			}
		}
		return c.err
	}
	c.nonEmpty("id", false)
	c.kind("parentId", false, "string", "null")
	c.str("timestamp", false)
	c.kind("pending", false, "boolean")
	switch typ {
	case "message":
		m, ok := c.object("message", true)
		if ok {
			c.err = checkMessage(m)
			if c.err != nil {
				c.err = fmt.Errorf("message: %v", c.err)
			}
		}
	case "thinking_level_change":
		if l, ok := c.str("thinkingLevel", true); ok && !oneOf(l, "off", "minimal", "low", "medium", "high", "xhigh") {
			c.fail(`"thinkingLevel" is %q, want off, minimal, low, medium, high or xhigh`, l)
		}
	case "model_change":
		c.str("role", false)
		_, hasModel := top["model"]
		_, hasProvider := top["provider"]
		if hasProvider || !hasModel {
			c.nonEmpty("provider", true)
			c.nonEmpty("modelId", true)
		}
		if hasModel {
			if m, ok := c.str("model", true); ok && !validModelRef(m) {
				c.fail(`"model" is %q, want "provider/id"`, m)
			}
		}
	case "compaction":
		c.str("summary", true)
		c.str("shortSummary", false)
		c.str("firstKeptEntryId", true)
		if n, ok := c.number("tokensBefore", true); ok && n < 0 {
			c.fail(`"tokensBefore" is negative`)
		}
		c.fileOps()
		c.kind("fromExtension", false, "boolean")
	case "branch_summary":
		c.str("fromId", true)
		c.str("summary", true)
		c.fileOps()
	case "custom":
		c.str("customType", true)
	case "custom_message":
		c.str("customType", true)
		c.content("content", true, false)
		c.kind("display", true, "boolean")
	case "label":
		c.nonEmpty("targetId", true)
		c.str("label", false)
	case "ttsr_injection":
		c.strings("injectedRules", true)
	case "session_init":
		c.str("systemPrompt", true)
		c.str("task", true)
		c.strings("tools", true)
	case "mode_change":
		c.str("mode", true)
		c.object("data", false)
	case checkpoint.EntryType:
		if c.err == nil {
			if raw, err := json.Marshal(top); err == nil {
				if _, err := checkpoint.ParseEntry(raw); err != nil {
					c.fail("checkpoint: %v", err)
				}
			}
		}
	}
	return c.err
}

func validModelRef(m string) bool {
	p, id, ok := strings.Cut(m, "/")
	return ok && p != "" && id != ""
}

func oneOf(s string, vals ...string) bool {
	for _, v := range vals {
		if s == v {
			return true
		}
	}
	return false
}

func checkMessage(m map[string]json.RawMessage) error {
	c := checker{obj: m}
	role, ok := c.nonEmpty("role", true)
	if !ok {
		return c.err
	}
	c.number("timestamp", false)
	switch role {
	case "user":
		c.content("content", true, false)
		c.kind("synthetic", false, "boolean")
	case "assistant":
		c.content("content", true, true)
		for _, k := range []string{"api", "provider", "model", "errorMessage"} {
			c.str(k, false)
		}
		if s, ok := c.str("stopReason", true); ok && !oneOf(s, "stop", "length", "toolUse", "error", "aborted") {
			c.fail(`"stopReason" is %q, want stop, length, toolUse, error or aborted`, s)
		}
		if u, ok := c.object("usage", false); ok && c.err == nil {
			uc := checker{obj: u}
			uc.number("input", true)
			uc.number("output", true)
			for _, k := range []string{"cacheRead", "cacheWrite", "totalTokens"} {
				uc.number(k, false)
			}
			if uc.err != nil {
				c.fail("usage: %v", uc.err)
			}
		}
		c.kind("retried", false, "boolean")
	case "toolResult":
		c.str("toolCallId", true)
		c.str("toolName", true)
		c.content("content", true, true)
		c.kind("isError", true, "boolean")
		c.number("prunedAt", false)
	case "bashExecution":
		c.str("command", true)
		c.str("output", true)
		c.kind("exitCode", false, "number", "null")
		for _, k := range []string{"cancelled", "truncated", "excludeFromContext"} {
			c.kind(k, false, "boolean")
		}
	case "pythonExecution":
		c.str("code", true)
		c.str("output", true)
	case "custom", "hookMessage":
		c.str("customType", true)
		c.content("content", true, false)
		c.kind("display", false, "boolean")
	case "fileMention":
		if v, ok := c.member("files", true, "array"); ok {
			for i, f := range elements(v) {
				fo, err := memberMap(f)
				if err != nil || jsonKind(f) != "object" {
					c.fail("files[%d] is not an object", i)
					break
				}
				fc := checker{obj: fo}
				fc.str("path", true)
				fc.str("content", false)
				if fc.err != nil {
					c.fail("files[%d]: %v", i, fc.err)
					break
				}
			}
		}
	}
	return c.err
}

// checker checks the members of one JSON object, keeping the first error.
type checker struct {
	obj map[string]json.RawMessage
	err error
}

func (c *checker) fail(f string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(f, a...)
	}
}

// jsonKind is the JSON type of a value: object, array, string, number,
// boolean or null.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// member returns k's value when it is present and of one of kinds; a
// required member that is missing, or any of another kind, fails.
func (c *checker) member(k string, required bool, kinds ...string) (json.RawMessage, bool) {
	if c.err != nil {
		return nil, false
	}
	v, ok := c.obj[k]
	if !ok {
		if required {
			c.fail("no %q", k)
		}
		return nil, false
	}
	got := jsonKind(v)
	for _, want := range kinds {
		if got == want {
			return v, true
		}
	}
	c.fail("%q is a %s, want a %s", k, got, strings.Join(kinds, " or "))
	return nil, false
}

func (c *checker) kind(k string, required bool, kinds ...string) { c.member(k, required, kinds...) }

func (c *checker) str(k string, required bool) (string, bool) {
	v, ok := c.member(k, required, "string")
	if !ok {
		return "", false
	}
	s, ok := StrVal(v)
	if !ok {
		c.fail("%q is not a valid string", k)
		return "", false
	}
	return s, true
}

func (c *checker) nonEmpty(k string, required bool) (string, bool) {
	s, ok := c.str(k, required)
	if ok && s == "" {
		c.fail("%q is empty", k)
		return "", false
	}
	return s, ok
}

func (c *checker) number(k string, required bool) (float64, bool) {
	v, ok := c.member(k, required, "number")
	if !ok {
		return 0, false
	}
	n, err := numVal(v)
	if err != nil {
		c.fail("%q: %v", k, err)
		return 0, false
	}
	return n, true
}

func (c *checker) object(k string, required bool) (map[string]json.RawMessage, bool) {
	v, ok := c.member(k, required, "object")
	if !ok {
		return nil, false
	}
	m, err := memberMap(v)
	if err != nil {
		c.fail("%q: %v", k, err)
		return nil, false
	}
	return m, true
}

func (c *checker) strings(k string, required bool) {
	v, ok := c.member(k, required, "array")
	if !ok {
		return
	}
	for _, e := range elements(v) {
		if kind := jsonKind(e); kind != "string" && kind != "null" {
			c.fail("%q holds a value that is not a string", k)
			return
		}
	}
}

func (c *checker) fileOps() {
	d, ok := c.object("details", false)
	if !ok {
		return
	}
	dc := checker{obj: d}
	dc.strings("readFiles", false)
	dc.strings("modifiedFiles", false)
	if dc.err != nil {
		c.fail("details: %v", dc.err)
	}
}

// content checks a content member: blocks, or (unless blocksOnly) a string.
func (c *checker) content(k string, required, blocksOnly bool) {
	kinds := []string{"array", "string"}
	if blocksOnly {
		kinds = kinds[:1]
	}
	v, ok := c.member(k, required, kinds...)
	if !ok || jsonKind(v) == "string" {
		return
	}
	for i, b := range elements(v) {
		if err := checkBlock(b); err != nil {
			c.fail("%s[%d]: %v", k, i, err)
			return
		}
	}
}

func checkBlock(raw json.RawMessage) error {
	b, err := memberMap(raw)
	if err != nil || jsonKind(raw) != "object" {
		return fmt.Errorf("not an object")
	}
	c := checker{obj: b}
	t, ok := c.str("type", true)
	if !ok {
		return c.err
	}
	switch t {
	case "text":
		c.str("text", true)
		c.str("textSignature", false)
	case "thinking":
		c.str("thinking", true)
		c.str("thinkingSignature", false)
	case "toolCall":
		c.str("id", true)
		c.str("name", true)
		c.kind("arguments", true, "object")
		c.str("thoughtSignature", false)
		c.str("intent", false)
	case "image":
		c.str("data", true)
		if m, ok := c.str("mimeType", true); ok && !strings.HasPrefix(m, "image/") {
			c.fail(`"mimeType" is %q, want image/…`, m)
		}
	default:
		c.fail(`block type %q, want text, thinking, toolCall or image`, t)
	}
	return c.err
}

// elements are the elements of a JSON array (nil for anything else).
func elements(v []byte) []json.RawMessage {
	var out []json.RawMessage
	if Elements(v, func(e []byte) bool { out = append(out, e); return true }) {
		return out
	}
	out = nil
	json.Unmarshal(v, &out)
	return out
}

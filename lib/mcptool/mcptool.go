// Package mcptool turns MCP tools into agent tools and back: the model-facing
// names (mcp__<server>__<tool>, 64 characters at most), schema clean-up for
// agent-chat's validator, include/exclude filters, and the conversion of an
// MCP tools/call result (as JSON on the wire) into the tool-result shape of
// formats/tool-protocol. It works on JSON, not on SDK types, so it stays pure
// and the MCP SDK stays with agent-mcp (its command and its internal/mcp*
// packages).
package mcptool

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
)

// MaxName is the longest function name every provider accepts.
const MaxName = 64

// Naming modes.
const (
	Default = "default" // mcp__<server>__<tool> (Claude Code's form)
	V12     = "v12"     // mcp_<server>_<tool>, the reference's sanitiser
	V15     = "v15"     // mcp__<server>_<tool>
)

var (
	keepRE = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
	v12RE  = regexp.MustCompile(`[^a-z_]+`)
	dupRE  = regexp.MustCompile(`_{2,}`)
)

// Name is the agent name of tool on server under a naming mode.
func Name(mode, server, tool string) (string, error) {
	var n string
	switch mode {
	case "", Default:
		n = "mcp__" + keepRE.ReplaceAllString(server, "_") + "__" + keepRE.ReplaceAllString(tool, "_")
	case V12, V15:
		s, t := v12Part(server, "server"), v12Part(tool, "tool")
		if rest, ok := strings.CutPrefix(t, s+"_"); ok {
			t = rest
		}
		if mode == V12 {
			n = "mcp_" + s + "_" + t
		} else {
			n = "mcp__" + s + "_" + t
		}
	default:
		return "", fmt.Errorf("unknown naming %q (want default, v12 or v15)", mode)
	}
	if len(n) > MaxName {
		h := sha1.Sum([]byte(n))
		n = n[:MaxName-7] + "_" + hex.EncodeToString(h[:])[:6]
	}
	return n, nil
}

func v12Part(s, empty string) string {
	s = v12RE.ReplaceAllString(strings.ToLower(s), "_")
	s = strings.Trim(dupRE.ReplaceAllString(s, "_"), "_")
	if s == "" {
		return empty
	}
	return s
}

// Allowed applies includeTools / excludeTools (globs on raw MCP tool names).
func Allowed(include, exclude []string, tool string) bool {
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := path.Match(g, tool); ok || g == tool {
				return true
			}
		}
		return false
	}
	if len(include) > 0 && !match(include) {
		return false
	}
	return !match(exclude)
}

// CleanSchema drops $schema and nullable everywhere and gives an object
// schema without properties an empty one, as the reference does for its
// validator. Anything that is not a JSON object becomes {"type":"object"}.
func CleanSchema(raw json.RawMessage) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	clean(m)
	if m["type"] == nil {
		m["type"] = "object"
	}
	if m["type"] == "object" && m["properties"] == nil {
		m["properties"] = map[string]any{}
	}
	b, _ := json.Marshal(m)
	return b
}

func clean(v any) {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "$schema")
		delete(t, "nullable")
		for k, x := range t {
			if k == "properties" || k == "$defs" || k == "definitions" {
				if props, ok := x.(map[string]any); ok {
					for _, p := range props {
						clean(p)
					}
					continue
				}
			}
			clean(x)
		}
	case []any:
		for _, x := range t {
			clean(x)
		}
	}
}

// block is an MCP content block on the wire.
type block struct {
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	Data        string          `json:"data"`
	MimeType    string          `json:"mimeType"`
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Resource    *ResourceBody   `json:"resource"`
	Raw         json.RawMessage `json:"-"`
}

// ResourceBody is one entry of resources/read contents or an embedded resource.
type ResourceBody struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     string  `json:"blob,omitempty"`
}

// Details is the details object of a converted result.
type Details struct {
	ServerName        string          `json:"serverName"`
	MCPToolName       string          `json:"mcpToolName"`
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

// Output is a call result in the tool-result shape.
type Output struct {
	Content []event.Content `json:"content"`
	Details Details         `json:"details"`
	IsError bool            `json:"isError"`
}

// Convert turns a CallToolResult (JSON) into our result: text and image
// blocks pass through; audio, blobs, embedded resources and resource links
// become text; structuredContent is kept in details and, when there is no
// other content, shown as pretty JSON.
func Convert(server, tool string, raw []byte) (Output, error) {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		Meta              json.RawMessage   `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Output{}, fmt.Errorf("tools/call result: %w", err)
	}
	out := Output{Details: Details{ServerName: server, MCPToolName: tool, IsError: r.IsError, Meta: r.Meta}, IsError: r.IsError}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		out.Details.StructuredContent = r.StructuredContent
	}
	for _, c := range r.Content {
		var b block
		if err := json.Unmarshal(c, &b); err != nil {
			return Output{}, fmt.Errorf("tools/call result: content: %w", err)
		}
		out.Content = append(out.Content, Block(b))
	}
	if len(out.Content) == 0 && out.Details.StructuredContent != nil {
		var v any
		_ = json.Unmarshal(out.Details.StructuredContent, &v)
		pretty, _ := json.MarshalIndent(v, "", "  ")
		out.Content = append(out.Content, event.Text(string(pretty)))
	}
	if out.Content == nil {
		out.Content = []event.Content{}
	}
	if r.IsError && len(out.Content) > 0 && out.Content[0].Type == "text" && !strings.HasPrefix(out.Content[0].Text, "Error: ") {
		out.Content[0].Text = "Error: " + out.Content[0].Text
	}
	return out, nil
}

// Block converts one MCP content block.
func Block(b block) event.Content {
	switch b.Type {
	case "text":
		return event.Text(b.Text)
	case "image":
		return event.Content{Type: "image", Data: b.Data, MimeType: b.MimeType}
	case "audio":
		return event.Text(fmt.Sprintf("[Audio: %s]", b.MimeType))
	case "resource_link":
		s := "[Resource link: " + b.URI + "]"
		if b.Name != "" {
			s += " " + b.Name
		}
		if b.Description != "" {
			s += ": " + b.Description
		}
		return event.Text(s)
	case "resource":
		if b.Resource == nil {
			return event.Text("[Resource]")
		}
		return event.Text(ResourceText(*b.Resource))
	}
	return event.Text(fmt.Sprintf("[Unsupported content: %s]", b.Type))
}

// ResourceText renders one resource body: its text under a header line, or
// a placeholder for binary contents.
func ResourceText(r ResourceBody) string {
	if r.Text != nil {
		return "[Resource: " + r.URI + "]\n" + *r.Text
	}
	n := base64.StdEncoding.DecodedLen(len(r.Blob))
	if b, err := base64.StdEncoding.DecodeString(r.Blob); err == nil {
		n = len(b)
	}
	mime := r.MimeType
	if mime == "" {
		mime = "application/octet-stream"
	}
	return fmt.Sprintf("[Binary resource: %s, %s, %d bytes]", r.URI, mime, n)
}

// JoinText joins the text blocks of content with blank lines (--text).
func JoinText(content []event.Content) string {
	var parts []string
	for _, c := range content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "image":
			parts = append(parts, "[Image: "+c.MimeType+"]")
		}
	}
	return strings.Join(parts, "\n\n")
}

// Clip cuts an instructions text to n bytes on a rune boundary.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Limits of model-facing text, agent-tool's standard budget.
const (
	MaxLines = 2000
	MaxBytes = 50 * 1024
)

// Limited is the outcome of LimitText.
type Limited struct {
	Content []event.Content
	// Truncated is set when text was cut; Shown and Total count lines.
	Truncated    bool
	ByBytes      bool
	Shown, Total int
}

// LimitText keeps the text blocks of content within maxLines lines and
// maxBytes bytes, whole lines from the top (agent-tool's head truncation,
// one budget over all blocks); other blocks pass through.
func LimitText(content []event.Content, maxLines, maxBytes int) Limited {
	var l Limited
	linesLeft, bytesLeft := maxLines, maxBytes
	for _, c := range content {
		if c.Type != "text" {
			l.Content = append(l.Content, c)
			continue
		}
		lines := strings.Split(c.Text, "\n")
		l.Total += len(lines)
		var kept []string
		size := 0
		for _, ln := range lines {
			add := len(ln)
			if len(kept) > 0 {
				add++
			}
			if linesLeft == 0 || size+add > bytesLeft {
				l.Truncated = true
				l.ByBytes = l.ByBytes || linesLeft > 0
				break
			}
			kept = append(kept, ln)
			size += add
			linesLeft--
		}
		l.Shown += len(kept)
		bytesLeft -= size
		if len(kept) > 0 {
			l.Content = append(l.Content, event.Text(strings.Join(kept, "\n")))
		}
	}
	return l
}

// Notice is the bracketed line appended to a truncated result.
func (l Limited) Notice(maxBytes int, full string) string {
	s := fmt.Sprintf("[Showing lines 1-%d of %d", l.Shown, l.Total)
	if l.ByBytes {
		s += fmt.Sprintf(" (%s limit)", event.FormatBytes(maxBytes))
	}
	if full != "" {
		s += ". Full: " + full
	}
	return s + "]"
}

// Annotations are the behaviour hints of an MCP tool (the spec's
// ToolAnnotations; a missing hint is nil).
type Annotations struct {
	ReadOnly    bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool `json:"destructiveHint,omitempty"`
	Idempotent  bool  `json:"idempotentHint,omitempty"`
}

// Resendable reports whether a call of a tool with these hints may be sent
// again after the connection broke while it ran (the call may have run): only
// a read-only tool, or one that says it is idempotent and not destructive.
// The spec's defaults apply: destructiveHint is true when absent.
func Resendable(a *Annotations) bool {
	if a == nil {
		return false
	}
	if a.ReadOnly {
		return true
	}
	return a.Idempotent && a.Destructive != nil && !*a.Destructive
}

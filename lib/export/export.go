// Package export renders a session for people and other programs: a
// markdown transcript, one JSON document, and one self-contained HTML page
// (no network, no external files) with thinking folded, tool calls and
// their results, and the session tree for navigation.
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/agentutils/agentutils/lib/session"
)

// Session is what is exported: the header, every entry in file order, and
// the current leaf (whose path is the transcript).
type Session struct {
	Header  []byte
	Entries [][]byte
	LeafID  string
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	Provider   string          `json:"provider"`
	ToolName   string          `json:"toolName"`
	ToolCallID string          `json:"toolCallId"`
	IsError    bool            `json:"isError"`
	Command    string          `json:"command"`
	Output     string          `json:"output"`
	ExitCode   *int            `json:"exitCode"`
	Summary    string          `json:"summary"`
	CustomType string          `json:"customType"`
	Usage      *struct {
		Input, Output int
		Cost          struct{ Total float64 }
	} `json:"usage"`
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

func (s Session) records() ([]session.Record, session.Header, error) {
	h, err := session.ParseHeader(s.Header)
	if err != nil {
		return nil, h, err
	}
	var recs []session.Record
	for i, e := range s.Entries {
		r, err := session.ParseRecord(e)
		if err != nil {
			return nil, h, fmt.Errorf("entry %d: %v", i+1, err)
		}
		recs = append(recs, r)
	}
	return recs, h, nil
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
		var m message
		json.Unmarshal(raw, &m)
		v := view{kind: m.Role}
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			var s string
			json.Unmarshal(m.Content, &s)
			blocks = []block{{Type: "text", Text: s}}
		}
		v.blocks = blocks
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
	recs, h, err := s.records()
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
			fmt.Fprintf(&b, "```\n%s\n```\n", v.text)
		}
		for _, bl := range v.blocks {
			switch bl.Type {
			case "text":
				if bl.Text != "" {
					b.WriteString(bl.Text + "\n")
				}
			case "thinking":
				fmt.Fprintf(&b, "<details><summary>Thinking</summary>\n\n%s\n\n</details>\n", bl.Thinking)
			case "toolCall":
				args, _ := json.MarshalIndent(json.RawMessage(bl.Arguments), "", "  ")
				fmt.Fprintf(&b, "**%s** `%s`\n```json\n%s\n```\n", bl.Name, bl.ID, args)
			case "image":
				fmt.Fprintf(&b, "*(image, %s)*\n", bl.MimeType)
			}
		}
	}
	return b.Bytes(), nil
}

// JSON is one document: the header, every entry, the leaf and the tree.
func JSON(s Session) ([]byte, error) {
	recs, _, err := s.records()
	if err != nil {
		return nil, err
	}
	entries := make([]json.RawMessage, len(s.Entries))
	for i, e := range s.Entries {
		entries[i] = e
	}
	leaf := s.LeafID
	out := map[string]any{"header": json.RawMessage(s.Header), "leafId": leaf, "entries": entries, "tree": session.Tree(recs)}
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}

// HTML is one self-contained page: inline CSS and script, no external
// resources, images inline as data URLs.
func HTML(s Session) ([]byte, error) {
	recs, h, err := s.records()
	if err != nil {
		return nil, err
	}
	views, err := transcript(recs, s.LeafID)
	if err != nil {
		return nil, err
	}
	title := h.Title
	if title == "" {
		title = "Session " + h.ID
	}
	var b bytes.Buffer
	esc := html.EscapeString
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head><body>\n", esc(title), css)
	fmt.Fprintf(&b, "<nav><h2>Tree</h2>\n")
	labels := session.Labels(recs)
	var walk func(ns []*session.Node)
	walk = func(ns []*session.Node) {
		b.WriteString("<ul>")
		for _, n := range ns {
			cls := ""
			if n.ID == s.LeafID {
				cls = " class=\"leaf\""
			}
			lbl := ""
			if l := labels[n.ID]; l != "" {
				lbl = " <b>[" + esc(l) + "]</b>"
			}
			fmt.Fprintf(&b, "<li%s><a href=\"#e-%s\">%s</a> %s%s", cls, esc(n.ID), esc(n.ID), esc(n.Type), lbl)
			if len(n.Children) > 0 {
				walk(n.Children)
			}
			b.WriteString("</li>")
		}
		b.WriteString("</ul>\n")
	}
	walk(session.Tree(recs))
	fmt.Fprintf(&b, "</nav>\n<main><h1>%s</h1><p class=\"meta\">%s · %s · %s</p>\n", esc(title), esc(h.ID), esc(h.Cwd), esc(h.Timestamp))
	path := session.Path(recs, s.LeafID)
	for _, r := range path {
		fmt.Fprintf(&b, "<a id=\"e-%s\"></a>", esc(r.ID))
	}
	for _, v := range views {
		fmt.Fprintf(&b, "<section class=\"%s\"><h3>%s</h3>\n", esc(v.kind), esc(v.title))
		if v.text != "" {
			fmt.Fprintf(&b, "<pre>%s</pre>\n", esc(v.text))
		}
		for _, bl := range v.blocks {
			switch bl.Type {
			case "text":
				if bl.Text != "" {
					fmt.Fprintf(&b, "<div class=\"text\">%s</div>\n", esc(bl.Text))
				}
			case "thinking":
				fmt.Fprintf(&b, "<details class=\"thinking\"><summary>Thinking</summary><pre>%s</pre></details>\n", esc(bl.Thinking))
			case "toolCall":
				args, _ := json.MarshalIndent(json.RawMessage(bl.Arguments), "", "  ")
				fmt.Fprintf(&b, "<details class=\"call\" open><summary>%s <code>%s</code></summary><pre>%s</pre></details>\n", esc(bl.Name), esc(bl.ID), esc(string(args)))
			case "image":
				if strings.HasPrefix(bl.MimeType, "image/") && !strings.HasPrefix(bl.Data, session.BlobPrefix) {
					fmt.Fprintf(&b, "<img alt=\"image\" src=\"data:%s;base64,%s\">\n", esc(bl.MimeType), esc(bl.Data))
				} else {
					fmt.Fprintf(&b, "<p><i>(image %s)</i></p>\n", esc(bl.MimeType))
				}
			}
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</main></body></html>\n")
	return b.Bytes(), nil
}

const css = `body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#222;background:#fafafa}
nav{width:18em;padding:1em;border-right:1px solid #ddd;height:100vh;overflow:auto;position:sticky;top:0;font-size:13px}
nav ul{padding-left:1em;margin:0}nav .leaf>a{font-weight:bold}
main{flex:1;max-width:60em;padding:1em 2em}.meta{color:#777}
section{background:#fff;border:1px solid #e3e3e3;border-radius:6px;margin:1em 0;padding:.5em 1em}
section.user{border-left:4px solid #3a7}section.assistant{border-left:4px solid #37a}
section.toolResult,section.bashExecution{border-left:4px solid #a73}
.text{white-space:pre-wrap}pre{background:#f4f4f4;padding:.5em;overflow:auto;white-space:pre-wrap}
details.thinking{color:#666}img{max-width:100%}
@media (prefers-color-scheme:dark){body{background:#1b1b1b;color:#ddd}section{background:#242424;border-color:#333}pre{background:#2c2c2c}}`

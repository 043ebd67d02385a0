package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/tooldef"
)

func treeCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "tree",
		Usage:     "print the entry tree for people: branches indented, labels and the current leaf marked",
		ArgsUsage: "FILE",
		Description: `A chain of entries stays at one indentation; each branch point indents its branches.
The current leaf is marked with "*", labels are shown in brackets. A task result names the
sub-agent's session file under it; a sub-agent's session names its parent's file and call. Bookkeeping entries (labels,
custom state, model and thinking changes) are hidden unless --all. For a JSON tree use
'agent-session open --tree'.

Example:
   agent-session tree s.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "show every entry type"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "`auto`, always or never"},
		},
		Action: func(c *cli.Context) error {
			l, _, err := loadArg(c, env)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(c.App.Writer)
			p := treePrinter{w: w, leaf: l.Leaf(), all: c.Bool("all"), color: env.Color(c.String("color"), env.StdoutTTY)}
			fmt.Fprintf(w, "%s  %s\n", l.Hdr.ID, orDefault(l.Hdr.Title, "(untitled)"))
			if l.Hdr.ParentToolCallID != "" { // a sub-agent's session
				fmt.Fprintf(w, "sub-agent of %s, call %s\n", l.Hdr.ParentSession, l.Hdr.ParentToolCallID)
			}
			for _, n := range session.Tree(l.Entries) {
				p.node(n, "")
			}
			return w.Flush()
		},
	}
}

type treePrinter struct {
	w     io.Writer
	leaf  string
	all   bool
	color bool
}

var hiddenTypes = map[string]bool{"label": true, "custom": true, "model_change": true, "thinking_level_change": true}

// node prints n and its descendants; a single child continues the chain at
// the same indentation, several children each get a branch.
func (p *treePrinter) node(n *session.Node, indent string) {
	for {
		if p.all || !hiddenTypes[n.Entry.Type] || n.Entry.ID == p.leaf {
			p.line(n, indent)
		}
		if len(n.Children) != 1 {
			break
		}
		n = n.Children[0]
	}
	for i, ch := range n.Children {
		mark := "├─ "
		next := "│  "
		if i == len(n.Children)-1 {
			mark, next = "└─ ", "   "
		}
		fmt.Fprintf(p.w, "%s%s\n", indent, mark+p.dim("branch"))
		p.node(ch, indent+next)
	}
}

func (p *treePrinter) line(n *session.Node, indent string) {
	cur := "  "
	if n.Entry.ID == p.leaf {
		cur = p.bold("* ")
	}
	label := ""
	if n.Label != "" {
		label = " " + p.bold("["+n.Label+"]")
	}
	fmt.Fprintf(p.w, "%s%s%s %s%s\n", indent, cur, p.dim(n.Entry.ID), describe(n.Entry), label)
	if f := subagentFile(n.Entry); f != "" {
		fmt.Fprintf(p.w, "%s    └─ sub-agent %s\n", indent, f)
	}
}

// subagentFile is the session file of the sub-agent whose answer the
// entry is (a task result's details.session), or "".
func subagentFile(r session.Record) string {
	m, ok := session.MsgOf(r)
	if !ok || m.Role != "toolResult" {
		return ""
	}
	var d struct{ Session string }
	if json.Unmarshal(m.Details, &d) != nil || len(m.Details) == 0 {
		return ""
	}
	if t, ok := tooldef.Lookup(m.ToolName); !ok || !t.InChat {
		return ""
	}
	return d.Session
}

func (p *treePrinter) dim(s string) string {
	if !p.color {
		return s
	}
	return "\x1b[2m" + s + "\x1b[0m"
}

func (p *treePrinter) bold(s string) string {
	if !p.color {
		return s
	}
	return "\x1b[1m" + s + "\x1b[0m"
}

// describe is a one-line summary of an entry.
func describe(r session.Record) string {
	e, _ := session.Decode(r.Raw)
	switch r.Type {
	case "message":
		m, _ := session.MsgOf(r)
		switch m.Role {
		case "assistant":
			txt := session.JoinText(m.Content, "\n")
			var calls []string
			var blocks []struct{ Type, Name string }
			json.Unmarshal(m.Content, &blocks)
			for _, b := range blocks {
				if b.Type == "toolCall" {
					calls = append(calls, b.Name)
				}
			}
			s := "assistant:"
			if t := oneLine(txt, 60); t != "" { // a turn of tool calls alone has none
				s += " " + t
			}
			if len(calls) > 0 {
				s += " → " + strings.Join(calls, ", ")
			}
			return s
		case "toolResult":
			return "tool " + m.ToolName + ": " + oneLine(session.JoinText(m.Content, "\n"), 50)
		case "bashExecution":
			return "$ " + oneLine(m.Command, 60)
		}
		return m.Role + ": " + oneLine(session.JoinText(m.Content, "\n"), 60)
	case "compaction":
		return "compaction: " + oneLine(e.Str("summary"), 60)
	case "branch_summary":
		return "branch summary: " + oneLine(e.Str("summary"), 55)
	case "custom_message":
		content, _ := e.Get("content")
		return e.Str("customType") + ": " + oneLine(session.JoinText(content, "\n"), 55)
	case "model_change":
		m, _ := session.ModelChangeOf(r.Raw)
		return "model → " + m
	case "thinking_level_change":
		return "thinking → " + e.Str("thinkingLevel")
	case "label":
		return "label " + e.Str("targetId") + " = " + e.Str("label")
	}
	return r.Type
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Package permission is Claude Code's permission modes and tool rules
// for a run with no one to ask (agent-chat in a pipe, agent -p): a call
// that would need a person's approval is refused, as claude -p does. The
// rules are Claude Code's (`Bash(git diff:*)`, `Edit`, `Read(src/**)`,
// `mcp__github`); deny rules win, then bypassPermissions, then plan, then
// allow rules, then the mode. It is pure: the caller says what a call is.
package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentutils/agentutils/lib/shpolicy"
)

// Modes are Claude Code's permission modes.
var Modes = []string{"default", "acceptEdits", "plan", "bypassPermissions"}

// The classes of tools a mode decides on.
const (
	Read    = "read"    // runs in every mode
	Write   = "write"   // runs in acceptEdits
	Exec    = "exec"    // needs an allow rule (or bypassPermissions)
	Network = "network" // needs an allow rule (or bypassPermissions)
)

// A Rule is Tool or Tool(Spec).
type Rule struct{ Tool, Spec string }

func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// ParseRules reads rules as Claude Code's --allowedTools takes them:
// each value holds one or more, separated by commas or spaces outside
// parentheses ("Bash(git log:*) Edit,Read").
func ParseRules(values []string) ([]Rule, error) {
	var out []Rule
	for _, v := range values {
		depth, start := 0, 0
		flush := func(end int) error {
			s := strings.TrimSpace(v[start:end])
			if s == "" {
				return nil
			}
			r, err := parseRule(s)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		}
		for i, c := range v {
			switch {
			case c == '(':
				depth++
			case c == ')':
				depth--
				if depth < 0 {
					return nil, fmt.Errorf("%q: ) without (", v)
				}
			case depth == 0 && (c == ',' || c == ' ' || c == '\t'):
				if err := flush(i); err != nil {
					return nil, err
				}
				start = i + 1
			}
		}
		if depth != 0 {
			return nil, fmt.Errorf("%q: ( without )", v)
		}
		if err := flush(len(v)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func parseRule(s string) (Rule, error) {
	name, spec, hasSpec := strings.Cut(s, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return Rule{}, fmt.Errorf("rule %q: text after )", s)
		}
		spec = strings.TrimSuffix(spec, ")")
		if strings.TrimSpace(spec) == "" {
			return Rule{}, fmt.Errorf("rule %q: empty ()", s)
		}
	}
	for _, c := range name {
		if !(c == '_' || c == '-' || c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return Rule{}, fmt.Errorf("rule %q: %q is not a tool name", s, name)
		}
	}
	if name == "" {
		return Rule{}, fmt.Errorf("rule %q: no tool name", s)
	}
	return Rule{Tool: name, Spec: spec}, nil
}

// Policy is a run's mode and rules.
type Policy struct {
	Mode string // one of Modes ("" is default)
	// Asked says a person is asked before a call that needs approval (the
	// tools' approval hook of agent): such calls are left to them, and
	// only deny rules and plan mode refuse here.
	Asked       bool
	Allow, Deny []Rule
}

// Call is what Decide needs to know of a tool call.
type Call struct {
	Names   []string // the tool's name and its Claude Code names (bash, Bash)
	Class   string   // Read, Write, Exec, Network, or "" (unknown: needs a rule)
	Command string   // bash's script
	// Path is the call's path argument relative to the working directory
	// (or absolute when outside it); "" when it has none.
	Path string
	// Bash says how bash's redirections resolve and which files they may
	// touch without approval; Decide sets the commands and ReadOnly.
	Bash shpolicy.Options
}

// Decide is "" when the call may run, else why not (for the model).
func (p Policy) Decide(c Call) string {
	if why := p.Denied(c); why != "" {
		return why
	}
	switch {
	case p.Mode == "bypassPermissions", p.Mode == "plan", p.Asked, c.Class == Read, c.Class == Write && p.Mode == "acceptEdits":
		return ""
	}
	return p.allowed(c)
}

// Denied is why the call may not run whoever approves it (a deny rule,
// plan mode), else "": a call Decide refuses that is not Denied is one
// that needs approval.
func (p Policy) Denied(c Call) string {
	for _, r := range p.Deny {
		if p.matchDeny(r, c) {
			return fmt.Sprintf("Permission to use %s was denied by the rule %s.", c.Names[0], r)
		}
	}
	if p.Mode == "plan" && c.Class != Read {
		return fmt.Sprintf("Permission to use %s was denied: in plan mode only tools that read run.", c.Names[0])
	}
	return ""
}

// allowed is "" when an allow rule covers the call, else the reason.
func (p Policy) allowed(c Call) string {
	var prefixes, exact []string
	bashRule := false
	for _, r := range p.Allow {
		if !named(r.Tool, c.Names) {
			continue
		}
		switch {
		case r.Spec == "" || r.Spec == "*":
			return ""
		case c.Command != "" || slices.Contains(c.Names, "bash"):
			bashRule = true
			if pre, ok := prefix(r.Spec); ok {
				prefixes = append(prefixes, pre)
			} else {
				exact = append(exact, r.Spec)
			}
		case c.Path != "" && pathMatch(r.Spec, c.Path):
			return ""
		}
	}
	if bashRule {
		o := c.Bash
		o.Prefixes, o.Exact, o.ReadOnly = prefixes, exact, p.Mode != "acceptEdits"
		if why := shpolicy.Check(c.Command, o); why != "" {
			return why + " " + p.noOne()
		}
		return ""
	}
	return fmt.Sprintf("Permission to use %s was denied: it needs approval, %s", c.Names[0], p.noOne())
}

func (p Policy) noOne() string {
	mode := p.Mode
	if mode == "" {
		mode = "default"
	}
	return "and in permission mode " + mode + " with no one to ask (a pipe) what needs approval is refused; allow it with --allowed-tools."
}

// matchDeny says whether deny rule r covers c: by name, or for bash when
// any command of the script matches its spec (a script that does not
// parse is denied), or for a path that matches its pattern. A spec this
// package cannot judge denies the whole tool.
func (p Policy) matchDeny(r Rule, c Call) bool {
	if !named(r.Tool, c.Names) {
		return false
	}
	if r.Spec == "" || r.Spec == "*" {
		return true
	}
	if slices.Contains(c.Names, "bash") {
		cmds, err := shpolicy.Commands(c.Command)
		if err != nil {
			return true
		}
		pre, isPrefix := prefix(r.Spec)
		for _, cmd := range cmds {
			if cmd == r.Spec || isPrefix && (cmd == pre || strings.HasPrefix(cmd, pre+" ")) {
				return true
			}
		}
		return false
	}
	if c.Path != "" {
		return pathMatch(r.Spec, c.Path)
	}
	return true
}

// named says whether a rule's tool names the call: its name or a Claude
// Code name; mcp__server covers every tool of the server, and a trailing
// * any name with the part before it.
func named(tool string, names []string) bool {
	for _, n := range names {
		switch {
		case tool == n:
			return true
		case strings.HasSuffix(tool, "*") && strings.HasPrefix(n, strings.TrimSuffix(tool, "*")):
			return true
		case strings.HasPrefix(tool, "mcp__") && strings.Count(tool, "__") == 1 && strings.HasPrefix(n, tool+"__"):
			return true
		}
	}
	return false
}

// prefix is the command of a prefix spec: "git diff:*" and "git diff *"
// are git diff with any arguments.
func prefix(spec string) (string, bool) {
	for _, suf := range []string{":*", " *"} {
		if p, ok := strings.CutSuffix(spec, suf); ok {
			return strings.TrimSpace(p), true
		}
	}
	return "", false
}

// pathMatch matches a Read/Edit spec (gitignore-like: "//abs/**" from the
// file system's root, otherwise relative to the working directory, "./"
// optional; "dir/**" covers the directory) against a path.
func pathMatch(spec, path string) bool {
	path = filepath.ToSlash(filepath.Clean(path))
	switch {
	case strings.HasPrefix(spec, "//"):
		spec = spec[1:]
	case strings.HasPrefix(spec, "./"):
		spec = spec[2:]
	}
	ok, _ := doublestar.Match(spec, path)
	return ok
}

// Summary says on one line what the policy lets run, for stderr.
func (p Policy) Summary() string {
	mode := p.Mode
	if mode == "" {
		mode = "default"
	}
	var runs string
	switch mode {
	case "bypassPermissions":
		runs = "every tool runs"
	case "plan":
		runs = "only tools that read run"
	case "acceptEdits":
		runs = "tools that read or edit files run"
	default:
		runs = "tools that read run"
	}
	s := "permission mode " + mode + ": " + runs
	if len(p.Allow) > 0 && mode != "bypassPermissions" && mode != "plan" {
		s += "; also allowed: " + join(p.Allow)
	}
	if len(p.Deny) > 0 {
		s += "; denied: " + join(p.Deny)
	}
	switch {
	case mode == "bypassPermissions" || mode == "plan" && p.Asked:
	case p.Asked:
		s += "; anything else is asked of a person"
	default:
		s += "; anything else needs approval and is refused (no one to ask)"
	}
	return s
}

func join(rs []Rule) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return strings.Join(out, ", ")
}

// WithSession is the run's policy once the session's mode (its last
// mode_change, folded by lib/session.BuildContext: "none" when it has
// none) is read: a mode given on the command line or in the environment
// (given) wins, then the session's, then config.toml's. Without a policy
// only the session's plan mode makes one (asked: a person approves the
// rest): a run that nobody configured refuses nothing else.
func WithSession(p *Policy, session string, given, asked bool) *Policy {
	if !slices.Contains(Modes, session) || given && p != nil {
		return p
	}
	if p == nil {
		if session != "plan" {
			return nil
		}
		return &Policy{Mode: session, Asked: asked}
	}
	q := *p
	q.Mode = session
	return &q
}

// ModeEntry is the mode a run records in the session (a mode_change
// entry) when its policy's differs from the session's; false when there
// is nothing to record.
func ModeEntry(p *Policy, session string) (string, bool) {
	if p == nil {
		return "", false
	}
	mode, was := p.Mode, session
	if mode == "" {
		mode = "default"
	}
	if was == "" || was == "none" {
		was = "default"
	}
	return mode, mode != was
}

// PlanPrompt tells the model it is in plan mode (the system prompt's
// last part).
const PlanPrompt = "You are in plan mode: only the tools that read run (the others are refused), so change nothing yet. Explore what the task needs, then present your plan with the exit_plan_mode tool; once the user approves it, carry it out. For a question that needs no changes, just answer."

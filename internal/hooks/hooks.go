// Package hooks runs hooks: executables that get one JSON object on stdin
// and answer with an exit code (0 allow, 2 block with stderr as the
// reason) and optional JSON on stdout — Claude Code's contract for each of
// its events, so its hook scripts work unchanged. Hooks come from
// Claude-style settings files ({"hooks":{"PreToolUse":[{"matcher":…,
// "hooks":[…]}]}}, SettingsFiles finds Claude Code's and ours) and from
// directories (DIR/pre/<tool>, DIR/post/<tool>, <tool> may be *).
package hooks

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/tooldef"
)

// DefaultTimeout is a hook's time limit when its settings name none;
// prompt hooks have PromptTimeout, agent hooks AgentTimeout, as in Claude
// Code.
const (
	DefaultTimeout = 60 * time.Second
	PromptTimeout  = 30 * time.Second
	AgentTimeout   = 60 * time.Second
)

// The types of hook, Claude Code's: a shell command (or, from a
// directory, an executable), an HTTP POST of the input, one question to
// a model, a sub-agent with read tools.
const (
	TypeCommand = "command"
	TypeHTTP    = "http"
	TypePrompt  = "prompt"
	TypeAgent   = "agent"
)

// The events, with Claude Code's names.
const (
	PreToolUse         = "PreToolUse"         // agent-tool, before a call: exit 2 or a deny blocks it
	PostToolUse        = "PostToolUse"        // agent-tool, after a call that succeeded
	PostToolUseFailure = "PostToolUseFailure" // agent-tool, after a call that failed
	PermissionRequest  = "PermissionRequest"  // a person would be asked to approve a call
	PromptSubmit       = "UserPromptSubmit"   // agent-chat: exit 2 or a block refuses the prompt
	Notification       = "Notification"       // agent: a person is asked, or the agent waits
	Stop               = "Stop"               // agent-chat: exit 2 or a block keeps the agent going
	SubagentStart      = "SubagentStart"      // agent-chat's task tool starts a sub-agent
	SubagentStop       = "SubagentStop"       // a sub-agent's agent-chat would stop
	PreCompact         = "PreCompact"         // agent-compact, before a summary is made
	SessionStart       = "SessionStart"       // additional context joins the system prompt
	SessionEnd         = "SessionEnd"
	// ToolResult is our name for the post/ directories' hooks: they run
	// after every call, succeeded or failed.
	ToolResult = "tool_result"
)

// Events are the events read from settings files, in Claude Code's order.
var Events = []string{PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PromptSubmit, Notification,
	Stop, SubagentStart, SubagentStop, PreCompact, SessionStart, SessionEnd}

// ours are our other names of the events, accepted in settings files.
var ours = map[string]string{"tool_call": PreToolUse, "tool_result": ToolResult}

// Hook is one handler for one event.
type Hook struct {
	Event   string // one of Events, or ToolResult
	Matcher string // "" or "*" = all; else a regexp matching the whole name (Matches)
	Type    string // TypeCommand ("" too), TypeHTTP, TypePrompt, TypeAgent
	Command string // command: run with sh -c (settings) ...
	Path    string // ... or exec'd directly (directories)
	// Async: a command hook run in the background; what it answers
	// (systemMessage, additionalContext) reaches the model at its next turn.
	Async bool
	// http: the URL the input is POSTed to, the headers, and the
	// variables their $VAR or ${VAR} may name (others are empty).
	URL            string
	Headers        map[string]string
	AllowedEnvVars []string
	// prompt, agent: the question ($ARGUMENTS is the input; without it the
	// input is appended) and the model ("" the caller's).
	Prompt, Model string
	Timeout       time.Duration
	OnError       string // "block" (PreToolUse's default) or "allow"
	// Source is the settings file or directory the hook came from: the
	// hooks of one source run together, sources one after the other.
	Source string
}

// Name is how the hook is named in messages.
func (h Hook) Name() string {
	switch {
	case h.Path != "":
		return h.Path
	case h.Type == TypeHTTP:
		return h.URL
	case h.Type == TypePrompt || h.Type == TypeAgent:
		return h.Type + " " + strconv.Quote(firstLine(h.Prompt))
	}
	return h.Command
}

// key tells hooks apart: those of one key run once an event (Claude
// Code's: a command by its text, an http hook by its URL).
func (h Hook) key() string {
	if h.Type == TypePrompt || h.Type == TypeAgent {
		return h.Type + "\x00" + h.Model + "\x00" + h.Prompt
	}
	return h.Name()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// decisive are the events whose hooks may be of every type (Claude Code's
// list): the others take command and http hooks only.
var decisive = map[string]bool{PreToolUse: true, PostToolUse: true, PostToolUseFailure: true, PermissionRequest: true,
	PromptSubmit: true, Stop: true, SubagentStop: true, ToolResult: true}

// Matches says whether the hook applies to name: a tool's (our name or
// Claude Code's, mcp__server__tool), or what the event matches on.
func (h Hook) Matches(name string) bool {
	if h.Matcher == "" || h.Matcher == "*" {
		return true
	}
	re, err := regexp.Compile("^(?:" + h.Matcher + ")$")
	if err != nil {
		return h.Matcher == name
	}
	if re.MatchString(name) {
		return true
	}
	t, _ := tooldef.Lookup(name) // Claude Code's names of the tool match too
	for _, n := range t.Aliases {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

// LoadSettings reads the hooks of a Claude-style settings file:
// {"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"…","timeout":60}]}]}}.
// Every event of Events is read (and tool_call, tool_result), with the
// hook types command, http, prompt and agent (prompt and agent on the
// events that take them, as in Claude Code); other keys and events are
// ignored, and a hook of another type (mcp_tool), or a prompt or agent
// hook on an event that takes only commands, is left out with a warning
// naming it. A hook without what its type needs (a command, a URL, a
// prompt) is an error naming it.
func LoadSettings(path string) (out []Hook, warnings []string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type           string
				Command        string
				Timeout        float64
				Async          bool
				URL            string
				Headers        map[string]string
				AllowedEnvVars []string `json:"allowedEnvVars"`
				Prompt         string
				Model          string
				OnError        string `json:"on_error"`
				OnFailure      string `json:"onFailure"`
			}
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	for _, ev := range append(append([]string{}, Events...), "tool_call", "tool_result") {
		for i, m := range s.Hooks[ev] {
			for j, h := range m.Hooks {
				where := fmt.Sprintf("%s: hooks.%s[%d].hooks[%d]", path, ev, i, j)
				name := ev
				if o := ours[ev]; o != "" {
					name = o
				}
				hk := Hook{Event: name, Matcher: m.Matcher, Type: cmp.Or(h.Type, TypeCommand), Command: h.Command, Async: h.Async,
					URL: h.URL, Headers: h.Headers, AllowedEnvVars: h.AllowedEnvVars, Prompt: h.Prompt, Model: h.Model,
					OnError: cmp.Or(h.OnError, h.OnFailure), Source: path}
				t := DefaultTimeout
				switch hk.Type {
				case TypeCommand:
					if h.Command == "" {
						return nil, nil, fmt.Errorf("%s: a command hook without a command", where)
					}
				case TypeHTTP:
					if u, err := url.Parse(h.URL); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
						return nil, nil, fmt.Errorf("%s: an http hook needs an http(s) url, not %q", where, h.URL)
					}
				case TypePrompt, TypeAgent:
					if h.Prompt == "" {
						return nil, nil, fmt.Errorf("%s: a %s hook without a prompt", where, hk.Type)
					}
					if !decisive[name] {
						// as Claude Code: these events take command hooks
						warnings = append(warnings, fmt.Sprintf("%s: a %s hook on %s is left out: that event takes command and http hooks", where, hk.Type, ev))
						continue
					}
					t = PromptTimeout
					if hk.Type == TypeAgent {
						t = AgentTimeout
					}
				default: // mcp_tool and what comes later
					warnings = append(warnings, fmt.Sprintf("%s: a hook of type %q is left out: agentutils runs command, http, prompt and agent hooks", where, hk.Type))
					continue
				}
				if h.Async && hk.Type != TypeCommand {
					return nil, nil, fmt.Errorf("%s: only command hooks may be async", where)
				}
				if h.Timeout > 0 {
					t = time.Duration(h.Timeout * float64(time.Second))
				}
				hk.Timeout = t
				out = append(out, hk)
			}
		}
	}
	return out, warnings, nil
}

// SettingsFiles are the settings files that exist among Claude Code's and
// ours, in the order their hooks run: the user's (~/.claude/settings.json,
// then CONFIGDIR/settings.json), then, when project is not "", the
// project's (.claude/settings.json, .claude/settings.local.json,
// .agentutils/settings.json).
func SettingsFiles(home, configDir, project string) []string {
	var cands []string
	if home != "" {
		cands = append(cands, filepath.Join(home, ".claude", "settings.json"))
	}
	if configDir != "" {
		cands = append(cands, filepath.Join(configDir, "settings.json"))
	}
	if project != "" {
		cands = append(cands, filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"),
			filepath.Join(project, ".agentutils", "settings.json"))
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// Load reads the hooks of the --settings files and --hooks-dir directories,
// in that order. A settings file that cannot be read or parsed and a
// directory that does not exist are errors; a non-executable file in a
// directory is a warning.
func Load(settings, dirs []string) (hs []Hook, warnings []string, err error) {
	for _, f := range settings {
		h, w, err := LoadSettings(f)
		if err != nil {
			return nil, nil, fmt.Errorf("--settings: %v", err)
		}
		hs, warnings = append(hs, h...), append(warnings, w...)
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, nil, fmt.Errorf("--hooks-dir %s: not a directory", d)
		}
		h, w := LoadDir(d)
		hs, warnings = append(hs, h...), append(warnings, w...)
	}
	return hs, warnings, nil
}

// LoadDir reads DIR/pre/<tool>[.ext] (PreToolUse) and DIR/post/<tool>[.ext]
// (ToolResult) executables (sorted by name; <tool> may be *).
// Non-executable files are returned as warnings.
func LoadDir(dir string) (hs []Hook, warnings []string) {
	for _, sub := range []struct{ dir, event string }{{"pre", PreToolUse}, {"post", ToolResult}} {
		ents, _ := os.ReadDir(filepath.Join(dir, sub.dir))
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, e := range ents {
			p := filepath.Join(dir, sub.dir, e.Name())
			st, err := os.Stat(p)
			if err != nil || st.IsDir() {
				continue
			}
			if st.Mode()&0o111 == 0 {
				warnings = append(warnings, p+": not executable, skipped")
				continue
			}
			tool := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
			if tool == "*" {
				tool = ""
			}
			hs = append(hs, Hook{Event: sub.event, Matcher: regexp.QuoteMeta(tool), Type: TypeCommand, Path: p, Timeout: DefaultTimeout, Source: filepath.Join(dir, sub.dir)})
		}
	}
	return hs, warnings
}

// Has says whether any hook is for one of events.
func Has(hs []Hook, events ...string) bool {
	for _, h := range hs {
		for _, e := range events {
			if h.Event == e {
				return true
			}
		}
	}
	return false
}

// HeaderVars are the variables the http hooks of hs may put in their
// headers (allowedEnvVars): a process that runs them must have them,
// though it hides secret-looking names from what it runs itself.
func HeaderVars(hs []Hook) []string {
	var out []string
	for _, h := range hs {
		for _, v := range h.AllowedEnvVars {
			if h.Type == TypeHTTP && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// Package hooks runs tool hooks: executables that get one JSON object on
// stdin and answer with an exit code (0 allow, 2 block with stderr as the
// reason) and optional JSON on stdout — Claude Code's contract, so its hook
// scripts work unchanged. Hooks come from Claude-style settings files
// (hooks.PreToolUse / hooks.PostToolUse with a matcher) and from directories
// (DIR/pre/<tool>, DIR/post/<tool>, <tool> may be *).
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// DefaultTimeout is a hook's time limit when its settings name none.
const DefaultTimeout = 60 * time.Second

// Hook is one command for one event.
type Hook struct {
	Event   string // "tool_call" or "tool_result"
	Matcher string // "" or "*" = all; else a regexp matching the whole tool name
	Command string // run with sh -c (settings) ...
	Path    string // ... or exec'd directly (directories)
	Timeout time.Duration
	OnError string // "block" (default for tool_call) or "allow"
}

// Name is how the hook is named in messages.
func (h Hook) Name() string {
	if h.Path != "" {
		return h.Path
	}
	return h.Command
}

// Matches says whether the hook applies to tool.
func (h Hook) Matches(tool string) bool {
	if h.Matcher == "" || h.Matcher == "*" {
		return true
	}
	re, err := regexp.Compile("^(?:" + h.Matcher + ")$")
	if err != nil {
		return h.Matcher == tool
	}
	if re.MatchString(tool) {
		return true
	}
	t, _ := tooldef.Lookup(tool) // Claude Code's names of the tool match too
	for _, n := range t.Aliases {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

var aliases = map[string]string{"PreToolUse": "tool_call", "PostToolUse": "tool_result", "tool_call": "tool_call", "tool_result": "tool_result",
	"UserPromptSubmit": "UserPromptSubmit", "Stop": "Stop", "SessionStart": "SessionStart", "SessionEnd": "SessionEnd"}

// Events beyond the tool calls, with Claude Code's names; agent-chat fires them.
const (
	PromptSubmit = "UserPromptSubmit" // exit 2 or {"decision":"block"} refuses the prompt
	Stop         = "Stop"             // exit 2 or a block keeps the agent going, with the reason as a prompt
	SessionStart = "SessionStart"     // additional context joins the system prompt
	SessionEnd   = "SessionEnd"
)

// blocking are the events where exit 2 blocks rather than warns.
var blocking = map[string]bool{"tool_call": true, PromptSubmit: true, Stop: true}

// LoadSettings reads the hooks of a Claude-style settings file:
// {"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"…","timeout":60}]}]}}.
// The tool events and UserPromptSubmit, Stop, SessionStart and SessionEnd are
// read; other events are ignored.
func LoadSettings(path string) ([]Hook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type    string
				Command string
				Timeout float64
				OnError string `json:"on_error"`
			}
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []Hook
	for _, ev := range []string{"PreToolUse", "tool_call", "PostToolUse", "tool_result", PromptSubmit, Stop, SessionStart, SessionEnd} {
		for _, m := range s.Hooks[ev] {
			for _, h := range m.Hooks {
				if h.Type != "" && h.Type != "command" || h.Command == "" {
					continue
				}
				t := DefaultTimeout
				if h.Timeout > 0 {
					t = time.Duration(h.Timeout * float64(time.Second))
				}
				out = append(out, Hook{Event: aliases[ev], Matcher: m.Matcher, Command: h.Command, Timeout: t, OnError: h.OnError})
			}
		}
	}
	return out, nil
}

// Load reads the hooks of the --settings files and --hooks-dir directories,
// in that order. A settings file that cannot be read or parsed and a
// directory that does not exist are errors; a non-executable file in a
// directory is a warning.
func Load(settings, dirs []string) (hs []Hook, warnings []string, err error) {
	for _, f := range settings {
		h, err := LoadSettings(f)
		if err != nil {
			return nil, nil, fmt.Errorf("--settings: %v", err)
		}
		hs = append(hs, h...)
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

// LoadDir reads DIR/pre/<tool>[.ext] and DIR/post/<tool>[.ext] executables
// (sorted by name; <tool> may be *). Non-executable files are returned as
// warnings.
func LoadDir(dir string) (hs []Hook, warnings []string) {
	for _, sub := range []struct{ dir, event string }{{"pre", "tool_call"}, {"post", "tool_result"}} {
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
			hs = append(hs, Hook{Event: sub.event, Matcher: regexp.QuoteMeta(tool), Path: p, Timeout: DefaultTimeout})
		}
	}
	return hs, warnings
}

// Input is what a hook reads on stdin.
type Input struct {
	Event         string          `json:"event"`
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolCallID    string          `json:"tool_call_id"`
	ToolUseID     string          `json:"tool_use_id"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Content       json.RawMessage `json:"content,omitempty"`
	Details       json.RawMessage `json:"details,omitempty"`
	IsError       *bool           `json:"is_error,omitempty"`
	ToolResponse  json.RawMessage `json:"tool_response,omitempty"`
	// UserPromptSubmit, Stop, SessionStart/End
	Prompt         string `json:"prompt,omitempty"`
	StopHookActive bool   `json:"stop_hook_active,omitempty"`
	Source         string `json:"source,omitempty"`
	Reason         string `json:"reason,omitempty"`
}

// Verdict is the merged answer of the hooks of one event.
type Verdict struct {
	Block             bool
	Reason            string
	UpdatedInput      json.RawMessage // tool_call: replacement arguments
	AdditionalContext []string
	Content           json.RawMessage // tool_result: replacement content
	IsError           *bool
}

// Run runs the hooks matching in.Event and in.ToolName in order: for
// tool_call it stops at the first block and chains updated_input.
// Failures of tool_call hooks block unless on_error is "allow"; other
// failures are warnings.
func Run(ctx context.Context, hs []Hook, in Input, env []string, warn func(string)) Verdict {
	var v Verdict
	in.HookEventName = map[string]string{"tool_call": "PreToolUse", "tool_result": "PostToolUse"}[in.Event]
	if in.HookEventName == "" {
		in.HookEventName = in.Event
	}
	in.ToolUseID = in.ToolCallID
	for _, h := range hs {
		if h.Event != in.Event || !h.Matches(in.ToolName) {
			continue
		}
		if v.UpdatedInput != nil {
			in.ToolInput = v.UpdatedInput
		}
		payload, _ := json.Marshal(in)
		code, stdout, stderr, err := run(ctx, h, payload, append(env, "AGENT_HOOK_EVENT="+in.Event, "AGENT_TOOL_NAME="+in.ToolName))
		reason := strings.TrimSpace(stderr)
		if len(reason) > 4096 {
			reason = reason[:4096]
		}
		switch {
		case err == nil && code == 0:
			applyJSON(&v, stdout)
		case err == nil && code == 2:
			if blocking[in.Event] {
				v.Block, v.Reason = true, reason
			} else {
				warn(fmt.Sprintf("hook %s: %s", h.Name(), reason))
			}
		default:
			why := fmt.Sprintf("hook %s failed (exit %d): %s", h.Name(), code, reason)
			if err != nil {
				why = fmt.Sprintf("hook %s failed: %v", h.Name(), err)
			}
			if in.Event == "tool_call" && h.OnError != "allow" {
				v.Block, v.Reason = true, why
			} else {
				warn(why)
			}
		}
		if v.Block {
			return v
		}
	}
	return v
}

func applyJSON(v *Verdict, stdout string) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return
	}
	var j struct {
		Decision           string          `json:"decision"`
		Reason             string          `json:"reason"`
		UpdatedInput       json.RawMessage `json:"updated_input"`
		UpdatedInputC      json.RawMessage `json:"updatedInput"`
		AdditionalContext  string          `json:"additional_context"`
		Content            json.RawMessage `json:"content"`
		IsError            *bool           `json:"is_error"`
		HookSpecificOutput struct {
			PermissionDecision       string          `json:"permissionDecision"`
			PermissionDecisionReason string          `json:"permissionDecisionReason"`
			UpdatedInput             json.RawMessage `json:"updatedInput"`
			AdditionalContext        string          `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal([]byte(s), &j) != nil {
		return
	}
	hso := j.HookSpecificOutput
	decision, reason := j.Decision, j.Reason
	if hso.PermissionDecision != "" {
		decision, reason = hso.PermissionDecision, hso.PermissionDecisionReason
	}
	switch decision {
	// ask needs a human; hooks here have none, so it counts as deny.
	case "block", "deny", "ask":
		v.Block, v.Reason = true, reason
		if v.Reason == "" {
			v.Reason = "blocked by hook"
		}
	}
	for _, u := range []json.RawMessage{j.UpdatedInput, j.UpdatedInputC, hso.UpdatedInput} {
		if len(u) > 0 && string(u) != "null" {
			v.UpdatedInput = u
		}
	}
	for _, c := range []string{j.AdditionalContext, hso.AdditionalContext} {
		if c != "" {
			v.AdditionalContext = append(v.AdditionalContext, c)
		}
	}
	if len(j.Content) > 0 && string(j.Content) != "null" {
		v.Content = j.Content
	}
	if j.IsError != nil {
		v.IsError = j.IsError
	}
}

// run runs one hook in its own process group; on timeout the group gets
// SIGKILL.
func run(ctx context.Context, h Hook, payload []byte, env []string) (code int, stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	var cmd *exec.Cmd
	if h.Path != "" {
		cmd = exec.Command(h.Path)
	} else {
		cmd = exec.Command("sh", "-c", h.Command)
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return -1, "", "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return -1, out.String(), errb.String(), fmt.Errorf("timed out after %s", h.Timeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.Exited() {
			return ee.ExitCode(), out.String(), errb.String(), nil
		}
		return -1, out.String(), errb.String(), fmt.Errorf("%v", ee)
	}
	return 0, out.String(), errb.String(), err
}

// After runs the tool_result hooks on a call's result r (in describes the
// call, in.ToolInput the arguments it ran with) and applies their verdict
// to r: replaced content, a flipped error status, added context. Content
// that is not a list of content blocks is ignored with a warning.
func After(ctx context.Context, hs []Hook, in Input, r *event.Result, env []string, warn func(string)) {
	details := r.Details
	if len(details) == 0 {
		details = json.RawMessage("null")
	}
	isErr := r.IsError
	in.Event = "tool_result"
	in.Content, _ = json.Marshal(r.Content)
	in.Details, in.IsError = r.Details, &isErr
	in.ToolResponse, _ = json.Marshal(map[string]any{"content": r.Content, "details": details, "isError": r.IsError})
	v := Run(ctx, hs, in, env, warn)
	if v.Content != nil {
		var cs []event.Content
		if err := json.Unmarshal(v.Content, &cs); err == nil {
			r.Content = cs
		} else {
			warn(fmt.Sprintf("PostToolUse content of %s ignored: %v", in.ToolName, err))
		}
	}
	if v.IsError != nil {
		r.IsError = *v.IsError
	}
	for _, extra := range v.AdditionalContext {
		r.Content = append(r.Content, event.Text(extra))
	}
}

package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/mcptool"
)

// Input is what a hook reads on stdin: Claude Code's fields for the event
// (session_id, transcript_path, cwd, permission_mode, hook_event_name and
// the event's own). Callers give the tool and its arguments by our names;
// the hook sees Claude Code's (tool_name "Bash", tool_input.file_path),
// with ours beside them (agent_tool_name, tool_input.path).
type Input struct {
	Event          string          `json:"event"` // our name: tool_call, tool_result, else hook_event_name
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path,omitempty"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode,omitempty"`
	ToolName       string          `json:"tool_name,omitempty"`
	AgentToolName  string          `json:"agent_tool_name,omitempty"`
	ToolCallID     string          `json:"tool_call_id,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	Content        json.RawMessage `json:"content,omitempty"`
	Details        json.RawMessage `json:"details,omitempty"`
	IsError        *bool           `json:"is_error,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	Error          string          `json:"error,omitempty"` // PostToolUseFailure
	IsInterrupt    *bool           `json:"is_interrupt,omitempty"`
	// UserPromptSubmit, Stop, SubagentStop
	Prompt               string `json:"prompt,omitempty"`
	StopHookActive       *bool  `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// SessionStart (source, model), SessionEnd (reason)
	Source string `json:"source,omitempty"`
	Model  string `json:"model,omitempty"`
	Reason string `json:"reason,omitempty"`
	// PreCompact
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	// Notification
	Message          string `json:"message,omitempty"`
	Title            string `json:"title,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// SubagentStart, SubagentStop
	AgentID             string `json:"agent_id,omitempty"`
	AgentType           string `json:"agent_type,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`
	// EnvFile is SessionStart's CLAUDE_ENV_FILE (NewEnvFile), not sent.
	EnvFile string `json:"-"`
}

// Tool is the tool's name as ours: a hook's input read back (the approval
// socket's) names Claude Code's in tool_name.
func (in Input) Tool() string {
	if in.AgentToolName != "" {
		return in.AgentToolName
	}
	return in.ToolName
}

// matchOn is what the event's matchers match: the tool, SessionStart's
// source, SessionEnd's reason, PreCompact's trigger, Notification's type,
// the sub-agent's type; false for the events that ignore matchers.
func (in Input) matchOn() (string, bool) {
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return in.ToolName, true
	case SessionStart:
		return in.Source, true
	case SessionEnd:
		return in.Reason, true
	case PreCompact:
		return in.Trigger, true
	case Notification:
		return in.NotificationType, true
	case SubagentStart, SubagentStop:
		return in.AgentType, true
	}
	return "", false
}

// applies says whether h is for in.
func (h Hook) applies(in Input) bool {
	if h.Event != in.Event && !(h.Event == ToolResult && (in.Event == PostToolUse || in.Event == PostToolUseFailure)) {
		return false
	}
	on, ok := in.matchOn()
	return !ok || h.Matches(on)
}

// On exit 2: blocking events block (deny, refuse, go on) with stderr as
// the reason; the post-tool events hand stderr to the model; the others
// show it to the user.
var blocking = map[string]bool{PreToolUse: true, PermissionRequest: true, PromptSubmit: true, Stop: true, SubagentStop: true,
	PostToolUse: true, PostToolUseFailure: true}

// plainContext are the events whose plain stdout is context, as Claude
// Code adds it.
var plainContext = map[string]bool{PromptSubmit: true, SessionStart: true}

// Verdict is the merged answer of the hooks of one event.
type Verdict struct {
	Block  bool // blocked, denied, refused; Stop/SubagentStop: go on
	Reason string
	// Allow: a PreToolUse or PermissionRequest hook approved the call, so
	// no one need be asked; Ask: a PreToolUse hook wants a person asked.
	Allow, Ask        bool
	UpdatedInput      json.RawMessage // replacement arguments, by our names
	AdditionalContext []string
	Content           json.RawMessage // tool_result: replacement content
	IsError           *bool
	// Stop: a hook answered "continue": false; the run ends with
	// StopReason.
	Stop       bool
	StopReason string
}

// result is what one hook did: a process's exit code, stdout and stderr,
// or an HTTP or model answer read as those.
type result struct {
	code           int
	stdout, stderr string
	err            error
	// plain: stdout that is not JSON is context whatever the event (an
	// HTTP hook's text body).
	plain bool
	// soft: a failure that never blocks (an HTTP hook's, as Claude Code).
	soft bool
}

// NoticeType is the customType of the notice (formats/tool-protocol)
// with what an async hook tells the model at its next turn.
const NoticeType = "hook_output"

// Opts are what the hooks of an event run with beside their input.
type Opts struct {
	Env  []string     // added to the environment of command hooks
	Warn func(string) // what the user is told (nil: dropped)
	// Async gets, once an async command hook has run, what it has for the
	// model (its systemMessage and additionalContext), for the model's
	// next turn; nil: async hooks' answers are dropped (warned).
	Async func(text string)
	// Ask answers a prompt hook: one model call with the question, model
	// "" the caller's. Agent runs an agent hook: a sub-agent with the read
	// tools and the question, its final answer returned. nil: those hooks
	// are skipped with a warning (no model here).
	Ask, Agent func(ctx context.Context, model, prompt string) (string, error)
	// Pending counts the async hooks still running (nil: not counted): a
	// process waits for them before it ends, so their answers are told.
	Pending *sync.WaitGroup
}

// Run runs the hooks for in.Event that match it (RunOpts with env and
// warn only).
func Run(ctx context.Context, hs []Hook, in Input, env []string, warn func(string)) Verdict {
	return RunOpts(ctx, hs, in, Opts{Env: env, Warn: warn})
}

// RunOpts runs the hooks for in.Event that match it. The hooks of one
// source (a settings file, a directory) run in parallel, an identical
// one once, as Claude Code runs them; sources run one after the other,
// and a block, a stop or a PermissionRequest decision ends the event
// before the next one (updated input is what the next source sees).
// Async command hooks are started and not waited for. Failures of
// PreToolUse hooks block unless on_error is "allow"; other failures, and
// exit 2 of events that cannot block, are warnings, as are
// systemMessages.
func RunOpts(ctx context.Context, hs []Hook, in Input, o Opts) Verdict {
	var v Verdict
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	in.HookEventName = in.Event
	in.ToolUseID = in.ToolCallID
	ours := in.ToolInput
	seen := map[string]bool{}
	for _, group := range groups(hs, in) {
		var todo []Hook
		for _, h := range group {
			if h.Async {
				payload, _ := in.payload(ours)
				startAsync(ctx, h, payload, in.Cwd, hookEnv(in, o.Env), o, warn)
				continue
			}
			if k := h.key(); !seen[k] {
				seen[k] = true
				todo = append(todo, h)
			}
		}
		payload, sent := in.payload(ours)
		env := hookEnv(in, o.Env)
		results := make([]result, len(todo))
		var wg sync.WaitGroup
		for i, h := range todo {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = runOne(ctx, h, payload, in.Cwd, env, o)
			}()
		}
		wg.Wait()
		for i, h := range todo {
			v.apply(h, in, results[i], sent, warn)
		}
		if v.Block || v.Stop || v.Allow && in.Event == PermissionRequest {
			return v
		}
		if v.UpdatedInput != nil {
			ours = v.UpdatedInput
		}
	}
	return v
}

// hookEnv is what a command hook's environment has beside ours.
func hookEnv(in Input, env []string) []string {
	out := append(append([]string{}, env...), "AGENT_HOOK_EVENT="+ourName(in.Event), "AGENT_TOOL_NAME="+in.ToolName)
	if in.EnvFile != "" {
		out = append(out, "CLAUDE_ENV_FILE="+in.EnvFile)
	}
	if in.Cwd != "" && os.Getenv("CLAUDE_PROJECT_DIR") == "" && !hasVar(env, "CLAUDE_PROJECT_DIR") {
		out = append(out, "CLAUDE_PROJECT_DIR="+in.Cwd)
	}
	return out
}

// runOne runs one hook of any type; what it says is read as a command's
// exit code, stdout and stderr.
func runOne(ctx context.Context, h Hook, payload []byte, dir string, env []string, o Opts) result {
	var r result
	switch h.Type {
	case TypeHTTP:
		r = post(ctx, h, payload, env)
	case TypePrompt, TypeAgent:
		r = askModel(ctx, h, payload, o)
	default:
		r.code, r.stdout, r.stderr, r.err = run(ctx, h, payload, dir, env)
	}
	return r
}

// groups are the hooks for in, by source, in order.
func groups(hs []Hook, in Input) [][]Hook {
	var out [][]Hook
	at := map[string]int{}
	for _, h := range hs {
		if !h.applies(in) {
			continue
		}
		i, ok := at[h.Source]
		if !ok || h.Source == "" {
			i = len(out)
			at[h.Source] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], h)
	}
	return out
}

func hasVar(env []string, name string) bool {
	for _, e := range env {
		if strings.HasPrefix(e, name+"=") {
			return true
		}
	}
	return false
}

// ourName is the event's name in AGENT_HOOK_EVENT and "event".
func ourName(ev string) string {
	switch ev {
	case PreToolUse:
		return "tool_call"
	case PostToolUse, PostToolUseFailure:
		return "tool_result"
	}
	return ev
}

// payload is the JSON a hook reads, with the tool and its arguments
// ours (tool input by our names) by Claude Code's names too; sent is the
// tool input as sent.
func (in Input) payload(ours json.RawMessage) (b []byte, sent json.RawMessage) {
	in.Event = ourName(in.Event)
	if in.ToolName != "" {
		if c := claudeName(in.ToolName); c != in.ToolName {
			in.AgentToolName, in.ToolName = in.ToolName, c
		}
		in.ToolInput = claudeInput(in.Tool(), ours, in.Cwd)
	}
	b, _ = json.Marshal(in)
	return b, in.ToolInput
}

// apply merges one hook's answer into v.
func (v *Verdict) apply(h Hook, in Input, r result, sent json.RawMessage, warn func(string)) {
	reason := strings.TrimSpace(r.stderr)
	if len(reason) > 4096 {
		reason = reason[:4096]
	}
	switch {
	case r.err == nil && r.code == 0:
		isJSON, msg := v.applyJSON(in, r.stdout, sent)
		if s := strings.TrimSpace(r.stdout); !isJSON && (plainContext[in.Event] || r.plain) && s != "" {
			v.AdditionalContext = append(v.AdditionalContext, s)
		}
		if msg != "" {
			warn(fmt.Sprintf("hook %s: %s", h.Name(), msg))
		}
	case r.err == nil && r.code == 2:
		if blocking[in.Event] {
			if !v.Block {
				v.Block, v.Reason = true, reason
			}
		} else {
			warn(fmt.Sprintf("hook %s: %s", h.Name(), reason))
		}
	default:
		why := fmt.Sprintf("hook %s failed (exit %d): %s", h.Name(), r.code, reason)
		if r.err != nil {
			why = fmt.Sprintf("hook %s failed: %v", h.Name(), r.err)
		}
		if in.Event == PreToolUse && (h.OnError == "block" || h.OnError == "" && !r.soft) {
			if !v.Block {
				v.Block, v.Reason = true, why
			}
		} else {
			warn(why)
		}
	}
}

// verdictJSON is a hook's JSON answer: Claude Code's fields (continue,
// stopReason, systemMessage, decision, reason, hookSpecificOutput) and
// ours (updated_input, additional_context, content, is_error).
type verdictJSON struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	SystemMessage      string          `json:"systemMessage"`
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
		Decision                 struct {        // PermissionRequest
			Behavior     string          `json:"behavior"`
			Message      string          `json:"message"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
			Interrupt    bool            `json:"interrupt"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// applyJSON merges a JSON answer on stdout into v; isJSON is false when
// stdout is not a JSON object; msg is its systemMessage, for the user.
func (v *Verdict) applyJSON(in Input, stdout string, sent json.RawMessage) (isJSON bool, msg string) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return false, ""
	}
	var j verdictJSON
	if json.Unmarshal([]byte(s), &j) != nil {
		return false, ""
	}
	hso := j.HookSpecificOutput
	if j.Continue != nil && !*j.Continue && !v.Stop {
		v.Stop, v.StopReason = true, j.StopReason
	}
	decision, reason := j.Decision, j.Reason
	if hso.PermissionDecision != "" {
		decision, reason = hso.PermissionDecision, hso.PermissionDecisionReason
	}
	if b := hso.Decision.Behavior; b != "" {
		decision, reason = b, hso.Decision.Message
		if b == "deny" && hso.Decision.Interrupt && !v.Stop {
			v.Stop, v.StopReason = true, reason
		}
	}
	switch decision {
	case "block", "deny":
		if !v.Block {
			v.Block, v.Reason = true, reason
			if v.Reason == "" {
				v.Reason = "blocked by hook"
			}
		}
	case "ask":
		v.Ask = true
		if v.Reason == "" {
			v.Reason = reason
		}
	case "allow", "approve":
		v.Allow = true
	}
	for _, u := range []json.RawMessage{j.UpdatedInput, j.UpdatedInputC, hso.UpdatedInput, hso.Decision.UpdatedInput} {
		if len(u) > 0 && string(u) != "null" {
			v.UpdatedInput = ourInput(in.ToolName, sent, u)
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
	return true, j.SystemMessage
}

// run runs one hook in its own process group, in dir when it is one; on
// timeout the group gets SIGKILL.
func run(ctx context.Context, h Hook, payload []byte, dir string, env []string) (code int, stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	var cmd *exec.Cmd
	if h.Path != "" {
		cmd = exec.Command(h.Path)
	} else {
		cmd = exec.Command("sh", "-c", h.Command)
	}
	if st, err := os.Stat(dir); dir != "" && err == nil && st.IsDir() {
		cmd.Dir = dir
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

// After runs the post-tool hooks on a call's result r (in describes the
// call, in.ToolInput the arguments it ran with): PostToolUse when it
// succeeded, PostToolUseFailure when it failed, and the post/ directories'
// either way. Their verdict applies to r: replaced content, a flipped
// error status, added context, a block's reason (which the model reads).
// Content that is not a list of content blocks is ignored with a warning.
func After(ctx context.Context, hs []Hook, in Input, r *event.Result, o Opts) {
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	details := r.Details
	if len(details) == 0 {
		details = json.RawMessage("null")
	}
	isErr := r.IsError
	in.Event = PostToolUse
	if isErr {
		in.Event = PostToolUseFailure
		in.Error = mcptool.JoinText(r.Content)
		no := false
		in.IsInterrupt = &no
	}
	in.Content, _ = json.Marshal(r.Content)
	in.Details, in.IsError = r.Details, &isErr
	in.ToolResponse = toolResponse(in, r, details)
	v := RunOpts(ctx, hs, in, o)
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
	if v.Block && v.Reason != "" {
		r.Content = append(r.Content, event.Text(v.Reason))
	}
	for _, extra := range v.AdditionalContext {
		r.Content = append(r.Content, event.Text(extra))
	}
}

package tui

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/permission"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// Config is what the command line gives the front-end.
type Config struct {
	Stages         *pipeline.Stages
	File           string // the session file
	Dir            string // the working directory
	Getenv         func(string) string
	Color          bool
	Model          string // --model (or AGENT_MODEL)
	Thinking       string // --thinking (or AGENT_THINKING)
	ConfigModel    string // config.toml's model: after the session's
	ConfigThinking string // config.toml's thinking level: after the session's
	Sandbox        string // --sandbox; "" is agent-chat's default
	Catalog        *llm.Catalog
	Templates      []string // prompt templates, run as /NAME
	HistoryFile    string
	NoAhead        bool // --no-ahead: every run's pipeline starts at enter
	// IdleNotify is how long the agent waits for a prompt before the
	// Notification hooks hear idle_prompt (0: never).
	IdleNotify time.Duration
	StatusLine string   // config.toml's statusLine: a command for the line above the footer
	Models     []string // --models, enabledModels: the patterns ctrl+p cycles through
	// Allow are the allow rules (--allowed-tools, permissions.allow): a
	// call they cover runs without asking, as in a pipe.
	Allow   []permission.Rule
	Version string // agentutils' version, for the status line's input
	Now     func() time.Time
	Mode    string // the permission mode to start in (--plan, --permission-mode)
	// SettingsFiles are the settings files whose hooks run (Claude Code's
	// and ours, hooks.SettingsFiles); Hooks are their hooks, the ones agent
	// fires itself: SessionStart, SessionEnd, Notification.
	SettingsFiles []string
	Hooks         []hooks.Hook
	// JSONAnswer: Print writes only the final answer's JSON document to
	// stdout (agent -p --json-schema), the stream to a terminal on stderr.
	JSONAnswer bool
}

// DefaultSandbox is the mode agent-chat's tools run in when no
// --sandbox is given.
const DefaultSandbox = "workspace-write"

// agent is the front-end's state outside the screen: the stages, the
// session file, the model choice, the numbers of the footer.
type agent struct {
	Config
	state    sessionState
	approver *approval.Server // the approvals' and the questions' socket
	asks     bool             // approvals: ask before edits and bash
	mode     string           // the permission mode chosen ("": none, agent-chat's configuration decides)
	// sessionMode is the session's (its last mode_change), which
	// agent-chat applies without a flag.
	sessionMode string
	lastText    string       // the session's last assistant text (for /copy)
	place       string       // the working directory and its git branch (footer)
	jobs        *sessionJobs // the session's background jobs (interactive only)
	// sessionContext is what the SessionStart hooks added, for the system
	// prompt of the session's runs.
	sessionContext string
	// baseEnv is the stages' environment before the SessionStart hooks'
	// CLAUDE_ENV_FILE variables (nil until they first run).
	baseEnv []string
}

// sessionState is what the footer shows, folded from the session and the
// events of runs.
type sessionState struct {
	in, out  int
	cost     float64
	ctx      int // the last answer's context tokens
	modelRef string
	thinking string
	id       string // the session's id
	messages int    // the messages on its path
	title    string // the session's name (agent-session name, /name)
}

func (a *agent) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.Dir, p)
}

// home is $HOME ("" when the environment is not given).
func (a *agent) home() string {
	if a.Getenv == nil {
		return ""
	}
	return a.Getenv("HOME")
}

// sandbox is the mode the next runs' tools use.
func (a *agent) sandbox() string {
	if a.Sandbox == "" {
		return DefaultSandbox
	}
	return a.Sandbox
}

// chatExtra are the agent-chat flags of the front-end itself: with
// approvals, the built-in tools run with the approval hook (and the
// sandbox mode chosen, which agent-chat passes to its default tools).
func (a *agent) chatExtra() []string {
	out := append(a.modeArgs(), a.hookArgs()...)
	if a.approver != nil {
		out = append(out, "--ask-cmd", a.approver.AskCmd) // the tools' questions come to the screen
	}
	switch {
	case len(a.Stages.Tools) > 0:
		return out
	case a.asks:
		cmd := "agent-tool serve"
		for _, f := range append(append([]string(nil), a.SettingsFiles...), a.approver.Settings) { // the approval last: asked only when no hook decided
			cmd += " --settings " + approval.ShellQuote(f)
		}
		if a.Sandbox != "" {
			cmd += " --sandbox " + approval.ShellQuote(a.Sandbox)
		}
		return append(out, "--tools-cmd", cmd, "--person-approves")
	case a.mode != "":
		return append(out, "--person-approves") // --yes: only deny rules and plan mode refuse
	}
	return out
}

// runOpts are the choices of a run for prompt. The model is the one the
// footer shows: the flag's, else the session's (or the one found at
// start), so that a new session, which names none, keeps it.
func (a *agent) runOpts(prompt string) pipeline.Opts {
	model := a.Model
	if model == "" {
		model = a.state.modelRef
	}
	return pipeline.Opts{Prompt: prompt, Model: model, Thinking: a.Thinking, Sandbox: a.Sandbox, Extra: a.chatExtra()}
}

// keyless reports whether agent-chat gets its answers without a key
// (--replay, --api-key among the passed flags).
func (a *agent) keyless() bool {
	for _, f := range a.Stages.ChatArgs {
		if strings.HasPrefix(f, "--replay") || strings.HasPrefix(f, "--api-key") {
			return true
		}
	}
	return false
}

// currentModel is the catalog entry of the footer's model.
func (a *agent) currentModel() *llm.Model {
	if a.Catalog == nil || a.state.modelRef == "" {
		return nil
	}
	m, _, err := a.Catalog.Resolve(a.state.modelRef)
	if err != nil {
		return nil
	}
	return &m
}

// CheckModel resolves the model a run will use as agent-chat does (the
// flag, else the session's, else config.toml's, else the catalog default
// with a key) and reports an unknown model or a missing key.
func (a *agent) checkModel() error {
	if a.Catalog == nil {
		return nil
	}
	pattern := a.Model
	if pattern == "" {
		pattern = a.state.modelRef
	}
	if pattern == "" {
		pattern = a.ConfigModel
	}
	if pattern == "" {
		m, ok := a.Catalog.Default(func(m llm.Model) bool {
			k, err := a.Catalog.ResolveKey(m, "", a.Getenv)
			return err == nil && k.Given()
		})
		if !ok {
			if a.keyless() {
				return nil
			}
			return errors.New("no model: pass --model provider/id or set a provider key such as ANTHROPIC_API_KEY")
		}
		a.state.modelRef = m.Ref()
		return nil
	}
	m, level, err := a.Catalog.Resolve(pattern)
	if err != nil {
		return err
	}
	a.state.modelRef = m.Ref()
	if a.Thinking == "" && level != "" {
		a.Thinking = level
	}
	if a.keyless() {
		return nil
	}
	_, err = a.Catalog.ResolveKey(m, "", a.Getenv)
	return err
}

// loadState reads the session's active path: the footer's numbers, the
// model and thinking level, the leaf, and a recap of the last exchanges
// (drawn width columns wide).
func (a *agent) loadState(ctx context.Context, width int) string {
	a.state = sessionState{modelRef: a.state.modelRef}
	a.place = place(a.Dir, a.home())
	h, recs, err := a.Stages.Open(ctx, a.File, false)
	if err != nil {
		return red.Render(err.Error())
	}
	a.state.title, a.state.id = h.Title, h.ID
	// The footer's totals are the whole path's: a stream cut at the newest
	// compaction (formats/session) leaves the turns before it out.
	paid := recs
	if h.Omitted > 0 {
		if _, full, err := a.Stages.Open(ctx, a.File, true); err == nil {
			paid = full
		}
	}
	t := session.Totals(paid)
	a.state.in, a.state.out, a.state.cost = int(t.Input), int(t.Output), t.Cost
	var msgs []llm.Message
	sctx, err := session.BuildContext(session.Rechain(recs, h.Carried), nil) // a cut stream's carried state first
	if err == nil {
		if m := sctx.Models["default"]; m != "" {
			a.state.modelRef = m
		}
		a.sessionMode = ""
		if slices.Contains(permission.Modes, sctx.Mode) { // the mode it was left in
			a.mode, a.sessionMode = sctx.Mode, sctx.Mode
		}
		if session.SetsThinkingLevel(recs) { // else config.toml's (footer)
			a.state.thinking = sctx.ThinkingLevel
		}
		for _, raw := range sctx.Messages {
			var m llm.Message
			if json.Unmarshal(raw, &m) == nil {
				msgs = append(msgs, m)
			}
		}
	}
	a.lastText, a.state.messages = "", len(msgs)
	for _, m := range msgs {
		if m.Role == "assistant" && m.Usage != nil {
			a.state.ctx = m.Usage.ContextTokens()
		}
		if m.Role == "assistant" {
			if t := m.Text(); t != "" {
				a.lastText = t
			}
		}
	}
	return recap(msgs, 3, width, a.Color)
}

// account folds a run's event into the footer's numbers.
func (a *agent) account(ev event.Event) {
	if ev.Type == event.ToolExecutionEnd && tooldef.IsTask(ev.ToolName) && ev.Result != nil {
		// a sub-agent's spend, as the session's totals count it
		if d, ok := render.ParseTask(ev.Result.Details); ok {
			a.state.in += d.Usage.Input
			a.state.out += d.Usage.Output
			a.state.cost += d.Usage.Cost.Total
		}
		return
	}
	if ev.Type != event.MessageEnd {
		return
	}
	var m llm.Message
	if json.Unmarshal(ev.Message, &m) != nil || m.Role != "assistant" {
		return
	}
	if t := m.Text(); t != "" {
		a.lastText = t
	}
	if m.Usage != nil {
		a.state.in += m.Usage.Input
		a.state.out += m.Usage.Output
		a.state.cost += m.Usage.Cost.Total
		a.state.ctx = m.Usage.ContextTokens()
		if m.Provider != "" && m.Model != "" {
			a.state.modelRef = m.Provider + "/" + m.Model
		}
	}
}

// recap shows the last n exchanges (from the n-th last user prompt on):
// prompts cut to a line, answers to a few lines, tool calls as headers,
// drawn by the renderer the live view uses (markdown and all).
func recap(msgs []llm.Message, n, width int, color bool) string {
	start := len(msgs)
	for start > 0 && n > 0 {
		start--
		if msgs[start].Role == "user" {
			n--
		}
	}
	if start == len(msgs) {
		return ""
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString(dim.Render(fmt.Sprintf("… %d earlier messages", start)) + "\n")
	}
	v := newTranscript(width, color, nil)
	for _, m := range msgs[start:] {
		typ := event.MessageEnd // an assistant message is drawn at its end
		switch m.Role {
		case "user":
			typ = event.MessageStart // a prompt at its start
			m.Content = []llm.Content{{Type: "text", Text: clip(render.FileChips(m.Text()), 200)}}
		case "assistant":
			m.Content = slices.Clone(m.Content)
			for i, c := range m.Content {
				if lines := strings.Split(strings.TrimSpace(c.Text), "\n"); c.Type == "text" && len(lines) > 6 {
					m.Content[i].Text = strings.Join(lines[:6], "\n") + fmt.Sprintf("\n\n*… %d more lines*", len(lines)-6)
				}
			}
		default:
			continue
		}
		b.WriteString(v.event(messageEvent(typ, m)))
	}
	b.WriteString(v.finish())
	return b.String()
}

// messageEvent is a message event of type typ, as agent-chat writes it.
func messageEvent(typ string, m llm.Message) event.Event {
	raw, _ := json.Marshal(struct {
		Type    string      `json:"type"`
		Message llm.Message `json:"message"`
	}{typ, m})
	return event.Event{Type: typ, Raw: raw}
}

// History: one prompt per record in $XDG_DATA_HOME/agentutils/agent_history,
// JSON strings so multi-line prompts stay one entry.
func (a *agent) loadHistory() []string {
	f, err := os.Open(a.HistoryFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil {
			out = append(out, s)
		}
	}
	if len(out) > 1000 {
		out = out[len(out)-1000:]
	}
	return out
}

func (a *agent) saveHistory(s string) {
	if a.HistoryFile == "" {
		return
	}
	os.MkdirAll(filepath.Dir(a.HistoryFile), 0o755)
	f, err := os.OpenFile(a.HistoryFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	b, _ := json.Marshal(s)
	f.Write(append(b, '\n'))
	f.Close()
}

// pathCompletions lists files and directories under the working directory
// that start with prefix (hidden ones only when asked for).
func (a *agent) pathCompletions(prefix string) []string {
	dir, base := filepath.Split(prefix)
	ents, err := os.ReadDir(a.abs(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		out = append(out, dir+n)
	}
	sort.Strings(out)
	return out
}

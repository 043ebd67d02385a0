package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// statusLine is config.toml's statusLine command at work: as Claude
// Code's, it gets the session's state as JSON on stdin whenever that
// changes (one run at a time, at most every statusEvery) and the first
// line it prints is shown above the footer, colours kept.
type statusLine struct {
	line    string // what is shown
	sent    string // the input of the last run started
	running bool
	last    time.Time // when the last run started
}

// statusEvery is the least time between two runs; statusTimeout ends a
// command that hangs (its last line stays).
const (
	statusEvery   = 300 * time.Millisecond
	statusTimeout = 2 * time.Second
)

// statusMsg is a run's result; retry asks for a run once the wait is over.
type statusMsg struct {
	line  string
	ok    bool
	retry bool
}

// statusInput is Claude Code's statusLine input, the parts agent knows.
type statusInput struct {
	HookEventName  string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version string `json:"version,omitempty"`
	Cost    struct {
		TotalCostUSD float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow struct {
		TotalInputTokens  int `json:"total_input_tokens"`
		TotalOutputTokens int `json:"total_output_tokens"`
		ContextWindowSize int `json:"context_window_size,omitempty"`
		CurrentTokens     int `json:"current_tokens"`
	} `json:"context_window"`
	// Not Claude Code's: what agent adds.
	SessionName    string `json:"session_name,omitempty"`
	ThinkingLevel  string `json:"thinking_level,omitempty"`
	Sandbox        string `json:"sandbox"`
	PermissionMode string `json:"permission_mode,omitempty"`
}

func (a *agent) statusInput() []byte {
	var in statusInput
	in.HookEventName = "Status"
	in.TranscriptPath = a.File
	in.SessionID = sessionID(a.File)
	in.Cwd, in.Workspace.CurrentDir, in.Workspace.ProjectDir = a.Dir, a.Dir, a.Dir
	in.Model.ID, in.Model.DisplayName = a.state.modelRef, a.state.modelRef
	if m := a.currentModel(); m != nil {
		in.Model.ID = m.Ref()
		if m.Name != "" {
			in.Model.DisplayName = m.Name
		}
		in.ContextWindow.ContextWindowSize = m.ContextWindow
	}
	in.Version = a.Version
	in.Cost.TotalCostUSD = a.state.cost
	in.ContextWindow.TotalInputTokens, in.ContextWindow.TotalOutputTokens = a.state.in, a.state.out
	in.ContextWindow.CurrentTokens = a.state.ctx
	in.SessionName, in.ThinkingLevel, in.Sandbox = a.state.title, a.state.thinking, a.sandbox()
	b, _ := json.Marshal(in)
	return b
}

// sessionID is the id in a session file's name (…_ID.jsonl), else the name.
func sessionID(file string) string {
	name := file[strings.LastIndex(file, "/")+1:]
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), ".jsonl")
	if i := strings.LastIndex(name, "_"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// statusLine starts the command when its input changed and none runs; a
// change within statusEvery of the last run waits for the rest of it.
func (m *Model) statusLine() tea.Cmd {
	st := &m.status
	if m.a.StatusLine == "" || st.running {
		return nil
	}
	in := m.a.statusInput()
	if string(in) == st.sent {
		return nil
	}
	st.running = true
	if wait := statusEvery - m.now().Sub(st.last); wait > 0 && !st.last.IsZero() {
		return tea.Tick(wait, func(time.Time) tea.Msg { return statusMsg{retry: true} })
	}
	st.sent, st.last = string(in), m.now()
	command, dir := m.a.StatusLine, m.a.Dir
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(in)
		cmd.WaitDelay = statusTimeout
		out, err := cmd.Output()
		line, _, _ := strings.Cut(string(out), "\n")
		return statusMsg{line: strings.TrimRight(line, "\r"), ok: err == nil}
	}
}

// statusDone shows a run's line (a failed run leaves the last one) and
// runs again if the input changed meanwhile.
func (m *Model) statusDone(msg statusMsg) tea.Cmd {
	m.status.running = false
	if msg.retry {
		m.status.last = time.Time{}
	} else if msg.ok {
		m.status.line = msg.line
	}
	return m.statusLine()
}

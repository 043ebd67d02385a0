package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/render/show"
)

// TaskDetails are a task call's details: its result's (formats/session,
// "Sub-agents") and, while it runs, its updates' (formats/events), which
// also name the tool call it runs now.
type TaskDetails struct {
	Session   string    `json:"session,omitempty"`
	SessionID string    `json:"sessionId,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Host      string    `json:"host,omitempty"` // the ssh destination it ran on (none: here)
	Turns     int       `json:"turns"`
	Usage     llm.Usage `json:"usage"`
	ExitCode  int       `json:"exitCode"`
	// Stopped says why it ended early: aborted, turns, tokens, cost, time.
	Stopped string `json:"stopped,omitempty"`
	// Running is the header of the tool call it runs now (updates only).
	Running string `json:"running,omitempty"`
}

// ParseTask reads a task call's details; false when they are not a
// task's (none, or not JSON).
func ParseTask(details json.RawMessage) (TaskDetails, bool) {
	var d TaskDetails
	if len(details) == 0 || json.Unmarshal(details, &d) != nil {
		return d, false
	}
	return d, true
}

// Summary is what a sub-agent has spent: "2 turns · ↑1.2k ↓300 · $0.0042"
// (and why it stopped early).
func (d TaskDetails) Summary() string {
	turns := fmt.Sprintf("%d turns", d.Turns)
	if d.Turns == 1 {
		turns = "1 turn"
	}
	u := d.Usage
	parts := []string{turns, fmt.Sprintf("↑%s ↓%s", show.Tokens(u.Input+u.CacheRead+u.CacheWrite), show.Tokens(u.Output))}
	if u.Cost.Total > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", u.Cost.Total))
	}
	if d.Stopped != "" {
		parts = append(parts, "stopped: "+d.Stopped)
	}
	return strings.Join(parts, " · ")
}

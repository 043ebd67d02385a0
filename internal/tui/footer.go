package tui

import (
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/render/show"
)

// footer is the last line: the model, the thinking level, the tokens, the
// cost, the context used as a share of the window, and the sandbox mode.
func (a *agent) footer(width int) string {
	name := a.state.modelRef
	if name == "" {
		name = "(no model)"
	}
	parts := []string{name}
	th := a.Thinking
	if th == "" {
		th = a.state.thinking
	}
	if th == "" {
		th = a.ConfigThinking // config.toml's, as agent-chat will use it
	}
	if th == "" {
		th = "off"
	}
	parts = append(parts, "thinking "+th)
	parts = append(parts, fmt.Sprintf("↑%s ↓%s", show.Tokens(a.state.in), show.Tokens(a.state.out)))
	parts = append(parts, fmt.Sprintf("$%.4f", a.state.cost))
	if m := a.currentModel(); m != nil && m.ContextWindow > 0 {
		pct := 100 * float64(a.state.ctx) / float64(m.ContextWindow)
		f := "%.0f%% of %s"
		if pct > 0 && pct < 10 {
			f = "%.1f%% of %s" // a long window fills slowly: 0.4%, not 0%
		}
		parts = append(parts, fmt.Sprintf(f, pct, show.Tokens(m.ContextWindow)))
	}
	sb := "sandbox " + a.sandbox()
	s := dim.Render(clip(strings.Join(parts, " · "), width-3-len(sb)))
	if a.sandbox() == "off" {
		return s + dim.Render(" · ") + red.Render(sb) // shown, never hidden
	}
	return s + dim.Render(" · "+sb)
}

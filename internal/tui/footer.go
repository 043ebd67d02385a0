package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentutils/agentutils/lib/render/show"
)

// footer is the last line: the model, the thinking level, the tokens, the
// cost, the context used as a share of the window, and the sandbox mode;
// the permission mode first when it is not default.
func (a *agent) footer(width int) string {
	name := a.state.modelRef
	if name == "" {
		name = "(no model)"
	}
	th := a.thinking() // config.toml's last, as agent-chat will use it
	tok := fmt.Sprintf("↑%s ↓%s", show.Tokens(a.state.in), show.Tokens(a.state.out))
	cost := fmt.Sprintf("$%.4f", a.state.cost)
	ctx := ""
	if m := a.currentModel(); m != nil && m.ContextWindow > 0 {
		pct := 100 * float64(a.state.ctx) / float64(m.ContextWindow)
		f := "%.0f%% of %s"
		if pct > 0 && pct < 10 {
			f = "%.1f%% of %s" // a long window fills slowly: 0.4%, not 0%
		}
		ctx = fmt.Sprintf(f, pct, show.Tokens(m.ContextWindow))
	}
	// Where the line is narrow, the parts that matter least go first:
	// the thinking level, the context share, the cost.
	sets := [][]string{{name, "thinking " + th, tok, cost, ctx}, {name, tok, cost, ctx}, {name, tok, cost}, {name, tok}}
	var parts []string
	sb := "sandbox " + a.sandbox()
	badge := a.modeBadge() // the permission mode, when not default
	room := width - 3 - len(sb)
	if badge != "" {
		room -= ansi.StringWidth(badge) + 3
	}
	for _, set := range sets {
		parts = slices.DeleteFunc(set, func(p string) bool { return p == "" })
		if ansi.StringWidth(strings.Join(parts, " · ")) < room {
			break
		}
	}
	s := dim.Render(clip(strings.Join(parts, " · "), room))
	if badge != "" {
		s = yellow.Render(badge) + dim.Render(" · ") + s
	}
	if a.sandbox() == "off" {
		s += dim.Render(" · ") + red.Render(sb) // shown, never hidden
	} else {
		s += dim.Render(" · " + sb)
	}
	if a.place != "" {
		s = dim.Render(clip(a.place, width-1)) + "\n" + s
	}
	return s
}

// place is the footer's first line: the working directory (~ for the
// home) and its git branch.
func place(dir, home string) string {
	s := dir
	if home != "" && (dir == home || strings.HasPrefix(dir, home+"/")) {
		s = "~" + dir[len(home):]
	}
	if b := gitBranch(dir); b != "" {
		s += " (" + b + ")"
	}
	return s
}

// gitBranch is the branch checked out in the repository holding dir
// (a short commit when detached; "" outside a repository), read from
// its HEAD file.
func gitBranch(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		gitDir := filepath.Join(d, ".git")
		if b, err := os.ReadFile(gitDir); err == nil { // a worktree's: "gitdir: PATH"
			p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
			if !ok {
				return ""
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(d, p)
			}
			gitDir = p
		}
		if head, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
			h := strings.TrimSpace(string(head))
			if ref, ok := strings.CutPrefix(h, "ref: refs/heads/"); ok {
				return ref
			}
			return h[:min(len(h), 7)]
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

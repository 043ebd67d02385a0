package tui

import (
	"fmt"
	"slices"

	"github.com/agentutils/agentutils/lib/llm"
)

// modelScope is what ctrl+p cycles through: the models --models or
// config.toml's enabledModels name (each pattern's match), else every
// model of the catalog with a key.
func (a *agent) modelScope() []string {
	if a.Catalog == nil {
		return nil
	}
	var refs []string
	for _, p := range a.Models {
		if m, _, err := a.Catalog.Resolve(p); err == nil && !slices.Contains(refs, m.Ref()) {
			refs = append(refs, m.Ref())
		}
	}
	if len(a.Models) > 0 {
		return refs
	}
	for _, m := range a.Catalog.Models {
		if k, err := a.Catalog.ResolveKey(m, "", a.Getenv); err == nil && k.Given() {
			refs = append(refs, m.Ref())
		}
	}
	return refs
}

// cycleModel (ctrl+p, shift+ctrl+p back) takes the next model of the
// scope for the next prompts, as /model does without its pickers.
func (m *Model) cycleModel(step int) {
	a := m.a
	scope := a.modelScope()
	if len(scope) == 0 {
		m.info = "no models to cycle: --models or config.toml's enabledModels names them, else those with a key"
		return
	}
	i := slices.Index(scope, a.state.modelRef) // -1: the first (or last) next
	if i < 0 && step < 0 {
		i = 0
	}
	next := scope[((i+step)%len(scope)+len(scope))%len(scope)]
	a.Model, a.state.modelRef = next, next
	m.info = fmt.Sprintf("model %s (%d of %d · ctrl+p next)", next, slices.Index(scope, next)+1, len(scope))
}

// thinking is the level the next run uses, as the footer shows it.
func (a *agent) thinking() string {
	for _, t := range []string{a.Thinking, a.state.thinking, a.ConfigThinking} {
		if t != "" {
			return t
		}
	}
	return "off"
}

// cycleThinking (ctrl+t) takes the next thinking level for the next
// prompts; a model that does not think keeps "off".
func (m *Model) cycleThinking() {
	a := m.a
	if mod := a.currentModel(); mod != nil && !mod.Reasoning {
		m.info = mod.Ref() + " does not think: its thinking level stays off"
		return
	}
	levels := llm.ThinkingLevels
	a.Thinking = levels[(slices.Index(levels, a.thinking())+1)%len(levels)]
	m.info = "thinking " + a.Thinking + " from the next prompt (ctrl+t next)"
}

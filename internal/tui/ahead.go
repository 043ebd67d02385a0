package tui

import (
	"os"
	"strings"
	"syscall"

	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/lib/compact"
)

// The next run's pipeline is started while the person types: when the
// front-end is idle, SESSION open | COMPACT | CHAT … -- - is started and
// left waiting, agent-chat with its tools started, the context read and
// the model's server dialed (the TCP and TLS round trips, most of what
// Enter would otherwise wait for before the request goes out), for the
// prompt Enter writes on its stdin. The run is thrown away and started
// again when what it was started for changes: the session file (its
// path, size, time, inode: /new, /resume, a checkout, a compaction), the
// model, the thinking level, the sandbox mode, the flags. A prompt with
// @path, a run after a context overflow and a session over the
// compaction threshold (agent-compact would summarize it, a model call,
// while the person types) start at Enter; so does every run with
// --no-ahead. A run started ahead that ends by itself (killed) is
// started again, once: one that ends again waits for Enter, which shows
// why.

// ahead is a run started before its prompt.
type ahead struct {
	r     *pipeline.Run
	key   aheadKey
	ended chan struct{} // closed once its stages are reaped
}

// aheadKey is what a run started ahead depends on.
type aheadKey struct {
	file           string
	size, mod, ino int64 // the session file's (size -1: missing)
	argv           string
}

// maxAheadFails is how many runs started ahead may end by themselves, one
// after the other, before none is started until the next run.
const maxAheadFails = 2

// aheadOpts are the choices of the next run started ahead.
func (a *agent) aheadOpts() pipeline.Opts {
	o := a.runOpts("")
	o.Ahead = true
	return o
}

// aheadKey is the key of a run of o (its prompt left out) for the
// session file as it is now.
func (a *agent) aheadKey(o pipeline.Opts) aheadKey {
	o.Prompt, o.Ahead = "", true
	k := aheadKey{file: a.File, size: -1, argv: strings.Join(a.Stages.ChatArgv(o), "\x00")}
	if fi, err := os.Stat(a.File); err == nil {
		k.size, k.mod = fi.Size(), fi.ModTime().UnixNano()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			k.ino = int64(st.Ino)
		}
	}
	return k
}

// compactDue: the last answer's context is over agent-compact's threshold
// (its default reserve), so the next run's agent-compact summarizes.
func (a *agent) compactDue() bool {
	if a.Stages.Compact == nil || a.state.ctx == 0 {
		return false
	}
	m := a.currentModel()
	return m != nil && compact.OverThreshold(a.state.ctx, m.ContextWindow, compact.Defaults.ReserveTokens)
}

// aheadWanted: a run is kept started ahead now.
func (m *Model) aheadWanted() bool {
	return !m.a.NoAhead && m.phase == idle && len(m.queued) == 0 && !m.quitting && !m.quitEnd &&
		m.aheadFails < maxAheadFails && !m.a.compactDue()
}

// keepAhead starts the next run ahead when the front-end is idle, or
// again when what it depends on changed, and throws it away when none is
// wanted. While a run or a session command goes on, the one there is
// waits: it is checked when they end.
func (m *Model) keepAhead() {
	if !m.aheadWanted() {
		if m.phase == idle && !m.quitting { // (at the end, Interactive drops it and waits)
			m.dropAhead()
		}
		return
	}
	o := m.a.aheadOpts()
	key := m.a.aheadKey(o)
	if m.ahead != nil {
		if m.ahead.key == key {
			return
		}
		m.dropAhead()
	}
	r, err := m.a.Stages.Start(m.a.File, o, nil)
	if err != nil {
		m.aheadFails = maxAheadFails // Enter starts the run and says why
		return
	}
	m.ahead = &ahead{r: r, key: key, ended: m.read(r)}
}

// dropAhead throws the run started ahead away.
func (m *Model) dropAhead() {
	if m.ahead != nil {
		m.ahead.r.Discard()
		m.ahead = nil
	}
}

// takeAhead gives the run started ahead its prompt and returns it; nil
// when there is none, or it is not one for o (attached files, a
// continuation, a changed session), or it ended.
func (m *Model) takeAhead(o pipeline.Opts, errLine func(string)) *ahead {
	w := m.ahead
	m.ahead = nil
	if w == nil {
		return nil
	}
	if len(o.Files) > 0 || o.Continue || o.Force || w.key != m.a.aheadKey(o) {
		w.r.Discard()
		return nil
	}
	// agent-chat trims the prompt it reads on stdin; so does --message.
	if err := w.r.Send(strings.TrimSpace(o.Prompt), errLine); err != nil {
		w.r.Discard()
		return nil
	}
	return w
}

// aheadEnded notes that the run started ahead ended by itself (its
// reader saw it end): the next one is started once more.
func (m *Model) aheadEnded(r *pipeline.Run) {
	if m.ahead != nil && m.ahead.r == r {
		m.ahead = nil
		m.aheadFails++
	}
}

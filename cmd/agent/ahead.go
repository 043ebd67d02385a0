package main

import (
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/agentutils/agentutils/lib/compact"
)

// The next run's pipeline is started while the person types: when a run
// ends (and at start), SESSION open | COMPACT | CHAT … -- - is started and
// left waiting, agent-chat with its tools started, its system prompt built
// and the context read, for the prompt Enter writes on its stdin. Only the
// request and what follows it are left between Enter and the first
// character. The run is thrown away and started again when what it was
// started for changes: the session file (its path, size, time), the model,
// the thinking level, the flags. No run is started ahead while the
// session is over the compaction threshold: agent-compact would summarize
// it (a model call) while the person types, to be thrown away if a
// command changed the session; that run starts at Enter, as without.

// ahead is a run started before its prompt.
type ahead struct {
	key   runKey
	ready chan struct{} // start returned
	r     *run
	err   error
	// sent is the prompt the terminal's reader gave it at enter
	// (enter.go), sendErr what that returned.
	sent    string
	sendErr error
	// file is the session file it was started for, open (nil: there was
	// none), for a check at enter cheaper than a path's (unchanged).
	file *os.File
}

// runKey is what a run started ahead depends on.
type runKey struct {
	file      string
	size, mod int64 // the session file's
	model     string
	thinking  string
	extra     string // chatExtra, joined
}

// fileState is the session file's size and time (-1 when missing).
func fileState(file string) (size, mod int64) {
	if fi, err := os.Stat(file); err == nil {
		return fi.Size(), fi.ModTime().UnixNano()
	}
	return -1, 0
}

func (a *agent) aheadKey() runKey {
	k := runKey{file: a.file, model: a.modelFlag, thinking: a.thinkingFlag, extra: strings.Join(a.chatExtra(), "\x00")}
	k.size, k.mod = fileState(a.file)
	return k
}

func (a *agent) startAhead() *ahead {
	w := &ahead{key: a.aheadKey(), ready: make(chan struct{})}
	if f, err := os.Open(a.file); err == nil {
		w.file = f
	}
	o := runOpts{ahead: true, model: a.modelFlag, thinking: a.thinkingFlag, extra: a.chatExtra()}
	file := a.file
	go func() {
		defer close(w.ready)
		w.r, w.err = a.st.start(file, o, nil)
	}()
	return w
}

// unchanged: the session file is the one the run was started for: the
// same file (not replaced, nor removed) of the same size and time, or
// still none. An open file's check (fstat) costs a fifth of a path's.
func (w *ahead) unchanged() bool {
	if w.file == nil {
		size, _ := fileState(w.key.file)
		return size == -1 && w.key.size == -1
	}
	fi, err := w.file.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 0 && fi.Size() == w.key.size && fi.ModTime().UnixNano() == w.key.mod
}

// closeFile closes the session file kept for unchanged.
func (w *ahead) closeFile() {
	if w.file != nil {
		w.file.Close()
	}
}

// drop throws the run away.
func (w *ahead) drop() {
	w.closeFile()
	<-w.ready
	if w.r != nil {
		w.r.discard()
	}
}

// keepAhead starts the next run ahead when nothing runs, or starts it
// again when what it depends on changed.
func (u *ui) keepAhead() {
	if u.a.noAhead || u.run != nil || u.busy != "" || len(u.queued) > 0 || u.quit || u.quitEnd {
		return
	}
	if u.a.compactDue() {
		if u.ahead != nil {
			go u.ahead.drop()
			u.ahead = nil
		}
		return
	}
	key := u.a.aheadKey()
	if u.ahead != nil {
		if u.ahead.key == key || u.ahead.sent != "" { // (sent: enter comes next)
			return
		}
		go u.ahead.drop()
	}
	u.ahead = u.a.startAhead()
	// Nothing runs: what the last run allocated is collected now, not
	// on the way from the next Enter to its first character.
	go runtime.GC()
}

// takeAhead is the run started ahead for a prompt, given the prompt; nil
// when there is none, it is out of date or it ended early.
func (u *ui) takeAhead(o runOpts) *run {
	w := u.ahead
	u.ahead = nil
	if w == nil {
		return nil
	}
	w.closeFile()
	if w.sent != "" { // by the terminal's reader, for this enter
		if w.sendErr == nil && w.sent == strings.TrimSpace(o.prompt) && len(o.files) == 0 && !o.cont && !o.force {
			return w.r
		}
		go w.drop()
		return nil
	}
	if len(o.files) > 0 || o.cont || o.force || w.key != u.a.aheadKey() {
		go w.drop()
		return nil
	}
	<-w.ready
	if w.err != nil {
		return nil
	}
	// agent-chat trims the prompt it reads on stdin; so does the editor.
	if err := w.r.send(strings.TrimSpace(o.prompt)); err != nil {
		go w.r.discard()
		return nil
	}
	return w.r
}

// compactDue: the last answer's context is over agent-compact's threshold
// (its default reserve), so the next run's agent-compact summarizes.
func (a *agent) compactDue() bool {
	if a.st.compact == nil || a.state.ctx == 0 {
		return false
	}
	m := a.currentModel()
	return m != nil && compact.OverThreshold(a.state.ctx, m.ContextWindow, compact.Defaults.ReserveTokens)
}

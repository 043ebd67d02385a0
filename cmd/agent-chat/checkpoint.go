package main

import (
	"fmt"

	"github.com/agentutils/agentutils/internal/checkpoint"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// scan is a checkpoint's scan going on beside the run: the prompt's
// request goes out while the workspace is read (the first scan of a
// session hashes every file: seconds in a big tree); the events the run
// writes meanwhile wait behind it (the emitter's gate), and no tool runs
// before it ends (emitter.wait), so what it records is the workspace
// before the prompt's turns.
type scan struct {
	done     chan struct{}
	entry    *event.Event // nil: no checkpoint (said in warnings)
	warnings []string
}

// checkpoint (--checkpoint) starts the scan of the workspace against the
// session's last one; its changes become a checkpoint entry that agent-
// session append persists before the user message (formats/session). nil
// when no tool offered may change files; without the session file in the
// stream it says so and the run goes on without one.
func (r *chatRun) checkpoint() *scan {
	if !mayChangeFiles(r.tools) {
		return nil
	}
	if r.in.st.header == nil || r.in.st.header.File == "" {
		r.warn("checkpoint: the stream names no session file (agent-session open's header has it): no checkpoint")
		return nil
	}
	s := &scan{done: make(chan struct{})}
	file, dir, now := r.in.st.header.File, r.env.Dir, r.env.Now().UnixNano()
	st := checkpoint.NewStore(dirs.Resolve(r.env.Getenv))
	go func() {
		defer close(s.done)
		sc, err := st.Take(file, dir, now)
		for _, w := range sc.Warnings {
			s.warnings = append(s.warnings, "checkpoint: "+w)
		}
		if err != nil {
			s.warnings = append(s.warnings, fmt.Sprintf("checkpoint: %v (no checkpoint before this prompt)", err))
			return
		}
		e := sc.Entry()
		for _, p := range e.Unkept {
			s.warnings = append(s.warnings, fmt.Sprintf("checkpoint: %s: its content is not kept (over %d bytes, or unreadable): a rewind cannot bring it back", p, st.MaxFile))
		}
		s.entry = &event.Event{Type: event.Entry, Entry: msgJSON(e)}
	}()
	return s
}

// mayChangeFiles: a tool that is not known to leave files alone (one of
// the table's that reads, or changes only the agent's own state).
func mayChangeFiles(tools []llm.Tool) bool {
	for _, t := range tools {
		d, ok := tooldef.Lookup(t.Name)
		if !ok || d.Class == tooldef.Exec || tooldef.ChangesFiles(d) {
			return true
		}
	}
	return false
}

package main

import (
	"fmt"

	"github.com/agentutils/agentutils/internal/checkpoint"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// checkpoint (--checkpoint) records the workspace before the prompt's
// turns: a scan against the session's last one, its changes emitted as a
// checkpoint entry that agent-session append persists before the user
// message (formats/session). Only when a tool offered may change files
// and the stream names its session; a failed scan is said and the run
// goes on.
func (r *chatRun) checkpoint() {
	if !mayChangeFiles(r.tools) {
		return
	}
	if r.in.st.header == nil || r.in.st.header.File == "" {
		r.warn("checkpoint: the stream names no session file (agent-session open's header has it): no checkpoint")
		return
	}
	st := checkpoint.NewStore(dirs.Resolve(r.env.Getenv))
	sc, err := st.Take(r.in.st.header.File, r.env.Dir, r.env.Now().UnixNano())
	for _, w := range sc.Warnings {
		r.warn("checkpoint: " + w)
	}
	if err != nil {
		r.warn(fmt.Sprintf("checkpoint: %v (no checkpoint before this prompt)", err))
		return
	}
	e := sc.Entry()
	for _, p := range e.Unkept {
		r.warn(fmt.Sprintf("checkpoint: %s: its content is not kept (over %d bytes, or unreadable): a rewind cannot bring it back", p, st.MaxFile))
	}
	r.out.emit(event.Entry, func(ev *event.Event) { ev.Entry = msgJSON(e) })
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

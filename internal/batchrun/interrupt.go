package batchrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/lease"
	"github.com/agentutils/agentutils/lib/batch"
)

// settleWait bounds how long an interrupted batch waits for the runners it
// started to end and write their own results: a remote runner gets TERM
// when sshd goes, and KILL from parallel's wrapper 15 s later (--termseq).
const settleWait = 20 * time.Second

// mark is what OUT held for a task before a round: the modification times
// of its lease and result (zero when missing) and its session files.
type mark struct {
	lease, result time.Time
	sessions      map[string]bool
}

func modTime(path string) time.Time {
	if st, err := os.Stat(path); err == nil {
		return st.ModTime()
	}
	return time.Time{}
}

func (b *run) sessionFiles(id string) []string {
	files, _ := filepath.Glob(filepath.Join(b.o.Out, "sessions", id, "*.jsonl"))
	sort.Strings(files) // by name: by creation time
	return files
}

func (b *run) resultPath(id string) string { return filepath.Join(b.o.Out, "results", id+".json") }

// marks notes what OUT holds for the tasks of a round before it runs.
func (b *run) marks(todo []batch.Line) map[string]mark {
	ms := map[string]mark{}
	for _, l := range todo {
		m := mark{lease: modTime(lease.Path(b.o.Out, l.ID)), result: modTime(b.resultPath(l.ID)), sessions: map[string]bool{}}
		for _, f := range b.sessionFiles(l.ID) {
			m.sessions[f] = true
		}
		ms[l.ID] = m
	}
	return ms
}

// started: a runner took the task's lease during the round.
func (b *run) started(id string, m mark) bool {
	t := modTime(lease.Path(b.o.Out, id))
	return !t.IsZero() && !t.Equal(m.lease)
}

// finished: a result was written for the task during the round.
func (b *run) finished(id string, m mark) bool {
	t := modTime(b.resultPath(id))
	return !t.IsZero() && !t.Equal(m.result)
}

// settle runs when the batch was interrupted: every task of the round
// that a runner started and that has no result of this round gets one,
// outcome error, reason interrupted, with the session the run left. A
// runner over ssh may still be stopping, or its host be unreachable: each
// task's lease is awaited (its runner ended) until settleWait has passed,
// and the result is written holding it, so that a runner's own result is
// never overwritten; one still held then gets the result all the same (its
// runner, still alive there, replaces it when it ends).
func (b *run) settle(todo []batch.Line, ms map[string]mark) {
	var open []batch.Line
	for _, l := range todo {
		if m := ms[l.ID]; b.started(l.ID, m) && !b.finished(l.ID, m) {
			open = append(open, l)
		}
	}
	if len(open) == 0 {
		return
	}
	fmt.Fprintf(b.o.Log, "agent-batch: interrupted: waiting up to %v for %d runner(s) to write their results (^C again: stop waiting)\n", settleWait, len(open))
	deadline := time.Now().Add(settleWait)
	host, _ := os.Hostname()
	for _, l := range open {
		held := lease.Path(b.o.Out, l.ID)
		f, err := lease.Take(held, host)
		var h *lease.Held
		for errors.As(err, &h) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			f, err = lease.Take(held, host)
		}
		if b.finished(l.ID, ms[l.ID]) {
			closeLease(f)
			continue
		}
		if err != nil {
			fmt.Fprintf(b.o.Log, "agent-batch: %s: %v; its result says interrupted until the runner writes its own\n", l.ID, err)
		}
		r := b.interrupted(l, ms[l.ID])
		if data, err := json.Marshal(r); err == nil {
			if err := atomicfile.Write(b.resultPath(l.ID), append(data, '\n'), 0o644); err != nil {
				fmt.Fprintf(b.o.Log, "agent-batch: %s: %v\n", l.ID, err)
			}
		}
		closeLease(f)
		b.trajectory(r)
	}
}

func closeLease(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// interrupted is the result of a run stopped without writing its own: the
// session it made (the newest one new since the round began), its usage
// counted from it.
func (b *run) interrupted(l batch.Line, m mark) batch.Result {
	var session string
	for _, f := range b.sessionFiles(l.ID) {
		if !m.sessions[f] {
			session = f
		}
	}
	st := batch.Run{Interrupted: true}
	if session != "" {
		st.Tally = sessionTally(session)
	}
	r := batch.NewResult(l.Task, st, 0)
	r.Session = session
	return r
}

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/session"
)

// ErrNothingToCompact: the session is too short for a summary.
var ErrNothingToCompact = errors.New("nothing to compact yet: the session is shorter than what compaction keeps")

// CompactNow runs SESSION open S | COMPACT --force [--instructions I] and
// appends only the records agent-compact added (pending).
func (s *Stages) CompactNow(ctx context.Context, file, instructions string) error {
	if s.Compact == nil {
		return errors.New("no compaction stage (--compact-cmd is empty)")
	}
	var errb bytes.Buffer
	open := s.cmd(ctx, s.Session, "open", file)
	args := []string{"--force"}
	if instructions != "" {
		args = append(args, "--instructions", instructions)
	}
	comp := s.cmd(ctx, s.Compact, args...)
	open.Stderr, comp.Stderr = &errb, &errb
	in, err := open.StdoutPipe()
	if err != nil {
		return err
	}
	comp.Stdin = in
	var out bytes.Buffer
	comp.Stdout = &out
	if err := open.Start(); err != nil {
		return err
	}
	cerr := comp.Run()
	oerr := open.Wait()
	if cerr != nil || oerr != nil {
		msg := strings.TrimSpace(errb.String())
		if strings.Contains(msg, "nothing to compact") {
			return ErrNothingToCompact
		}
		return fmt.Errorf("compaction failed: %s", msg)
	}
	var pending bytes.Buffer
	for _, line := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
		var p struct {
			Pending bool `json:"pending"`
		}
		if json.Unmarshal(line, &p) == nil && p.Pending {
			pending.Write(line)
		}
	}
	if pending.Len() == 0 {
		return ErrNothingToCompact
	}
	app := s.cmd(ctx, s.Session, "append", file)
	app.Stdin = &pending
	app.Stderr = &errb
	if err := app.Run(); err != nil {
		return fmt.Errorf("append: %s", strings.TrimSpace(errb.String()))
	}
	return nil
}

// Checkout is what agent-session checkout prints: the new leaf and, for a
// user message checked out, its text for the editor.
type Checkout struct {
	LeafID     string `json:"leafId"`
	EditorText string `json:"editorText"`
}

// Checkout runs SESSION checkout S ID.
func (s *Stages) Checkout(ctx context.Context, file, id string) (Checkout, error) {
	var c Checkout
	out, err := s.SessionOut(ctx, "checkout", file, id)
	if err == nil {
		json.Unmarshal(out, &c)
	}
	return c, err
}

// BranchSummary runs SESSION open --all S | COMPACT --branch-summary
// --from OLD --to ID | SESSION checkout S ID --summary-from -.
func (s *Stages) BranchSummary(ctx context.Context, file, old, id string) (Checkout, error) {
	var errb, out bytes.Buffer
	var c Checkout
	open := s.cmd(ctx, s.Session, "open", "--all", file)
	comp := s.cmd(ctx, s.Compact, "--branch-summary", "--from", old, "--to", id)
	co := s.cmd(ctx, s.Session, "checkout", file, id, "--summary-from", "-")
	open.Stderr, comp.Stderr, co.Stderr = &errb, &errb, &errb
	p1, err := open.StdoutPipe()
	if err != nil {
		return c, err
	}
	comp.Stdin = p1
	p2, err := comp.StdoutPipe()
	if err != nil {
		return c, err
	}
	co.Stdin, co.Stdout = p2, &out
	for _, p := range []interface{ Start() error }{open, comp, co} {
		if err := p.Start(); err != nil {
			return c, err
		}
	}
	e1, e2, e3 := open.Wait(), comp.Wait(), co.Wait()
	if e1 != nil || e2 != nil || e3 != nil {
		return c, errors.New(strings.TrimSpace(errb.String()))
	}
	json.Unmarshal(out.Bytes(), &c)
	return c, nil
}

// Open reads the session's active path (agent-session open; with all,
// --history: not cut at the newest compaction): the stream's header and
// its records.
func (s *Stages) Open(ctx context.Context, file string, all bool) (session.Header, []session.Record, error) {
	args := []string{"open", file}
	if all {
		args = []string{"open", "--history", file}
	}
	out, err := s.SessionOut(ctx, args...)
	if err != nil {
		return session.Header{}, nil, err
	}
	h, recs := streamRecords(out)
	return h, recs, nil
}

// streamRecords reads an agent-session open stream: its header and records.
func streamRecords(out []byte) (session.Header, []session.Record) {
	var h session.Header
	var recs []session.Record
	for i, line := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if i == 0 {
			h, _ = session.ParseStreamHeader(line)
			continue
		}
		if r, err := session.ParseRecord(line); err == nil {
			recs = append(recs, r)
		}
	}
	return h, recs
}

// Rewound is what agent-session rewind prints.
type Rewound struct {
	LeafID     *string `json:"leafId"`
	EditorText string  `json:"editorText"`
	Checkpoint string  `json:"checkpoint"`
	Restored   []string
	Removed    []string
	Failed     []struct{ Path, Reason string }
}

// Files is how many files the rewind writes or removes, or cannot.
func (r Rewound) Files() int { return len(r.Restored) + len(r.Removed) + len(r.Failed) }

// Rewind runs SESSION rewind S ID (with dry, --dry-run: nothing written).
// A rewind that could not restore every file exits 1 and prints what it
// did: that is returned with the error.
func (s *Stages) Rewind(ctx context.Context, file, id string, dry bool) (Rewound, error) {
	args := []string{"rewind", file, id}
	if dry {
		args = []string{"rewind", "--dry-run", file, id}
	}
	var r Rewound
	out, err := s.SessionOut(ctx, args...)
	json.Unmarshal(out, &r)
	return r, err
}

// Turn is a line of agent-session rewind --list: a prompt that can be
// rewound to, and the files its turn changed.
type Turn struct {
	ID, Checkpoint, Text string
	Changed              []string
}

// RewindList runs SESSION rewind --list S.
func (s *Stages) RewindList(ctx context.Context, file string) ([]Turn, error) {
	out, err := s.SessionOut(ctx, "rewind", "--list", file)
	if err != nil {
		return nil, err
	}
	var turns []Turn
	for _, line := range bytes.Split(out, []byte("\n")) {
		var t Turn
		if json.Unmarshal(line, &t) == nil && t.ID != "" {
			turns = append(turns, t)
		}
	}
	return turns, nil
}

// Watch starts agent-session watch in the directory (inotify watches that
// let each prompt's checkpoint stat only what changed); stop ends it.
// Where it cannot run (another session command, no inotify) it ends by
// itself and every checkpoint scans the whole tree, as without it.
func (s *Stages) Watch() (stop func()) {
	c := exec.Command(s.Session[0], append(append([]string(nil), s.Session[1:]...), "watch")...)
	c.Dir, c.Env = s.Dir, s.Env
	// The kernel ends it with agent from its fork on: the watcher's own
	// PR_SET_PDEATHSIG comes after its start, too late if agent is killed
	// at once, and an orphaned watcher would run on for good.
	c.SysProcAttr = proctree.Child(syscall.SIGTERM)
	if err := c.Start(); err != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	return func() {
		c.Process.Signal(syscall.SIGTERM)
		<-done
	}
}

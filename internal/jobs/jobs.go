// Package jobs runs the bash tool's background jobs: commands that go on
// after the call that started them, each watched by a supervisor process
// of its own (this binary again, under a hidden name: supervise.go) that
// writes its output to a file, keeps the last Cap bytes of it, records how
// it ended, and kills its process tree when the job's owner ends.
//
// A jobs directory holds one owner's jobs:
//
//	DIR/owner.lock      flock(2)ed by the owner while it lives (internal/lease)
//	DIR/ID/job.json     the start record (Job without the end)
//	DIR/ID/lock         flock(2)ed by the supervisor while it lives
//	DIR/ID/output       stdout and stderr, at their offsets in the stream;
//	                    what is older than the last Cap bytes is a hole
//	DIR/ID/end.json     how it ended: state, exit code, time, bytes
//	DIR/ID/reported     the model was told that it ended
//	DIR/ID/keep         it outlives its owner
//
// The owner is agent-tool for the jobs of its calls, or the front-end
// (agent) for a whole session: it holds DIR/owner.lock and names DIR to
// the agent-tool processes it starts in AGENT_JOBS_DIR. The kernel lets go
// of the locks when a process ends however it ends, so a supervisor sees
// its owner end (and an owner its jobs) without polling and without pids
// that could have been reused.
package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/lease"
)

// DirEnv names the jobs directory of an owner that is not agent-tool (the
// interactive agent's session): agent-tool then leaves its jobs running
// when it exits.
const DirEnv = "AGENT_JOBS_DIR"

// Defaults: jobs running at once, output kept per job.
const (
	DefaultMax = 8
	DefaultCap = 1 << 20
)

// The states of a job.
const (
	Running  = "running"
	Exited   = "exited"    // the command ended by itself
	Killed   = "killed"    // a kill (the job tool, /jobs, agent-tool jobs kill)
	TimedOut = "timed out" // its timeout
	Orphaned = "owner ended"
	Lost     = "lost" // its supervisor ended without an end record
)

// Job is one job: its start record and, once it ended, its end.
type Job struct {
	ID      string    `json:"id"`
	Command string    `json:"command"`
	Cwd     string    `json:"cwd"`
	Started time.Time `json:"started"`
	Timeout int       `json:"timeout,omitempty"` // seconds; 0: none
	Pid     int       `json:"pid,omitempty"`     // the supervisor

	State    string    `json:"state"`
	ExitCode *int      `json:"exitCode,omitempty"`
	Ended    time.Time `json:"ended,omitzero"`
	Bytes    int64     `json:"bytes"` // output written so far
	Keep     bool      `json:"keep,omitempty"`
	Reported bool      `json:"reported,omitempty"`
	Error    string    `json:"error,omitempty"` // why the supervisor failed
}

// Status says how the job is: "running 12s", "exited with code 0 after
// 3s", "killed after 1m5s".
func (j Job) Status(now time.Time) string {
	if j.State == Running {
		return "running " + now.Sub(j.Started).Round(time.Second).String()
	}
	s := j.State
	if j.ExitCode != nil {
		s = fmt.Sprintf("exited with code %d", *j.ExitCode)
	}
	if !j.Ended.IsZero() {
		s += " after " + j.Ended.Sub(j.Started).Round(time.Second).String()
	}
	return s
}

// end is end.json.
type end struct {
	State    string    `json:"state"`
	ExitCode *int      `json:"exitCode,omitempty"`
	Ended    time.Time `json:"ended"`
	Bytes    int64     `json:"bytes"`
	Error    string    `json:"error,omitempty"`
}

// OwnerLock is the owner's lock file of dir.
func OwnerLock(dir string) string { return filepath.Join(dir, "owner.lock") }

// Own makes this process the owner of dir (created, private to the user):
// its jobs die when the returned file is closed or this process ends.
func Own(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	return lease.Take(OwnerLock(dir), host)
}

// Owned reports whether some process owns dir.
func Owned(dir string) bool { return lease.Check(OwnerLock(dir)) != nil }

// jobDir is the directory of job id.
func jobDir(dir, id string) (string, error) {
	if _, err := strconv.Atoi(id); err != nil || strings.HasPrefix(id, "-") {
		return "", fmt.Errorf("no background job %q (ids are numbers: the job tool without an id lists them)", id)
	}
	return filepath.Join(dir, id), nil
}

// claim makes the directory of the next job id in dir.
func claim(dir string) (string, string, error) {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if k, err := strconv.Atoi(e.Name()); err == nil && k > n {
			n = k
		}
	}
	for range 100 {
		n++
		id := strconv.Itoa(n)
		p := filepath.Join(dir, id)
		err := os.Mkdir(p, 0o700)
		if err == nil {
			return id, p, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", "", err
		}
	}
	return "", "", fmt.Errorf("%s: no free job id", dir)
}

// Get reads job id of dir.
func Get(dir, id string) (Job, error) {
	d, err := jobDir(dir, id)
	if err != nil {
		return Job{}, err
	}
	b, err := os.ReadFile(filepath.Join(d, "job.json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Job{}, fmt.Errorf("no background job %q (the job tool without an id lists them)", id)
		}
		return Job{}, err
	}
	var j Job
	if err := json.Unmarshal(b, &j); err != nil {
		return Job{}, fmt.Errorf("%s/job.json: %v", d, err)
	}
	j.ID = id
	j.Keep = exists(filepath.Join(d, "keep"))
	j.Reported = exists(filepath.Join(d, "reported"))
	if b, err := os.ReadFile(filepath.Join(d, "end.json")); err == nil {
		var e end
		if json.Unmarshal(b, &e) == nil {
			j.State, j.ExitCode, j.Ended, j.Bytes, j.Error = e.State, e.ExitCode, e.Ended, e.Bytes, e.Error
			return j, nil
		}
	}
	if st, err := os.Stat(filepath.Join(d, "output")); err == nil {
		j.Bytes = st.Size()
	}
	j.State = Running
	if lease.Check(filepath.Join(d, "lock")) == nil {
		// Its supervisor is gone, or has not locked yet (Start waits
		// for it, so only a crash leaves this).
		j.State = Lost
	}
	return j, nil
}

// List is every job of dir, oldest first.
func List(dir string) []Job {
	ents, _ := os.ReadDir(dir)
	var out []Job
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || !e.IsDir() {
			continue
		}
		if j, err := Get(dir, e.Name()); err == nil {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		x, _ := strconv.Atoi(out[a].ID)
		y, _ := strconv.Atoi(out[b].ID)
		return x < y
	})
	return out
}

// Running counts the running jobs of dir.
func countRunning(dir string) int {
	n := 0
	for _, j := range List(dir) {
		if j.State == Running {
			n++
		}
	}
	return n
}

// Kill stops job id: its supervisor gets SIGTERM, kills the process tree
// (SIGTERM, then SIGKILL after a grace) and records it killed. It returns
// once the supervisor has gone, with the job as it ended.
func Kill(dir, id string) (Job, error) {
	j, err := Get(dir, id)
	if err != nil || j.State != Running {
		return j, err
	}
	d, _ := jobDir(dir, id)
	lock := filepath.Join(d, "lock")
	terminate(j.Pid, lock)
	if !wait(lock, 30*time.Second) {
		return j, fmt.Errorf("background job %s did not end within 30 s of SIGTERM", id)
	}
	return Get(dir, id)
}

// KillAll kills every running job of dir that is not kept, and returns
// how many it killed.
func KillAll(dir string) int {
	n := 0
	for _, j := range List(dir) {
		if j.State == Running && !j.Keep {
			if _, err := Kill(dir, j.ID); err == nil {
				n++
			}
		}
	}
	return n
}

// Keep lets job id outlive its owner.
func Keep(dir, id string) error {
	d, err := jobDir(dir, id)
	if err != nil {
		return err
	}
	if _, err := Get(dir, id); err != nil {
		return err
	}
	return touch(filepath.Join(d, "keep"))
}

// Wait blocks until job id has ended (its supervisor let go of its lock).
func Wait(dir, id string) {
	if d, err := jobDir(dir, id); err == nil {
		wait(filepath.Join(d, "lock"), 0)
	}
}

// wait blocks until no one holds the lock at path (a shared flock is
// granted), for at most limit (0: no limit); false at the limit.
func wait(path string, limit time.Duration) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	done := make(chan struct{})
	go func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
		close(done)
	}()
	if limit == 0 {
		<-done
		return true
	}
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}

// MarkReported records that the model was told job id ended; false when
// it was already (by this process or another).
func MarkReported(dir, id string) bool {
	d, err := jobDir(dir, id)
	if err != nil {
		return false
	}
	f, err := os.OpenFile(filepath.Join(d, "reported"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// Remove deletes the records of the jobs of dir that have ended, and dir
// itself (with its owner lock) when nothing is left in it.
func Remove(dir string) {
	for _, j := range List(dir) {
		if j.State != Running {
			os.RemoveAll(filepath.Join(dir, j.ID))
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) == 1 && ents[0].Name() == "owner.lock" {
		os.Remove(OwnerLock(dir))
		os.Remove(dir)
	}
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func touch(p string) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

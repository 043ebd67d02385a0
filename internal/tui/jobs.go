package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/jobs"
)

// sessionJobs are the background jobs of the interactive session: agent
// owns their directory (its lock held while agent runs) and names it to
// each prompt's pipeline in AGENT_JOBS_DIR, so a job started at one
// prompt runs on into the next; they are killed when agent ends, however
// it ends, but for those /jobs keep kept.
type sessionJobs struct {
	dir     string
	owner   *os.File
	mu      sync.Mutex
	watched map[string]bool
	// killed are the jobs the person killed with /jobs kill: its answer
	// says so, their end is not said again.
	killed map[string]bool
}

// ownJobs makes the session's jobs directory, private to the user, and
// owns it.
func ownJobs() (*sessionJobs, error) {
	base := filepath.Join(os.TempDir(), fmt.Sprintf("agent-jobs-%d", os.Getuid()))
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(base); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is not a private directory: remove it", base)
	}
	// What sessions that ended without closing (SIGKILL) left: their
	// supervisors have killed the jobs; the records go.
	if ents, err := os.ReadDir(base); err == nil {
		for _, e := range ents {
			if d := filepath.Join(base, e.Name()); e.IsDir() && !jobs.Owned(d) {
				jobs.Remove(d)
			}
		}
	}
	d, err := os.MkdirTemp(base, "session-")
	if err != nil {
		return nil, err
	}
	f, err := jobs.Own(d)
	if err != nil {
		return nil, err
	}
	return &sessionJobs{dir: d, owner: f, watched: map[string]bool{}}, nil
}

// env is the pipelines' variable that names the directory.
func (j *sessionJobs) env() string { return jobs.DirEnv + "=" + j.dir }

// close kills the jobs (not the kept ones) and removes what is left.
func (j *sessionJobs) close() {
	jobs.KillAll(j.dir)
	jobs.Remove(j.dir)
	j.owner.Close()
}

// jobEndedMsg: a job of the session ended.
type jobEndedMsg struct{ id string }

// jobsDone is what a /jobs command that took a while has to say.
type jobsDone string

// watch waits, for each running job not yet watched, for its end, and
// tells the model's inbox.
func (j *sessionJobs) watch(inbox chan<- tea.Msg) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, job := range jobs.List(j.dir) {
		if job.State != jobs.Running || j.watched[job.ID] {
			continue
		}
		j.watched[job.ID] = true
		go func(id string) {
			jobs.Wait(j.dir, id)
			inbox <- jobEndedMsg{id}
		}(job.ID)
	}
}

// jobEnded shows the end of a job that ended between runs (one that ended
// during a run is in its transcript, as the notice the model got).
func (m *Model) jobEnded(id string) {
	sj := m.a.jobs
	if sj.killed[id] {
		delete(sj.killed, id)
		return
	}
	j, err := jobs.Get(sj.dir, id)
	if err != nil || m.phase != idle {
		return
	}
	m.print(yellow.Render(fmt.Sprintf("job %s ended (%s): %s", j.ID, j.Status(m.now()), clip(j.Command, 80))) +
		dim.Render(" · the model is told with the next prompt"))
}

// jobsCommand is /jobs: list the session's jobs; /jobs kill ID|all,
// /jobs keep ID, /jobs ID (its last output).
func (m *Model) jobsCommand(arg string) tea.Cmd {
	sj := m.a.jobs
	if sj == nil {
		m.print(dim.Render("no background jobs in this mode"))
		return nil
	}
	verb, id, _ := strings.Cut(arg, " ")
	id = strings.TrimSpace(id)
	switch {
	case arg == "":
		list := jobs.List(sj.dir)
		if len(list) == 0 {
			m.print(dim.Render("no background jobs"))
			return nil
		}
		var b strings.Builder
		for _, j := range list {
			keep := ""
			if j.Keep {
				keep = " (kept)"
			}
			fmt.Fprintf(&b, "%-3s %-28s %s%s\n", j.ID, j.Status(m.now()), clip(j.Command, max(m.width-40, 20)), keep)
		}
		b.WriteString(dim.Render("/jobs ID shows its output · /jobs kill ID|all · /jobs keep ID lets it outlive agent"))
		m.print(b.String())
	case verb == "kill" && id != "":
		dir := sj.dir
		if sj.killed == nil {
			sj.killed = map[string]bool{}
		}
		for _, j := range jobs.List(dir) {
			if (id == "all" || j.ID == id) && j.State == jobs.Running {
				sj.killed[j.ID] = true
			}
		}
		return func() tea.Msg {
			if id == "all" {
				return jobsDone(fmt.Sprintf("killed %d job(s)", jobs.KillAll(dir)))
			}
			j, err := jobs.Kill(dir, id)
			if err != nil {
				return jobsDone(err.Error())
			}
			return jobsDone(fmt.Sprintf("job %s: %s", j.ID, j.Status(m.now())))
		}
	case verb == "keep" && id != "":
		if err := jobs.Keep(sj.dir, id); err != nil {
			m.fail("/jobs", err)
			return nil
		}
		m.print(dim.Render("job " + id + " outlives agent: kill it yourself when done"))
	case !strings.Contains(arg, " "):
		c, err := jobs.Output(sj.dir, arg, -1, 4096)
		if err != nil {
			m.fail("/jobs", err)
			return nil
		}
		if out := strings.TrimRight(string(c.Text), "\n"); out != "" {
			m.print(out)
		}
		m.print(dim.Render(fmt.Sprintf("(%d bytes of output)", c.Size)))
	default:
		m.fail("/jobs", fmt.Errorf("usage: /jobs [ID | kill ID|all | keep ID]"))
	}
	return nil
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentutils/agentutils/internal/jobs"
	"github.com/agentutils/agentutils/lib/event"
)

// Jobs are the bash tool's background jobs (internal/jobs) of an Env.
type Jobs struct {
	// Dir is the jobs directory of an owner that is not this process
	// (AGENT_JOBS_DIR: the interactive agent's session); "": a directory
	// of this process's own, made at the first job and removed, its jobs
	// killed, by Close.
	Dir  string
	Keep bool  // jobs outlive their owner (--keep-jobs)
	Max  int   // jobs at once (0: jobs.DefaultMax)
	Cap  int64 // output kept per job (0: jobs.DefaultCap)
	// Started is told of each job started (agent-tool serve watches for
	// its end); nil: no one watches.
	Started func(id string)

	mu    sync.Mutex
	owner *os.File // the owner lock, when this process owns Dir
	made  bool     // Dir is this process's own
}

// dir is the jobs directory, made and owned by this process when no one
// else owns it.
func (j *Jobs) dir(state string) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.owner != nil || (j.Dir != "" && jobs.Owned(j.Dir)) {
		return j.Dir, nil
	}
	if j.Dir == "" {
		base := filepath.Join(state, "jobs")
		if err := os.MkdirAll(base, 0o700); err != nil {
			return "", err
		}
		d, err := os.MkdirTemp(base, "agent-tool-")
		if err != nil {
			return "", err
		}
		j.Dir, j.made = d, true
	}
	f, err := jobs.Own(j.Dir)
	if err != nil {
		return "", err
	}
	j.owner = f
	return j.Dir, nil
}

// Close ends the jobs this process owns (not the kept ones) and, in a
// directory of its own, removes what is left of their records; the jobs
// of another owner go on.
func (j *Jobs) Close() {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.owner == nil {
		return
	}
	jobs.KillAll(j.Dir)
	if j.made {
		jobs.Remove(j.Dir)
	}
	j.owner.Close()
	j.owner = nil
}

// Directory is the jobs directory in use ("" before the first job of a
// process that owns its own).
func (j *Jobs) Directory() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.Dir
}

// startJob starts bash's command as a background job in dir.
func startJob(env *Env, command, dir string, timeout int, environ []string) (event.ToolOutput, error) {
	if env.Jobs == nil {
		return event.ToolOutput{}, fmt.Errorf("background jobs are off here: run the command without background")
	}
	state, err := env.stateDir()
	if err != nil {
		return event.ToolOutput{}, err
	}
	jd, err := env.Jobs.dir(state)
	if err != nil {
		return event.ToolOutput{}, err
	}
	spec, err := env.shellSpec()
	if err != nil {
		return event.ToolOutput{}, err
	}
	j, err := jobs.Start(jd, jobs.Options{Command: command, Cwd: dir, Env: environ, Sandbox: spec, Timeout: timeout,
		Keep: env.Jobs.Keep, Max: env.Jobs.Max, Cap: env.Jobs.Cap, Now: env.Now()})
	if err != nil {
		return event.ToolOutput{}, err
	}
	if env.Jobs.Started != nil {
		env.Jobs.Started(j.ID)
	}
	text := fmt.Sprintf("Background job %s started: %s\nIt runs on after this call. The job tool reads its output ({\"id\":%q}, again with the cursor it returns for what is new) and kills it ({\"id\":%q,\"kill\":true}); you are told when it ends.",
		j.ID, firstLine(command), j.ID, j.ID)
	return event.ToolOutput{Content: []event.Content{event.Text(text)}, Details: details(map[string]any{"jobId": j.ID, "background": true})}, nil
}

func jobTool() Tool {
	return Tool{
		Def: def("job", "Background jobs (bash with background: true starts one). Without an id: list them. With an id: its state and output, the last 50KB, or from cursor (a byte offset: pass the next cursor a read returned to get only what is new). With kill: true: kill its process tree. You are told when a job ends, at your next turn.",
			`{"type":"object","properties":{"id":{"type":"string","description":"the job's id, as bash returned it"},"cursor":{"type":"integer","minimum":0,"description":"read the output from this byte offset"},"kill":{"type":"boolean","description":"kill the job and its processes"}},"additionalProperties":false}`),
		Run: runJob,
	}
}

func runJob(ctx context.Context, env *Env, args json.RawMessage, update func(event.ToolOutput)) (event.ToolOutput, error) {
	var a struct {
		ID     string
		Cursor *int64
		Kill   bool
	}
	if err := decode(args, &a); err != nil {
		return event.ToolOutput{}, err
	}
	dir := ""
	if env.Jobs != nil {
		dir = env.Jobs.Directory()
	}
	if a.ID == "" {
		if a.Kill || a.Cursor != nil {
			return event.ToolOutput{}, fmt.Errorf("kill and cursor need the id of a job")
		}
		return listJobs(dir, env.Now()), nil
	}
	if dir == "" {
		return event.ToolOutput{}, fmt.Errorf("no background job %q: none was started", a.ID)
	}
	j, err := jobs.Get(dir, a.ID)
	if a.Kill && err == nil {
		jobs.MarkReported(dir, a.ID) // the model sees the end now: no notice
		j, err = jobs.Kill(dir, a.ID)
	}
	if err != nil {
		return event.ToolOutput{}, err
	}
	cursor := int64(-1)
	if a.Cursor != nil {
		cursor = *a.Cursor
	}
	c, err := jobs.Output(dir, a.ID, cursor, maxBytes)
	if err != nil {
		return event.ToolOutput{}, err
	}
	if j.State != jobs.Running {
		jobs.MarkReported(dir, a.ID) // the model sees how it ended
	}
	var b strings.Builder
	fmt.Fprintf(&b, "job %s (%s): %s\n", j.ID, j.Status(env.Now()), firstLine(j.Command))
	if c.Dropped > 0 {
		fmt.Fprintf(&b, "[%s before this are no longer kept]\n", event.FormatBytes(int(c.Dropped)))
	}
	b.WriteString(strings.ToValidUTF8(stripANSI(string(c.Text)), "\uFFFD"))
	if len(c.Text) > 0 && c.Text[len(c.Text)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[output bytes %d-%d of %d; next cursor: %d]", c.From, c.Next, c.Size, c.Next)
	return event.ToolOutput{Content: []event.Content{event.Text(b.String())},
		Details: details(map[string]any{"job": j, "from": c.From, "next": c.Next})}, nil
}

func listJobs(dir string, now time.Time) event.ToolOutput {
	var list []jobs.Job
	if dir != "" {
		list = jobs.List(dir)
	}
	if len(list) == 0 {
		return event.ToolOutput{Content: []event.Content{event.Text("No background jobs.")}, Details: details(map[string]any{"jobs": []jobs.Job{}})}
	}
	var b strings.Builder
	for _, j := range list {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", j.ID, j.Status(now), firstLine(j.Command))
	}
	return event.ToolOutput{Content: []event.Content{event.Text(strings.TrimRight(b.String(), "\n"))}, Details: details(map[string]any{"jobs": list})}
}

// JobEndType is the customType of the notice of a job's end.
const JobEndType = "job_end"

// JobEndNotice is what the model is told when job id of dir has ended:
// how, and the last lines of its output.
func JobEndNotice(dir, id string, now time.Time) (string, jobs.Job, error) {
	j, err := jobs.Get(dir, id)
	if err != nil {
		return "", j, err
	}
	c, _ := jobs.Output(dir, id, -1, 2048)
	var b strings.Builder
	fmt.Fprintf(&b, "Background job %s ended (%s): %s\n", j.ID, j.Status(now), firstLine(j.Command))
	if out := strings.TrimSpace(stripANSI(strings.ToValidUTF8(string(c.Text), "\uFFFD"))); out != "" {
		fmt.Fprintf(&b, "Last output:\n%s\n", out)
	} else {
		b.WriteString("No output.\n")
	}
	fmt.Fprintf(&b, "[the job tool with {\"id\":%q} shows more]", j.ID)
	return b.String(), j, nil
}

// firstLine is a command's first line, cut at 120 characters.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:117]) + "..."
	}
	return s
}

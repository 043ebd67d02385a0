package jobs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/internal/lease"
	"github.com/agentutils/agentutils/internal/proctree"
	isandbox "github.com/agentutils/agentutils/internal/sandbox"
)

// supervisorName is argv[0] of this binary run as a job's supervisor.
const supervisorName = "agentutils-job"

// grace is how long a job has between SIGTERM and SIGKILL.
const grace = 2 * time.Second

// Options are what a job runs and how.
type Options struct {
	Command string   // the bash script
	Cwd     string   // its working directory
	Env     []string // its environment
	// Sandbox confines it as the bash tool's calls are (nil: unconfined).
	Sandbox *isandbox.Spec
	Timeout int   // seconds; 0: until it ends or is killed
	Keep    bool  // it outlives its owner
	Max     int   // jobs running at once in the directory (0: DefaultMax)
	Cap     int64 // output bytes kept (0: DefaultCap)
	Now     time.Time
}

// spec is what the supervisor gets (its argv[1]).
type spec struct {
	Dir     string         `json:"dir"`
	Owner   string         `json:"owner"`
	Job     Job            `json:"job"`
	Env     []string       `json:"env"`
	Sandbox *isandbox.Spec `json:"sandbox,omitempty"`
	Cap     int64          `json:"cap"`
	Marker  string         `json:"marker"`
}

// Start starts a job in dir, which must have an owner (Own), and returns
// it running: its supervisor holds its lock and the command has started.
// At Max running jobs it refuses.
func Start(dir string, o Options) (Job, error) {
	if !Owned(dir) {
		return Job{}, fmt.Errorf("the jobs directory %s has no owner", dir)
	}
	most := o.Max
	if most <= 0 {
		most = DefaultMax
	}
	if n := countRunning(dir); n >= most {
		return Job{}, fmt.Errorf("%d background jobs are running, the most there may be at once: kill one first (the job tool with kill: true)", n)
	}
	id, d, err := claim(dir)
	if err != nil {
		return Job{}, err
	}
	if o.Keep {
		if err := touch(filepath.Join(d, "keep")); err != nil {
			return Job{}, err
		}
	}
	c := o.Cap
	if c <= 0 {
		c = DefaultCap
	}
	s := spec{Dir: d, Owner: OwnerLock(dir), Env: o.Env, Sandbox: o.Sandbox, Cap: c,
		Job:    Job{ID: id, Command: o.Command, Cwd: o.Cwd, Started: o.Now.UTC(), Timeout: o.Timeout},
		Marker: fmt.Sprintf("AGENTUTILS_JOB=%s", d)}
	b, err := json.Marshal(s)
	if err != nil {
		return Job{}, err
	}
	// The spec (the job's environment too) on stdin, not in argv, which
	// every user can read.
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{supervisorName, d}, Env: o.Env, Stdin: bytes.NewReader(b),
		// A session of its own: no signal of the terminal or of the
		// owner's process group reaches it; its owner's end does.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Job{}, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(d)
		return Job{}, fmt.Errorf("background job: %v", err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ok\n" {
		cmd.Wait()
		os.RemoveAll(d)
		return Job{}, fmt.Errorf("background job: %s", strings.TrimSpace(strings.TrimPrefix(line, "error: ")))
	}
	go cmd.Wait() // reaped here while this process lives
	return Get(dir, id)
}

// init runs the supervisor when this binary was started as one (Start:
// argv is its name and the job's directory, stdin the spec): it never
// returns then.
func init() {
	if len(os.Args) < 2 || os.Args[0] != supervisorName {
		return
	}
	spec, err := io.ReadAll(os.Stdin)
	if err == nil {
		err = supervise(spec)
	}
	if err != nil {
		fmt.Printf("error: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// supervise runs one job: it takes the job's lock, starts the command
// with its output into the output file, says "ok" on stdout (Start waits
// for it), then waits for the command to end, a SIGTERM (Kill), the
// timeout or the owner's end; it kills what is left of the process tree
// and writes end.json.
func supervise(specJSON []byte) error {
	var s spec
	if err := json.Unmarshal(specJSON, &s); err != nil {
		return fmt.Errorf("spec: %v", err)
	}
	host, _ := os.Hostname()
	lock, err := lease.Take(filepath.Join(s.Dir, "lock"), host)
	if err != nil {
		return err
	}
	defer lock.Close()
	f, err := os.OpenFile(filepath.Join(s.Dir, "output"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd, err := isandbox.Shell(s.Sandbox, s.Job.Command, append(s.Env, s.Marker))
	if err != nil {
		return err
	}
	if s.Sandbox == nil {
		// What the command leaves behind stays below this process, so
		// that the kill finds it.
		proctree.Subreaper()
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Dir, cmd.Stdout, cmd.Stderr = s.Job.Cwd, pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return err
	}
	s.Job.Pid, s.Job.State = os.Getpid(), Running
	if err := writeJSON(filepath.Join(s.Dir, "job.json"), s.Job); err != nil {
		cmd.Process.Kill()
		return err
	}
	fmt.Println("ok")
	os.Stdout.Close()
	w := &capped{f: f, cap: s.Cap}
	copied := make(chan struct{})
	go func() { io.Copy(w, pr); close(copied) }()
	state, code := s.wait(cmd, sigs)
	// The output the killed processes wrote is in the pipe; a holder
	// that escaped the kill does not hold the end.
	select {
	case <-copied:
	case <-time.After(grace):
		pr.Close()
	}
	e := end{State: state, Ended: time.Now().UTC(), Bytes: w.size()}
	if state == Exited {
		e.ExitCode = &code
	}
	return writeJSON(filepath.Join(s.Dir, "end.json"), e)
}

// wait waits for the job's end and kills what is left of its process
// tree: the state it ended in and its exit code.
func (s *spec) wait(cmd *exec.Cmd, sigs chan os.Signal) (string, int) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	kill := proctree.Killer(cmd.Process.Pid, s.Marker, s.Sandbox != nil)
	owner := make(chan struct{})
	go func() { wait(s.Owner, 0); close(owner) }()
	var timeout <-chan time.Time
	if s.Job.Timeout > 0 {
		timeout = time.After(time.Duration(s.Job.Timeout) * time.Second)
	}
	state := ""
	for state == "" {
		select {
		case <-done:
			state = Exited
		case <-sigs:
			state = Killed
		case <-timeout:
			state = TimedOut
		case <-owner:
			owner = nil
			if !exists(filepath.Join(s.Dir, "keep")) {
				state = Orphaned
			}
		}
	}
	if state != Exited {
		kill(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(grace):
			kill(syscall.SIGKILL)
			<-done
		}
	}
	kill(syscall.SIGKILL) // what the command left running
	proctree.Reap()
	return state, cmd.ProcessState.ExitCode()
}

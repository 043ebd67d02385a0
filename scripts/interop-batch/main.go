// Command interop-batch runs agent-batch across two "hosts": this machine
// and sshd on 127.0.0.1 (GNU parallel --sshlogin), sessions and results in
// one shared directory. It checks that every task has its result and
// session, that a task stopped mid-run is reported, that a re-run
// completes only what is missing, and that ^C of a batch running over ssh
// leaves no process or clone behind and every task with its result, and a
// resumed batch re-runs exactly the interrupted tasks. Skips with a
// message without parallel or sshd.
//
//	go run ./scripts/interop-batch
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

func main() { os.Exit(interop.Main("interop-batch", run)) }

// batch is a run's work directory and agent-batch.
type batch struct {
	*interop.T
	bin string // bin/agent-batch
}

func run(t *interop.T) error {
	if err := interop.Need([2]string{"parallel", "parallel"}, [2]string{"ssh-keygen", "openssh-client"}, [2]string{"ssh", "openssh-client"}); err != nil {
		return err
	}
	sshd, err := interop.Sshd()
	if err != nil {
		return err
	}
	b := &batch{T: t, bin: filepath.Join(t.Root, "bin", "agent-batch")}
	os.Chmod(t.Dir, 0o700)
	os.Setenv("AGENTUTILS_HOME", filepath.Join(t.Dir, "home"))
	for _, kv := range []string{"GIT_AUTHOR_NAME=i", "GIT_AUTHOR_EMAIL=i@example.com", "GIT_COMMITTER_NAME=i", "GIT_COMMITTER_EMAIL=i@example.com"} {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	if err := b.startSSHD(sshd); err != nil {
		return err
	}
	if r := interop.Sh(t.Dir, "git init -q repo && echo '# answer' >repo/README.md && git -C repo add -A && git -C repo commit -qm init"); !r.OK() {
		return fmt.Errorf("git: %s", r.Why())
	}
	var tasks []string
	for i := 1; i <= 6; i++ {
		tasks = append(tasks, b.task(fmt.Sprintf("pass%d", i), "pass", ""))
	}
	tasks = append(tasks, b.task("fail", "fail", ""), b.task("turns", "loop", `,"budgets":{"turns":2}`), b.task("crash", "crash", ""))
	b.write("tasks.jsonl", tasks...)
	b.spread()
	b.rerun(tasks)
	b.interrupt()
	return nil
}

// startSSHD starts sshd on a free port of 127.0.0.1, as this user, with a
// key of its own, and writes an ssh_config for it as host2
// (PARALLEL_SSH); it is a skip when sshd cannot start or take the key.
func (b *batch) startSSHD(sshd string) error {
	for _, k := range []string{"hostkey", "userkey"} {
		if r := interop.Run(interop.Cmd(b.Dir, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k)); !r.OK() {
			return fmt.Errorf("ssh-keygen: %s", r.Why())
		}
	}
	pub, err := os.ReadFile(b.path("userkey.pub"))
	if err != nil {
		return err
	}
	b.write("authorized_keys", strings.TrimSpace(string(pub)))
	os.Chmod(b.path("authorized_keys"), 0o600)
	port, err := interop.FreePort()
	if err != nil {
		return err
	}
	b.write("sshd_config", fmt.Sprintf("Port %d", port), "ListenAddress 127.0.0.1", "HostKey "+b.path("hostkey"),
		"AuthorizedKeysFile "+b.path("authorized_keys"), "PidFile "+b.path("sshd.pid"), "StrictModes no", "UsePAM no",
		"PasswordAuthentication no", "KbdInteractiveAuthentication no", "AcceptEnv *")
	os.MkdirAll("/run/sshd", 0o755) // privilege separation's directory, when we may make it
	if err := b.Start(exec.Command(sshd, "-f", b.path("sshd_config"), "-D", "-e"), b.path("sshd.log")); err != nil {
		return interop.Skip("sshd could not start: %v", err)
	}
	u, err := user.Current()
	if err != nil {
		return err
	}
	b.write("ssh_config", "Host host2", "  HostName 127.0.0.1", fmt.Sprintf("  Port %d", port), "  User "+u.Username,
		"  IdentityFile "+b.path("userkey"), "  IdentitiesOnly yes", "  StrictHostKeyChecking no",
		"  UserKnownHostsFile /dev/null", "  LogLevel ERROR", "  BatchMode yes")
	for range 50 {
		if interop.Run(exec.Command("ssh", "-F", b.path("ssh_config"), "host2", "true")).OK() {
			os.Setenv("PARALLEL_SSH", "ssh -F "+b.path("ssh_config"))
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(b.path("sshd.log"))
	return interop.Skip("sshd could not start or accept a key here: %s", interop.Tail(string(log), 3))
}

func (b *batch) path(name string) string { return filepath.Join(b.Dir, name) }

// write writes lines to a file of the work directory.
func (b *batch) write(name string, lines ...string) {
	os.WriteFile(b.path(name), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// task is a tasks-file line for the scripted model's cassette on the
// scratch repository.
func (b *batch) task(id, cassette, extra string) string {
	return interop.BatchTask(b.Root, id, b.path("repo"), "anthropic/claude-sonnet-4-5", cassette, extra)
}

// agentBatch runs agent-batch in the work directory.
func (b *batch) agentBatch(args ...string) interop.Result {
	return interop.Run(interop.Cmd(b.Dir, nil, b.bin, append([]string{"--retries", "0", "-j", "2"}, args...)...))
}

// read is a file of the work directory ("" when missing).
func (b *batch) read(name string) string {
	data, _ := os.ReadFile(b.path(name))
	return string(data)
}

// contains reports whether a file matching glob holds s.
func (b *batch) contains(glob, s string) bool {
	files, _ := filepath.Glob(b.path(glob))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, []byte(s)) {
			return true
		}
	}
	return false
}

// count is the number of files matching glob.
func (b *batch) count(glob string) int {
	files, _ := filepath.Glob(b.path(glob))
	return len(files)
}

// spread runs the nine tasks over both hosts.
func (b *batch) spread() {
	r := b.agentBatch("-S", "2/:,2/host2", "-o", "out", "tasks.jsonl")
	results := b.read("out/results.jsonl")
	n := strings.Count(results, "\n")
	b.Check("9 of 9 results", n == 9, fmt.Sprintf("%d results; agent-batch: %s", n, r.Why()))
	b.Check("9 sessions", b.count("out/sessions/*/*.jsonl") == 9, fmt.Sprintf("%d", b.count("out/sessions/*/*.jsonl")))
	hosts := map[string]bool{}
	for _, row := range joblog(b.read("out/joblog")) {
		hosts[row.host] = true
	}
	b.Check("both sshlogins in the joblog", len(hosts) == 2, fmt.Sprintf("%v", hosts))
	passed := strings.Count(results, `"outcome":"passed"`)
	b.Check("outcomes: 6 passed", passed == 6, fmt.Sprintf("%d passed", passed))
}

// rerun stops a task mid-run (agent-batch --timeout: the runner's own
// deadline, so on either host; parallel's kill over ssh may be a SIGKILL
// that leaves no result): it is reported as interrupted, its session kept;
// a re-run with --retry-failed runs it again (to its 8 s wall budget) and
// a new task, and nothing else.
func (b *batch) rerun(tasks []string) {
	tasks = append(tasks, b.task("slow", "slow", `,"budgets":{"wallSeconds":8}`))
	b.write("tasks.jsonl", tasks...)
	b.agentBatch("-S", "2/host2", "-o", "out", "-t", "3", "tasks.jsonl") // the others have run: only slow, over ssh
	host := ""
	for _, row := range joblog(b.read("out/joblog")) {
		if strings.Contains(row.line, `"id":"slow"`) {
			host = row.host
		}
	}
	b.Check("killed task ran over ssh", host == "host2", "on "+host)
	b.Check("killed task reported", strings.Contains(b.read("out/results/slow.json"), `"outcome":"error","reason":"interrupted"`), b.read("out/results/slow.json"))
	b.Check("killed task's session", b.contains("out/sessions/slow/*.jsonl", "sleep 30"), "no sleep 30 in it")
	before := b.count("out/sessions/*/*.jsonl")
	tasks = append(tasks, b.task("late", "pass", ""))
	b.write("tasks.jsonl", tasks...)
	b.agentBatch("-S", "2/:,2/host2", "-o", "out", "--retry-failed", "tasks.jsonl")
	after := b.count("out/sessions/*/*.jsonl")
	b.Check("re-run ran only the killed task and the new one", after == before+2, fmt.Sprintf("%d sessions before, %d after", before, after))
	b.Check("late passed", strings.Contains(b.read("out/results/late.json"), `"outcome":"passed"`), b.read("out/results/late.json"))
	b.Check("slow ran to its wall budget", strings.Contains(b.read("out/results/slow.json"), `"outcome":"budget","reason":"wall"`), b.read("out/results/slow.json"))
	stats := interop.Run(interop.Cmd(b.Dir, nil, "agent-session", "stats", "out/results.jsonl"))
	var s struct {
		Total json.RawMessage `json:"total"`
	}
	json.Unmarshal([]byte(stats.Stdout), &s)
	b.Note("agent-session stats: %s", s.Total)
}

// interrupt sends ^C to a batch whose tasks run over ssh: the remote
// runners stop (parallel kills its ssh clients; its wrapper on the remote
// host sends TERM when sshd goes), write their results (interrupted) and
// remove their clones; nothing of theirs is left in the process table.
func (b *batch) interrupt() {
	clones := b.path("clones")
	os.Mkdir(clones, 0o755)
	b.write("ctrlc.jsonl", b.task("ctrlc1", "slow", ""), b.task("ctrlc2", "slow", ""))
	cmd := interop.Cmd(b.Dir, nil, b.bin, "--retries", "0", "-j", "2", "-S", "2/host2", "-o", "out", "ctrlc.jsonl", "--", "--work-dir", clones)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		b.Fail("^C over ssh: agent-batch", err.Error())
		return
	}
	for range 300 {
		if len(inDir(clones)) >= 2 && b.contains("out/sessions/ctrlc1/*.jsonl", "sleep 30") && b.contains("out/sessions/ctrlc2/*.jsonl", "sleep 30") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	cmd.Wait()
	left := func() []string {
		entries, _ := os.ReadDir(clones)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	for range 300 {
		if len(inDir(clones)) == 0 && len(left()) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Check("^C over ssh: no process left in the clones", len(inDir(clones)) == 0, "processes "+strings.Join(inDir(clones), " "))
	b.Check("^C over ssh: the clones removed", len(left()) == 0, strings.Join(left(), " "))
	var seen []string
	n := 0
	for _, id := range []string{"ctrlc1", "ctrlc2"} {
		var r struct{ Outcome, Reason, Host string }
		if json.Unmarshal([]byte(b.read("out/results/"+id+".json")), &r) != nil {
			seen = append(seen, id+": no result")
			continue
		}
		if r.Reason == "interrupted" {
			n++
		}
		by := "its runner" // agent-batch's own (its runner was stopped without writing one) names no host
		if r.Host == "" {
			by = "agent-batch"
		}
		seen = append(seen, id+": "+r.Outcome+" "+r.Reason+" (written by "+by+")")
	}
	b.Check("^C over ssh: both results say interrupted", n == 2, strings.Join(seen, ", "))
	b.Note("^C over ssh: %s", strings.Join(seen, ", "))
	b.resumeInterrupted()
}

// resumeInterrupted re-runs the ^C'd batch with --retry-failed, a task
// that has a result (pass1) added: only the two interrupted tasks run
// again (each stops itself after 2 s, -t).
func (b *batch) resumeInterrupted() {
	ids := []string{"ctrlc1", "ctrlc2", "pass1"}
	count := func() []int {
		var n []int
		for _, id := range ids {
			n = append(n, b.count("out/sessions/"+id+"/*.jsonl"))
		}
		return n
	}
	before := count()
	b.write("ctrlc.jsonl", b.task("ctrlc1", "slow", ""), b.task("ctrlc2", "slow", ""), b.task("pass1", "pass", ""))
	r := b.agentBatch("-S", "2/host2", "-o", "out", "-t", "2", "--retry-failed", "ctrlc.jsonl")
	after := count()
	want := []int{before[0] + 1, before[1] + 1, before[2]}
	b.Check("^C over ssh: the resumed batch re-ran exactly the interrupted tasks", fmt.Sprint(after) == fmt.Sprint(want),
		fmt.Sprintf("sessions of %v: %v before, %v after (want %v); agent-batch: %s", ids, before, after, want, r.Why()))
}

// inDir are the processes whose working directory is under dir.
func inDir(dir string) []string {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []string
	for _, p := range procs {
		if cwd, err := os.Readlink(p + "/cwd"); err == nil && strings.HasPrefix(cwd, dir+"/") {
			pids = append(pids, filepath.Base(p))
		}
	}
	return pids
}

// jobRow is a line of GNU parallel's joblog.
type jobRow struct{ host, line string }

// joblog are the rows of a parallel --joblog file (tab-separated: Seq,
// Host, Starttime, JobRuntime, Send, Receive, Exitval, Signal, Command),
// its header left out.
func joblog(s string) []jobRow {
	var rows []jobRow
	for _, l := range strings.Split(s, "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 2 || f[0] == "Seq" {
			continue
		}
		rows = append(rows, jobRow{host: f[1], line: l})
	}
	return rows
}

package jobs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func start(t *testing.T, dir, script string, o Options) Job {
	t.Helper()
	o.Command, o.Cwd, o.Env, o.Now = script, t.TempDir(), []string{"PATH=" + os.Getenv("PATH")}, time.Now()
	j, err := Start(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// alive reports whether pid still runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func TestJobLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jobs")
	owner, err := Own(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	j := start(t, dir, "echo started; echo $$ > "+filepath.Join(dir, "pid")+"; sleep 300", Options{Max: 2})
	if j.ID != "1" || j.State != Running {
		t.Fatalf("job %+v, want 1 running", j)
	}
	done := start(t, dir, "printf 'a\\nb\\n'; exit 3", Options{})
	Wait(dir, done.ID)
	got, err := Get(dir, done.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Exited || got.ExitCode == nil || *got.ExitCode != 3 || got.Bytes != 4 {
		t.Errorf("ended job %+v, want exited with 3 after 4 bytes", got)
	}
	c, err := Output(dir, done.ID, 2, 100)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Chunk{Text: []byte("b\n"), From: 2, Next: 4, Size: 4}, c); diff != "" {
		t.Errorf("Output from 2 (-want +got):\n%s", diff)
	}
	// the most at once
	start(t, dir, "sleep 300", Options{Max: 2})
	if _, err := Start(dir, Options{Command: "true", Max: 2, Now: time.Now()}); err == nil || !strings.Contains(err.Error(), "2 background jobs are running") {
		t.Errorf("a third job at Max 2: %v", err)
	}
	for !strings.Contains(read(t, dir, "pid"), "\n") {
		time.Sleep(10 * time.Millisecond)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(read(t, dir, "pid")))
	k, err := Kill(dir, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if k.State != Killed || alive(pid) {
		t.Errorf("killed job %+v; its shell %d alive: %v", k, pid, alive(pid))
	}
	if !MarkReported(dir, k.ID) || MarkReported(dir, k.ID) {
		t.Error("MarkReported is true once")
	}
	// the owner's end kills the rest
	owner.Close()
	Wait(dir, "3")
	if g, _ := Get(dir, "3"); g.State != Orphaned {
		t.Errorf("job 3 after its owner ended: %+v", g)
	}
}

func TestKeepOutlivesOwner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jobs")
	owner, err := Own(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := start(t, dir, "sleep 300", Options{Keep: true})
	owner.Close()
	if g, _ := Get(dir, j.ID); g.State != Running || !g.Keep {
		t.Fatalf("kept job after its owner ended: %+v", g)
	}
	if g, _ := Kill(dir, j.ID); g.State != Killed {
		t.Errorf("kept job killed: %+v", g)
	}
}

func TestOutputCap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "jobs")
	owner, err := Own(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	// 40000 lines of 100 bytes: 4 MB through a 64 KiB cap
	j := start(t, dir, `for i in $(seq 1 40000); do printf '%099d\n' $i; done`, Options{Cap: 64 << 10})
	Wait(dir, j.ID)
	g, _ := Get(dir, j.ID)
	if g.Bytes != 4000000 {
		t.Fatalf("job wrote %d bytes, want 4000000", g.Bytes)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(dir, j.ID, "output"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != 4000000 || st.Blocks*512 > 200<<10 {
		t.Errorf("output file: %d bytes long, %d on disk; want 4000000 long and at most 200 KiB kept", st.Size, st.Blocks*512)
	}
	tail, _ := Output(dir, j.ID, -1, 200)
	if !strings.HasSuffix(string(tail.Text), "40000\n") || tail.Next != 4000000 {
		t.Errorf("tail %q next %d", tail.Text, tail.Next)
	}
	head, _ := Output(dir, j.ID, 0, 100)
	if head.Dropped == 0 || head.From < 4000000-(100<<10) || head.Text[0] == 0 {
		t.Errorf("from 0: %+v, want the first kept bytes after a dropped part", head)
	}
}

func read(t *testing.T, dir, name string) string {
	b, _ := os.ReadFile(filepath.Join(dir, name))
	return string(b)
}

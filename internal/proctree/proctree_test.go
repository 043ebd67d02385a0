//go:build linux

package proctree

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillTreeOrphan: a child that left its shell's tree (`sleep 30 &`,
// then the shell exits: it is reparented) and its process group (setsid)
// is found by the marker it inherited and killed.
func TestKillTreeOrphan(t *testing.T) {
	marker := fmt.Sprintf("PROCTREE_TEST=%d.%d", os.Getpid(), time.Now().UnixNano())
	cmd := exec.Command("sh", "-c", "setsid sleep 30 >/dev/null 2>&1 & echo $!")
	cmd.Env = append(os.Environ(), marker)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("sh or setsid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	found := false
	for _, p := range Descendants(0, marker) {
		found = found || p == pid
	}
	if !found {
		t.Fatalf("the orphan %d is not found by its marker", pid)
	}
	KillTree(0, marker, syscall.SIGKILL)
	for syscall.Kill(pid, 0) == nil {
		// the kill is sent; the process may be a zombie of init a moment
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if strings.Contains(string(st), ") Z ") || len(st) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ps := Descendants(0, marker); len(ps) != 0 {
		t.Errorf("left: %v", ps)
	}
}

// TestReaderGone: the channel closes when the last reader of a pipe, or
// the peer of a socket, goes; a regular file is never watched.
func TestReaderGone(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	sp, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(sp[0])
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ReaderGone(int(f.Fd())) != nil {
		t.Error("a regular file is watched")
	}
	for _, tc := range []struct {
		name        string
		fd          int
		closeReader func()
	}{
		{"pipe", int(pw.Fd()), func() { pr.Close() }},
		{"socket", sp[0], func() { syscall.Close(sp[1]) }},
	} {
		gone := ReaderGone(tc.fd)
		if gone == nil {
			t.Fatalf("%s: not watched", tc.name)
		}
		select {
		case <-gone:
			t.Fatalf("%s: gone while the reader is there", tc.name)
		default:
		}
		tc.closeReader()
		<-gone // a broken build hangs here: go test's -timeout reports it
	}
}

package tools

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// descendants lists the processes to kill after a bash call: those below
// pid in the parent tree, and those whose environment carries marker (a
// setsid or double-forked child whose parent has gone, so that it hangs
// under init now, still inherited it). A process that cleared its
// environment and lost its parent is not found.
func descendants(pid int, marker string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	var found []int
	seen := map[int]bool{}
	me := os.Getpid()
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == me {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			// pid (comm) state ppid ...: comm may hold spaces and parens
			if i := bytes.LastIndexByte(st, ')'); i > 0 {
				if f := strings.Fields(string(st[i+1:])); len(f) > 1 {
					parent[p], _ = strconv.Atoi(f[1])
				}
			}
		}
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytes.Contains(env, []byte("\x00"+marker+"\x00")) {
			found, seen[p] = append(found, p), true
		}
	}
	for p := range parent {
		for q, n := p, 0; q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == pid && !seen[p] {
				found, seen[p] = append(found, p), true
				break
			}
		}
	}
	return found
}

// killTree sends sig to the process group of pid and to every process
// descendants finds, until a scan finds none (new forks race the first
// scans) or after a few rounds.
func killTree(pid int, marker string, sig syscall.Signal) {
	syscall.Kill(-pid, sig)
	for range 8 {
		ps := descendants(pid, marker)
		if len(ps) == 0 {
			return
		}
		for _, p := range ps {
			syscall.Kill(p, sig)
		}
		if sig != syscall.SIGKILL {
			return
		}
	}
}

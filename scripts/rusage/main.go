// Command rusage runs a command and writes what it cost to a file, as
// GNU time -f '%e_%U_%S_%M' does but in microseconds rather than ticks of
// 10 ms (a steady turn's stages take a few ms each): wall, user and system
// seconds (the command's and the children it waited for), then the peak
// RSS in KB. stdin, stdout and stderr are the command's; the exit status
// is its (128+N when signal N ended it).
//
// With -limit, the command runs in a process group of its own, and past
// the limit that whole group is killed (SIGKILL): the line then ends in
// "_limit", its figures those of the run up to the kill. Whatever ends
// rusage itself kills the command too (the parent-death signal).
//
// scripts/internal/bench starts every command it measures under it. The
// kernel counts in a process's peak RSS the memory of the process it was
// started from up to its exec (Go starts a command with vfork: the parent's
// whole memory), so a command started by a harness holding 100 MB reads as
// 100 MB. This program is that parent instead, and keeps itself small: it
// uses syscall and no fmt, flag, os/exec or os/signal, which brings the
// floor it sets under a tiny command (true) from 2.5 MB to 1.9-2.0 MB (GNU
// time's is 1.0 MB, but it rounds CPU to 10 ms, and the project does not
// install it).
//
//	rusage -o t.1 [-limit 60s] agent-session open s.jsonl > stream
package main

import (
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

const usage = "usage: rusage -o FILE [-limit DURATION] COMMAND [ARG...]\n"

func main() {
	out, limit, argv := "", time.Duration(0), os.Args[1:]
	for len(argv) >= 2 && (argv[0] == "-o" || argv[0] == "-limit") {
		if argv[0] == "-o" {
			out = argv[1]
		} else {
			d, err := time.ParseDuration(argv[1])
			if err != nil || d <= 0 {
				fail(2, "rusage: -limit "+argv[1]+": want a positive duration such as 60s\n")
			}
			limit = d
		}
		argv = argv[2:]
	}
	if out == "" || len(argv) == 0 {
		fail(2, usage)
	}
	// Pdeathsig is sent when the thread that started the command ends:
	// this one, which lives as long as the program.
	runtime.LockOSThread()
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Setpgid: limit > 0, Pdeathsig: syscall.SIGKILL}}
	t0 := time.Now()
	pid, err := syscall.ForkExec(lookPath(argv[0]), argv, attr)
	if err != nil {
		fail(127, "rusage: "+argv[0]+": "+err.Error()+"\n")
	}
	var killed atomic.Bool
	var timer *time.Timer
	if limit > 0 {
		timer = time.AfterFunc(limit, func() { killed.Store(true); syscall.Kill(-pid, syscall.SIGKILL) })
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	wall := time.Since(t0)
	if timer != nil {
		timer.Stop()
	}
	if err != nil {
		fail(127, "rusage: wait: "+err.Error()+"\n")
	}
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 6, 64) }
	line := sec(wall) + "_" + sec(time.Duration(ru.Utime.Nano())) + "_" + sec(time.Duration(ru.Stime.Nano())) +
		"_" + strconv.FormatInt(ru.Maxrss, 10)
	if killed.Load() {
		line += "_limit"
	}
	if err := os.WriteFile(out, []byte(line+"\n"), 0o644); err != nil {
		fail(127, "rusage: "+err.Error()+"\n")
	}
	status := ws.ExitStatus()
	if ws.Signaled() {
		status = 128 + int(ws.Signal())
	}
	os.Exit(status)
}

// lookPath is name's file in $PATH when name has no slash (as a shell
// finds it), else name.
func lookPath(name string) string {
	for _, c := range name {
		if c == '/' {
			return name
		}
	}
	dirs := os.Getenv("PATH")
	for len(dirs) > 0 {
		dir := dirs
		for i, c := range dirs {
			if c == ':' {
				dir = dirs[:i]
				break
			}
		}
		dirs = dirs[min(len(dir)+1, len(dirs)):]
		if dir == "" {
			dir = "."
		}
		if st, err := os.Stat(dir + "/" + name); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return dir + "/" + name
		}
	}
	return name
}

func fail(status int, msg string) {
	os.Stderr.WriteString(msg)
	os.Exit(status)
}

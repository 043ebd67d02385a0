// Command rusage runs a command and writes what it cost to a file, as
// GNU time -f '%e_%U_%S_%M' does but in microseconds rather than ticks of
// 10 ms (a steady turn's stages take a few ms each): wall, user and system
// seconds, then the peak RSS in KB. stdin, stdout and stderr are the
// command's; the exit status is its. SIGTERM, SIGINT and SIGHUP are passed
// on to the command. scripts/internal/bench starts every command it
// measures under it: a process forked by a large parent keeps the parent's
// peak RSS in its own, one forked by this small program does not.
//
//	rusage -o t.1 agent-session open s.jsonl > stream
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "the file to write wall_user_sys_rsskb to")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: rusage -o FILE COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	t0 := time.Now()
	err := cmd.Start()
	if err == nil {
		go func() {
			for s := range sig {
				cmd.Process.Signal(s)
			}
		}()
		err = cmd.Wait()
	}
	wall := time.Since(t0)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var user, sys float64
	var rss int64
	if ru != nil {
		user = float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6
		sys = float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6
		rss = int64(ru.Maxrss)
	}
	os.WriteFile(*out, fmt.Appendf(nil, "%.6f_%.6f_%.6f_%d\n", wall.Seconds(), user, sys, rss), 0o644)
	os.Exit(cmd.ProcessState.ExitCode())
}

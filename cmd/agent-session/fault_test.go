package main

// Fault tests against the real binary: concurrent appenders and appenders
// killed with SIGKILL at random points. They check what a user relies on:
// the file always opens, and every record append acknowledged is there.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/testbin"
)

func sessionBinary(t *testing.T) string {
	t.Helper()
	dir, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "agent-session")
}

func userEvent(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "message_end", "message": map[string]any{
		"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}, "timestamp": 1}})
	return string(b)
}

type entry struct {
	Type     string  `json:"type"`
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"`
	Message  struct {
		Content []struct{ Text string } `json:"content"`
	} `json:"message"`
}

// entries opens the file with --all and decodes every entry (exit 0 required).
func entries(t *testing.T, bin, file string) []entry {
	t.Helper()
	cmd := exec.Command(bin, "open", "--all", file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("open failed: %v\n%s", err, stderr.String())
	}
	var es []entry
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for first := true; sc.Scan(); first = false {
		if first {
			continue
		}
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line from open: %v: %s", err, sc.Bytes())
		}
		es = append(es, e)
	}
	return es
}

func TestConcurrentAppenders(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 8 processes")
	}
	bin := sessionBinary(t)
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "s.jsonl")
	const writers, per = 8, 500
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			cmd := exec.Command(bin, "append", file)
			cmd.Env = append(os.Environ(), "AGENTUTILS_HOME="+home)
			var in bytes.Buffer
			for i := 0; i < per; i++ {
				fmt.Fprintln(&in, userEvent(fmt.Sprintf("w%d-%d", w, i)))
			}
			cmd.Stdin = &in
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %d: %v: %s", w, err, out)
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	es := entries(t, bin, file)
	if len(es) != writers*per {
		t.Fatalf("%d entries, want %d", len(es), writers*per)
	}
	ids := map[string]bool{}
	seen := map[string]bool{}
	var prev = map[int]string{}
	for i, e := range es {
		if ids[e.ID] {
			t.Fatalf("duplicate id %s", e.ID)
		}
		ids[e.ID] = true
		text := e.Message.Content[0].Text
		seen[text] = true
		// every entry's parent is the entry before it in the file: one chain
		if i == 0 && e.ParentID != nil || i > 0 && (e.ParentID == nil || *e.ParentID != es[i-1].ID) {
			t.Fatalf("entry %d (%s) breaks the parent chain", i, text)
		}
		var w, n int
		fmt.Sscanf(text, "w%d-%d", &w, &n)
		if p, ok := prev[w]; ok && p != fmt.Sprintf("w%d-%d", w, n-1) {
			t.Fatalf("writer %d out of order: %s after %s", w, text, p)
		}
		prev[w] = text
	}
	if len(seen) != writers*per {
		t.Fatalf("%d distinct records, want %d", len(seen), writers*per)
	}
}

// TestKilledAppenders kills appenders at random points, on both formats:
// a torn .jsonl line and a torn .jsonl.zst frame are skipped on read and
// cut before the next append (40 rounds each).
func TestKilledAppenders(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills many processes")
	}
	for _, name := range []string{"s.jsonl", "s.jsonl.zst"} {
		t.Run(name, func(t *testing.T) { killedAppenders(t, name) })
	}
}

func killedAppenders(t *testing.T, name string) {
	bin := sessionBinary(t)
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), name)
	rng := rand.New(rand.NewSource(1))
	acked := map[string]bool{}
	n := 0
	for round := 0; round < 40; round++ {
		cmd := exec.Command(bin, "append", "--tee", file)
		cmd.Env = append(os.Environ(), "AGENTUTILS_HOME="+home)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { // collect acknowledgements (lines echoed after fsync)
			defer close(done)
			sc := bufio.NewScanner(stdout)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var ev struct {
					Message struct{ Content []struct{ Text string } } `json:"message"`
				}
				if json.Unmarshal(sc.Bytes(), &ev) == nil && len(ev.Message.Content) > 0 {
					acked[ev.Message.Content[0].Text] = true
				}
			}
		}()
		deadline := time.After(time.Duration(rng.Intn(40)+5) * time.Millisecond)
	feed:
		for {
			select {
			case <-deadline:
				break feed
			default:
			}
			n++
			// big lines sometimes, so a kill can land inside a write
			text := fmt.Sprintf("r%d-%d", round, n)
			if rng.Intn(10) == 0 {
				text += string(bytes.Repeat([]byte("x"), 200000))
			}
			if _, err := io.WriteString(stdin, userEvent(text)+"\n"); err != nil {
				break
			}
			if rng.Intn(4) == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		stdin.Close()
		<-done
		cmd.Wait()

		es := entries(t, bin, file)
		have := map[string]bool{}
		for _, e := range es {
			if len(e.Message.Content) > 0 {
				txt := e.Message.Content[0].Text
				if len(txt) > 40 {
					txt = txt[:bytes.IndexByte([]byte(txt), 'x')]
				}
				have[txt] = true
			}
		}
		for a := range acked {
			key := a
			if i := bytes.IndexByte([]byte(a), 'x'); i > 0 {
				key = a[:i]
			}
			if !have[key] {
				t.Fatalf("round %d: acknowledged record %.40q missing from the file", round, a)
			}
		}
	}
	if len(acked) == 0 {
		t.Fatal("no record was ever acknowledged: the test measured nothing")
	}
}

// TestTornTail cuts the last append short at every kind of offset (inside
// a line, inside a zstd frame header, block or checksum), as a kill or a
// crash in the middle of a write leaves it: open still shows every earlier
// record, and the next append succeeds and is read back.
func TestTornTail(t *testing.T) {
	bin := sessionBinary(t)
	home := t.TempDir()
	run := func(file, stdin string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "AGENTUTILS_HOME="+home)
		cmd.Stdin = bytes.NewReader([]byte(stdin))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return string(out), fmt.Errorf("%v: %s", err, stderr.String())
		}
		return string(out), nil
	}
	for _, name := range []string{"s.jsonl", "s.jsonl.zst"} {
		for _, cut := range []int{1, 2, 3, 5, 9, 13, 40, 120} {
			t.Run(fmt.Sprintf("%s-%d", name, cut), func(t *testing.T) {
				if name == "s.jsonl" && cut == 1 {
					t.Skip("without its newline the last line is still whole")
				}
				file := filepath.Join(t.TempDir(), name)
				if _, err := run(file, userEvent("one")+"\n"+userEvent("two")+"\n", "append", file); err != nil {
					t.Fatal(err)
				}
				st, _ := os.Stat(file)
				before := st.Size()
				if _, err := run(file, userEvent("three "+string(bytes.Repeat([]byte("y"), 100)))+"\n", "append", file); err != nil {
					t.Fatal(err)
				}
				st, _ = os.Stat(file)
				if int64(cut) >= st.Size()-before {
					t.Skip("append shorter than the cut")
				}
				os.Truncate(file, st.Size()-int64(cut))
				texts := func() []string {
					var out []string
					for _, e := range entries(t, bin, file) {
						if len(e.Message.Content) > 0 {
							out = append(out, e.Message.Content[0].Text)
						}
					}
					return out
				}
				if got := texts(); len(got) != 2 || got[0] != "one" || got[1] != "two" {
					t.Fatalf("after the cut: %q, want one, two", got)
				}
				if _, err := run(file, userEvent("four")+"\n", "append", file); err != nil {
					t.Fatalf("append after the cut: %v", err)
				}
				if got := texts(); len(got) != 3 || got[2] != "four" {
					t.Fatalf("after the next append: %q, want one, two, four", got)
				}
			})
		}
	}
}

// TestOneSignalEndsABlockedCommand: open blocked on a FIFO nobody writes
// (where the context does not reach) still ends on one SIGTERM, with 130.
func TestOneSignalEndsABlockedCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the signal grace period")
	}
	bin := sessionBinary(t)
	fifo := filepath.Join(t.TempDir(), "s.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin, "open", fifo)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // let it block in open(2)
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running 60 s after one signal", sig)
		}
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("%v: exit %d, want 130", sig, code)
		}
	}
}

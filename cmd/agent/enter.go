package main

import (
	"bytes"
	"os"
	"strings"
	"sync"

	"github.com/muesli/cancelreader"
)

// Enter's prompt goes to the run started ahead (ahead.go) from the
// terminal's reader, as soon as the key is read: before bubbletea decodes
// it and hands it to the program's loop (a goroutine to wake, on another
// thread), and before the loop's work on it. The loop then does what enter
// does (history, the editor, the echo, the run's reader) as ever, and
// finds the prompt sent.
//
// The reader sends only what the loop would send, for a state the loop
// has caught up with:
//   - the read is a lone carriage return (Enter, unmodified: Alt+Enter is
//     ESC CR, a paste comes bracketed), and bubbletea holds nothing of an
//     earlier read (the read before was short and ended no paste's middle);
//   - the loop has handled every key read before it: after each read, the
//     reader sends the loop a fence (fenceMsg) once bubbletea has handed
//     over that read's keys, and the reader acts only when the loop has
//     handled the fence of the read before;
//   - no message is being handled: the loop holds the input's lock while
//     it handles one, and the reader takes it to look at the state and
//     send the prompt;
//   - enter in that state would send the editor's text as a prompt to the
//     run started ahead (fastPrompt: no picker, approval or run, not a
//     slash command, no @path), and the session file is still the one the
//     run was started for.
// Anything else goes the ordinary way, through the loop.

// fenceMsg tells the loop that bubbletea has handed it every key of the
// terminal's reads up to this one.
type fenceMsg uint64

// input is the terminal as bubbletea reads it (a reader, not a file, so
// that bubbletea calls Read itself, with no wait of its own before).
type input struct {
	cr    cancelreader.CancelReader
	fence func(n uint64) // sends fenceMsg(n) to the loop
	enter func()         // the loop's: sends the prompt (fastEnter)
	reads uint64         // reads returned
	carry bool           // bubbletea may hold bytes of the last read
	paste bool           // the reads so far end inside a bracketed paste

	mu   sync.Mutex // held by the loop while it handles a message
	seen uint64     // the last fence the loop handled
	done bool       // the program ended
}

func newInput(f *os.File) (*input, error) {
	cr, err := cancelreader.NewReader(f)
	if err != nil {
		return nil, err
	}
	return &input{cr: cr}, nil
}

// Read reads the terminal for bubbletea, whose reader calls it again only
// once it has handed the keys of the last read to the loop.
func (in *input) Read(p []byte) (int, error) {
	if in.reads > 0 {
		in.fence(in.reads)
	}
	n, err := in.cr.Read(p)
	if n == 0 {
		return n, err
	}
	if n == 1 && p[0] == '\r' && !in.carry {
		in.fast(in.reads)
	}
	in.reads++
	in.track(p[:n], n == len(p))
	return n, err
}

// track notes what bubbletea may keep of a read for the next: a read
// that filled its buffer may end inside a key; a paste is decoded once
// its end is read.
func (in *input) track(b []byte, full bool) {
	start, end := bytes.LastIndex(b, []byte("\x1b[200~")), bytes.LastIndex(b, []byte("\x1b[201~"))
	switch {
	case start > end:
		in.paste = true
	case end >= 0:
		in.paste = false
	}
	in.carry = full || in.paste
}

// fast sends Enter's prompt when the loop has handled every key before
// it (the fence of read n) and is idle.
func (in *input) fast(n uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.seen == n && !in.done && in.enter != nil {
		in.enter()
	}
}

// handling holds the input while the loop handles a message; a fence is
// noted (true: nothing else to do).
func (in *input) handling(msg any) (fence bool) {
	in.mu.Lock()
	if f, ok := msg.(fenceMsg); ok {
		in.seen = uint64(f)
		return true
	}
	return false
}

func (in *input) handled() { in.mu.Unlock() }

// hold holds the input for a message handled outside the loop (show);
// false, holding nothing, once the program ended.
func (in *input) hold() bool {
	in.mu.Lock()
	if in.done {
		in.mu.Unlock()
		return false
	}
	return true
}

// stop ends the reads (the program has ended).
func (in *input) stop() {
	in.mu.Lock()
	in.done = true
	in.mu.Unlock()
	in.cr.Cancel()
	in.cr.Close()
}

// fastPrompt is the prompt enter would give the run started ahead in
// this state, or "" when enter would do anything else.
func (u *ui) fastPrompt() string {
	if u.ask != nil || u.denying || u.picker != nil || u.run != nil || u.busy != "" || len(u.queued) > 0 ||
		u.quit || u.quitEnd || u.ahead == nil {
		return ""
	}
	text := u.ed.String()
	if strings.HasPrefix(text, "/") || strings.Contains(text, "@") {
		return "" // a command; a word that may name a file to attach
	}
	return strings.TrimSpace(text)
}

// fastEnter sends the prompt enter would send to the run started ahead,
// from the terminal's reader (the loop is idle); takeAhead finds it sent.
// The prompt is the loop's (enterPrompt, set after each message). Of what
// the run depends on (runKey), only the session file can have changed
// since the loop's last message: keepAhead, after each, started the run
// again for anything else.
func (u *ui) fastEnter() {
	p, w := u.enterPrompt, u.ahead
	if p == "" || w.sent != "" || !w.unchanged() {
		return
	}
	<-w.ready
	if w.err == nil {
		w.sent, w.sendErr = p, w.r.send(p)
	}
}

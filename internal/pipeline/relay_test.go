package pipeline

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// pipeWriter is agent-session append's stdin as the relay sees it.
type pipeWriter struct {
	buf    bytes.Buffer
	closed chan struct{}
	fail   bool
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	if w.fail {
		return 0, errors.New("broken pipe")
	}
	return w.buf.Write(p)
}

func (w *pipeWriter) Close() error { close(w.closed); return nil }

// What the front-end reads is passed on to append byte for byte, whole
// lines only until the end, and append's stdin is closed after the last.
func TestRelayPassesEveryLine(t *testing.T) {
	pr, pw := io.Pipe()
	dst := &pipeWriter{closed: make(chan struct{})}
	r := newRelay(pr, dst)
	want := `{"type":"agent_start"}` + "\n" + `{"type":"message_update"}` + "\n" + `{"type":"agent_end"}`
	go func() {
		for _, piece := range []string{want[:5], want[5:30], want[30:]} {
			pw.Write([]byte(piece))
		}
		pw.Close()
	}()
	got, err := io.ReadAll(iotest.OneByteReader(r))
	if err != nil || string(got) != want {
		t.Fatalf("read %q, %v", got, err)
	}
	<-dst.closed
	if dst.buf.String() != want {
		t.Errorf("append got %q, want %q", dst.buf.String(), want)
	}
}

// When append stops taking its input, agent-chat's stdout is closed: the
// reader ends, and agent-chat fails writing as it did writing to append.
func TestRelayAppendGone(t *testing.T) {
	pr, pw := io.Pipe()
	dst := &pipeWriter{closed: make(chan struct{}), fail: true}
	r := newRelay(pr, dst)
	go io.Copy(io.Discard, r)
	if _, err := pw.Write([]byte(strings.Repeat("x", 10) + "\n")); err != nil {
		t.Fatal(err)
	}
	<-dst.closed
	if _, err := pw.Write([]byte("more\n")); err == nil {
		t.Error("agent-chat's stdout still open after append failed")
	}
}

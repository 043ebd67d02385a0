package main

import (
	"bytes"
	"testing"
)

// A paint that changes nothing writes nothing: no wake-up of the terminal
// (and of whoever reads it) for a message that did not change the screen.
func TestPaintUnchangedWritesNothing(t *testing.T) {
	var out bytes.Buffer
	p := &painter{out: &out, width: 40, height: 10}
	p.paint("> hello\nfooter")
	if out.Len() == 0 {
		t.Fatal("the first paint wrote nothing")
	}
	out.Reset()
	p.paint("> hello\nfooter")
	if out.Len() != 0 {
		t.Errorf("an unchanged view wrote %q", out.String())
	}
	p.println("done")
	p.paint("> hello\nfooter")
	if !bytes.Contains(out.Bytes(), []byte("done")) {
		t.Errorf("a printed line was not written: %q", out.String())
	}
}

// A printed line is written on an erased row: a tab in it (a pasted
// prompt's echo) leaves nothing of the live area drawn there before.
func TestPrintedLineErasesItsRow(t *testing.T) {
	var out bytes.Buffer
	p := &painter{out: &out, width: 40, height: 10}
	p.paint("> line one\n  \tline two\nfooter")
	out.Reset()
	p.println("\tline two")
	p.paint("> \nfooter")
	if !bytes.Contains(out.Bytes(), []byte("\x1b[2K\tline two")) {
		t.Errorf("the printed line's row was not erased first: %q", out.String())
	}
}

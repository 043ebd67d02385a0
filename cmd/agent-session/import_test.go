package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// Transcripts kept gzipped (as the corpus stores the big ones) import as
// they are.
func TestReadTranscriptGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("{\"a\":1}\n{\"b\":2}\n"))
	zw.Close()
	p := filepath.Join(t.TempDir(), "t.jsonl.gz")
	os.WriteFile(p, buf.Bytes(), 0o644)
	lines, err := readTranscript(p)
	if err != nil || len(lines) != 2 || string(lines[1]) != `{"b":2}` {
		t.Fatalf("%q %v", lines, err)
	}
	os.WriteFile(p, []byte{0x1f, 0x8b, 0}, 0o644)
	if _, err := readTranscript(p); err == nil {
		t.Error("a broken gzip file is an error")
	}
}

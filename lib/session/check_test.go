package session

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckRecord(t *testing.T) {
	ok := []string{
		`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}`,
		`{"type":"model_change","provider":"anthropic","modelId":"claude-sonnet-4-5"}`,
		`{"type":"model_change","id":"m","parentId":null,"timestamp":"t","model":"openai/gpt-5","role":"fast"}`,
		`{"type":"message","message":{"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}}`,
		`{"type":"message","message":{"role":"assistant","content":[],"stopReason":"aborted","usage":{"input":1,"output":2}}}`,
		`{"type":"message","message":{"role":"someNewRole","anything":1}}`,
		`{"type":"a_new_entry_type","x":[1]}`,
	}
	for _, s := range ok {
		if err := checkRecord([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := map[string]string{
		`{"type":"message"}`:                           `no "message"`,
		`{"type":"message","message":{"role":"user"}}`: `message: no "content"`,
		`{"type":"message","message":{"role":"assistant","content":[],"stopReason":"done"}}`:                                                            `"stopReason" is "done"`,
		`{"type":"message","message":{"role":"toolResult","toolName":"x","content":[],"isError":false}}`:                                                `no "toolCallId"`,
		`{"type":"message","message":{"role":"user","content":[{"type":"video"}]}}`:                                                                     `block type "video"`,
		`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"r","arguments":"{}"}],"stopReason":"toolUse"}}`: `"arguments" is a string`,
		`{"type":"model_change","provider":"anthropic"}`:                                                                                                `no "modelId"`,
		`{"type":"model_change","model":"gpt"}`:                                                                                                         `want "provider/id"`,
		`{"type":"session","version":4,"id":"s"}`:                                                                                                       `"version" is 4`,
		`{"type":"label","targetId":""}`:                                                                                                                `"targetId" is empty`,
		`{"type":"compaction","summary":"s","firstKeptEntryId":"a","tokensBefore":-1}`:                                                                  `negative`,
		`{"type":"message","id":5,"message":{"role":"user","content":"x"}}`:                                                                             `"id" is a number`,
	}
	for s, want := range bad {
		err := checkRecord([]byte(s))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", s, err, want)
		}
	}
}

// Every record of pi's own files (../shared/corpus, when present) passes,
// once a v1 file is migrated as agent-session open migrates it.
func TestCheckRecordPiCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/transcripts/pi/*")
	if len(files) == 0 {
		t.Skip("../shared/corpus absent")
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = fh
		if strings.HasSuffix(f, ".gz") {
			if r, err = gzip.NewReader(fh); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := io.ReadAll(r)
		fh.Close()
		var recs []Record
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if rec, err := ParseRecord(sc.Bytes()); err == nil {
				recs = append(recs, rec)
			}
		}
		n := 0
		header, entries, _, err := Migrate(recs[0].Raw, recs[1:], func() string { n++; return fmt.Sprintf("e%d", n) })
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := checkRecord(header); err != nil {
			t.Errorf("%s: header: %v", filepath.Base(f), err)
		}
		for i, rec := range entries {
			if err := checkRecord(rec.Raw); err != nil {
				t.Errorf("%s: record %d: %v", filepath.Base(f), i+1, err)
			}
		}
	}
}

func FuzzCheckRecord(f *testing.F) {
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"x"}]}}`))
	f.Add([]byte(`{"type":"model_change","provider":"a","modelId":"b"}`))
	f.Fuzz(func(t *testing.T, b []byte) { checkRecord(b) })
}

// checkRecord checks one line as CheckView does, the members read
// without Decode's checks of the base fields (so its errors are the
// checker's).
func checkRecord(raw []byte) error {
	top, err := memberMap(raw)
	if err != nil {
		return err
	}
	return checkTop(top)
}

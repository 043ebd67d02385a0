package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/jsonschema"
)

// startServe runs serve over real pipes and returns the writer to its
// stdin and a reader of its stdout records.
func startServe(t *testing.T, dir string) (io.WriteCloser, *bufio.Scanner, chan error) {
	t.Helper()
	ts, err := tools.Select(nil, "replace")
	if err != nil {
		t.Fatal(err)
	}
	var defs []event.ToolDef
	for _, tl := range ts {
		defs = append(defs, tl.Def)
	}
	v, err := jsonschema.NewValidator(defs)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	env := &tools.Env{Cwd: dir, StateDir: filepath.Join(dir, ".state"), Now: time.Now, Getenv: os.Getenv, EditMode: "replace"}
	done := make(chan error, 1)
	go func() {
		done <- serve(context.Background(), ts, env, &gate{valid: v, errw: io.Discard}, inR, outW)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return inW, sc, done
}

func TestServeCancelAndCorrelation(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	in, out, done := startServe(t, dir)
	send := func(s string) {
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"type":"hello","cwd":"` + dir + `"}`)
	if !out.Scan() || !strings.HasPrefix(out.Text(), `{"type":"tools"`) {
		t.Fatalf("first record = %q, want tools", out.Text())
	}
	// A long bash call, then a malformed line, a read, and a cancel of the bash call.
	send(`{"type":"call","id":"long","name":"bash","arguments":{"command":"sleep 600","timeout":3600}}`)
	send(`not json`)
	send(`{"type":"call","id":"r1","name":"read","arguments":{"path":"a.txt"}}`)
	send(`{"type":"call","id":"bad","name":"teleport","arguments":{}}`)
	send(`{"type":"cancel","id":"long"}`)
	in.Close()

	results := map[string]event.Result{}
	logs := 0
	for out.Scan() {
		msg, err := event.DecodeTool(out.Bytes())
		if err != nil {
			t.Fatalf("serve wrote a bad record %q: %v", out.Text(), err)
		}
		switch m := msg.(type) {
		case *event.Result:
			if _, dup := results[m.ID]; dup {
				t.Errorf("two results for %s", m.ID)
			}
			results[m.ID] = *m
		case *event.Log:
			logs++
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if logs != 1 {
		t.Errorf("logs = %d, want 1 (the malformed line)", logs)
	}
	if r := results["r1"]; r.IsError || !strings.Contains(r.Content[0].Text, "alpha") {
		t.Errorf("r1 = %+v", r)
	}
	if r := results["bad"]; !r.IsError || !strings.Contains(r.Content[0].Text, "teleport") {
		t.Errorf("bad = %+v", r)
	}
	if r, ok := results["long"]; !ok || !r.IsError {
		t.Errorf("long = %+v, want an error result after cancel", r)
	}
	b, _ := json.Marshal(results["long"].Content)
	if !strings.Contains(strings.ToLower(string(b)), "abort") {
		t.Errorf("long result %s does not say it was aborted", b)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/app"
)

// TestStatsTerminal: a table for people on a terminal, JSON in a pipe and
// with --json, and the cost summed to a millionth (three prices that add to
// 0.042675000000000005 in floating point).
func TestStatsTerminal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	rec := func(id, cost string) string {
		return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":` + cost + `}},"stopReason":"stop","timestamp":1}}` + "\n"
	}
	data := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n" +
		rec("a1", "0.014225") + rec("a2", "0.014225") + rec("a3", "0.014225")
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(tty bool, args ...string) string {
		var out, errb bytes.Buffer
		env := &app.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, StdoutTTY: tty,
			Getenv: func(string) string { return "" }, Now: time.Now, Dir: dir}
		if code := app.Run(context.Background(), newApp, env, append([]string{"agent-session", "stats"}, args...)); code != 0 {
			t.Fatalf("stats %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	table := run(true, file)
	for _, want := range []string{"entries   3 (message 3)", "tokens    30 in, 15 out", "cost      $0.0427"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for _, js := range []string{run(false, file), run(true, "--json", file)} {
		if !strings.HasPrefix(js, "{") || !strings.Contains(js, `"cost":0.042675,`) {
			t.Errorf("JSON: %s", js)
		}
	}
}

// TestOneLineTabs: the tree and list previews keep a tab as a space
// (go test's "ok\tdemo\t0.003s" was shown as "ok  demo0.003s").
func TestOneLineTabs(t *testing.T) {
	if got := oneLine("ok  \tdemo\t0.003s\nmore", 60); got != "ok   demo 0.003s" {
		t.Errorf("oneLine = %q", got)
	}
}

// TestResultStatsOptions: flags and arguments to what stats does.
func TestResultStatsOptions(t *testing.T) {
	isResults := func(a string) bool { return strings.HasPrefix(a, "r") }
	for _, c := range []struct {
		args         []string
		json, html   bool
		output       string
		results      bool
		format, fail string
	}{
		{args: []string{"s.jsonl"}},
		{args: []string{"s.jsonl"}, json: true, format: "json"}, // the session's stats read --json themselves
		{args: nil},
		{args: []string{"r.jsonl"}, results: true},
		{args: []string{"s.jsonl", "t.jsonl"}, results: true}, // several files: results (each is checked as it is read)
		{args: []string{"r.jsonl"}, json: true, results: true, format: "json"},
		{args: []string{"r.jsonl"}, html: true, output: "x.html", results: true, format: "html"},
		{args: []string{"r.jsonl"}, output: "x.json", results: true},
		{args: []string{"s.jsonl"}, html: true, fail: "s.jsonl is not a result file: --html and --output take result files"},
		{args: []string{"s.jsonl"}, output: "x", fail: "--html and --output take result files"},
		{args: []string{"r.jsonl"}, html: true, json: true, fail: "choose one of --json, --html"},
		{args: nil, html: true, fail: "no file given: --html and --output take result files"},
	} {
		o, err := resultStatsOptionsOf(c.args, c.json, c.html, c.output, isResults)
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("%+v: error %v, want %q", c, err, c.fail)
			}
			continue
		}
		if err != nil || o.results != c.results || o.format != c.format || o.output != c.output {
			t.Errorf("%+v: got %+v, %v", c, o, err)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const editMain = `{"path":"main.go","old_text":"func main() {}","new_text":"func main() { println() }"}`

// TestPlanMode: shift+tab cycles default → accept edits → plan (the
// footer shows it); accept edits runs an edit unasked; in plan mode a
// write is refused and the plan is put to the person, refused with a
// reason, then approved into accept edits, after which the write runs;
// the mode is a session entry, so agent started again is in it.
func TestPlanMode(t *testing.T) {
	write := `{"path":"new.txt","content":"planned\n"}`
	plan := `{"plan":"1. Write new.txt."}`
	f := newFixture(t,
		toolAnswer("edit", editMain), textAnswer("Edited."),
		toolAnswer("write", write), toolAnswer("exit_plan_mode", plan), textAnswer("Revising."),
		toolAnswer("exit_plan_mode", plan), toolAnswer("write", write), textAnswer("Written."),
		textAnswer("Thinking."),
	)
	s := f.start(agentCmd)
	s.wait("/help for commands")
	s.send("\x1b[Z") // shift+tab
	s.wait("accept edits (shift+tab)")
	s.send("edit main.go\r")
	s.wait("Edited.")
	if b, _ := os.ReadFile(filepath.Join(f.dir, "main.go")); !strings.Contains(string(b), "println") {
		t.Errorf("the edit did not run unasked in accept edits: %s", b)
	}
	s.send("\x1b[Z")
	s.wait("plan mode (shift+tab)")
	s.send("plan it\r")
	s.wait("in plan mode only tools that read run")
	s.wait("Approve this plan?")
	s.wait("[y] yes, ask before edits")
	s.send("n")
	s.wait("why not?")
	s.send("smaller please\r")
	s.wait("Revising.")
	if _, err := os.Stat(filepath.Join(f.dir, "new.txt")); err == nil {
		t.Fatal("a write ran in plan mode")
	}
	reqs := f.srv.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "the user refused the plan (smaller please)") {
		t.Errorf("the refusal did not reach the model: %s", reqs[len(reqs)-1].Body)
	}
	s.send("go on\r")
	s.wait("[y] yes, ask before edits")
	s.send("a")
	s.wait("Written.")
	if b, _ := os.ReadFile(filepath.Join(f.dir, "new.txt")); string(b) != "planned\n" {
		t.Errorf("the approved plan's write did not run unasked: %q", b)
	}
	if strings.Contains(s.text(), "Allow write new.txt") {
		t.Error("accept edits asked for the write")
	}
	s.wait("accept edits (shift+tab)")
	s.send("/plan\r")
	s.wait("plan mode: only tools that read run")
	s.send("think\r")
	s.wait("Thinking.")
	s.send("/exit\r")
	s.exited()
	if !strings.Contains(f.sessionText(), `"type":"mode_change"`) {
		t.Errorf("no mode_change entry in the session:\n%s", f.sessionText())
	}
	s = f.start(agentCmd)
	s.wait("plan mode (shift+tab)")
	s.send("/exit\r")
	s.exited()
}

// TestAskPicker: the ask tool's questions are a picker: enter takes the
// recommended option, space ticks several of a multi-select question,
// the last line takes the person's own words; the answers reach the
// model.
func TestAskPicker(t *testing.T) {
	ask := `{"questions":[{"id":"colour","question":"Which colour?","options":[{"label":"red"},{"label":"blue"}],"recommended":1},` +
		`{"id":"parts","question":"Which parts?","options":[{"label":"api"},{"label":"cli"},{"label":"docs"}],"multi":true},` +
		`{"id":"name","question":"Its name?"}]}`
	f := newFixture(t, toolAnswer("ask", ask), textAnswer("Got it."))
	s := f.start(agentCmd + " --yes")
	s.wait("/help for commands")
	s.send("ask me\r")
	s.wait("Question 1 of 3: Which colour?")
	s.wait("enter pick")
	s.send("\r")
	s.wait("Question 2 of 3: Which parts?")
	s.wait("space tick")
	s.send(" \x1b[B\x1b[B \r") // tick api, down twice, tick docs, send
	s.wait("Question 3 of 3: Its name?")
	s.wait("enter pick")
	s.send("\r") // the only line: type your own
	s.wait("enter sends your answer")
	s.send("Zed\r")
	s.wait("Got it.")
	reqs := f.srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{`A: blue`, `A: api; docs`, `A: Zed`} {
		if !strings.Contains(body, want) {
			t.Errorf("the model did not get %q: %s", want, body)
		}
	}
	s.send("/exit\r")
	s.exited()
}

// TestMemory: "# text" at the prompt asks, then appends a line to the
// project's AGENTS.md (n drops it); /memory opens that file in $EDITOR,
// /memory user the user's.
func TestMemory(t *testing.T) {
	f := newFixture(t)
	if err := os.Mkdir(filepath.Join(f.dir, ".git"), 0o755); err != nil { // the project's root
		t.Fatal(err)
	}
	s := f.start(`EDITOR="sh -c 'echo edited-in-editor >> \"\$1\"' sh" ` + agentCmd)
	s.wait("/help for commands")
	s.send("# use tabs in Go files\r")
	s.wait("Remember in ")
	s.wait("[y] yes")
	s.send("y")
	s.wait("remembered in ")
	s.send("# not this\r")
	s.wait("[y] yes")
	s.send("n")
	s.wait("not remembered")
	s.send("/memory\r")
	s.wait("memory: " + filepath.Join(f.dir, "AGENTS.md"))
	b, _ := os.ReadFile(filepath.Join(f.dir, "AGENTS.md"))
	if string(b) != "- use tabs in Go files\nedited-in-editor\n" {
		t.Errorf("AGENTS.md holds %q", b)
	}
	s.send("/memory user\r")
	s.wait("memory: ")
	if b, _ := os.ReadFile(filepath.Join(f.home, "AGENTS.md")); string(b) != "edited-in-editor\n" {
		t.Errorf("the user's AGENTS.md holds %q", b)
	}
	if len(f.srv.Requests()) != 0 {
		t.Error("a memory line went to the model")
	}
	s.send("/exit\r")
	s.exited()
}

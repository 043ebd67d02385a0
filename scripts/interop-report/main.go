// Command interop-report checks the batch report (agent-session stats
// --html) in a real browser (Debian's headless chromium): 15 tasks of the
// scripted fake model (testdata/batch: pass, fail, a turns budget, a
// crash) for three models run by agent-batch, the report written, a
// screenshot taken, and checks run in the page by a script of their own
// (check.js): the three plots are there with one bar per task, one line
// per run that had a response, one row per model and one segment per
// outcome it had; every mark has a size and lies inside its plot; the page
// fetched nothing. Skips with a message when chromium is not installed.
// The screenshot stays in ${REPORT_SHOTS:-${TMPDIR:-/tmp}/agentutils-report}.
//
//	go run ./scripts/interop-report
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

//go:embed check.js
var checkJS string

func main() { os.Exit(interop.Main("interop-report", run)) }

// models are the three models' runs: the outcome each task is scripted to.
var models = []struct {
	model    string
	outcomes []string
}{
	{"claude-sonnet-4-5", []string{"pass", "pass", "fail", "loop", "crash"}},
	{"claude-haiku-4-5", []string{"pass", "fail", "fail", "loop", "crash"}},
	{"claude-opus-4-6", []string{"pass", "pass", "pass", "loop", "fail"}},
}

func run(t *interop.T) error {
	chrome, err := interop.Chromium()
	if err != nil {
		return err
	}
	shots, err := interop.Shots("REPORT_SHOTS", "agentutils-report")
	if err != nil {
		return err
	}
	os.Setenv("AGENTUTILS_HOME", filepath.Join(t.Dir, "home"))
	if r := interop.Run(interop.Cmd(t.Dir, []string{"GIT_AUTHOR_NAME=r", "GIT_AUTHOR_EMAIL=r@example.com", "GIT_COMMITTER_NAME=r", "GIT_COMMITTER_EMAIL=r@example.com"},
		"bash", "-c", "git init -q repo && echo '# report' >repo/README.md && git -C repo add -A && git -C repo commit -qm init")); !r.OK() {
		return fmt.Errorf("git: %s", r.Why())
	}
	var tasks []string
	for _, m := range models {
		for _, k := range m.outcomes {
			budget := ""
			if k == "loop" {
				budget = `,"budgets":{"turns":3}`
			}
			id := fmt.Sprintf("%s-%s-%d", m.model, k, len(tasks)+1)
			tasks = append(tasks, interop.BatchTask(t.Root, id, filepath.Join(t.Dir, "repo"), "anthropic/"+m.model, k, budget))
		}
	}
	if err := os.WriteFile(filepath.Join(t.Dir, "tasks.jsonl"), []byte(strings.Join(tasks, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	interop.Run(interop.Cmd(t.Dir, nil, filepath.Join(t.Root, "bin", "agent-batch"), "-j", "2", "-o", "out", "tasks.jsonl"))
	if r := interop.Run(interop.Cmd(t.Dir, nil, "agent-session", "stats", "--html", "-o", "report.html", "out/results.jsonl")); !r.OK() {
		return fmt.Errorf("agent-session stats --html: %s", r.Why())
	}
	results, err := os.ReadFile(filepath.Join(t.Dir, "out", "results.jsonl"))
	if err != nil {
		return err
	}
	w := expect(string(results))
	report := filepath.Join(t.Dir, "report.html")
	html, err := os.ReadFile(report)
	if err != nil {
		return err
	}
	wrap := filepath.Join(t.Dir, "wrap.html")
	want := fmt.Sprintf("{tasks: %d, drawn: %d, models: %d, segs: %d}", w.tasks, w.drawn, w.models, w.segs)
	if err := os.WriteFile(wrap, []byte(interop.WrapPage("report.html", checkJS, want)), 0o644); err != nil {
		return err
	}
	t.Section("report.html (%d bytes; %d tasks, %d runs with responses, %d models)", len(html), w.tasks, w.drawn, w.models)
	b := interop.Browser{Path: chrome, Profile: filepath.Join(t.Dir, "profile")}
	verdicts, err := b.Checks(wrap)
	if err != nil {
		return err
	}
	t.Verdicts("report.html", verdicts)
	png := filepath.Join(shots, "report.png")
	if err := b.Screenshot(report, png, "1200,2200"); err != nil {
		return err
	}
	t.Note("screenshot: %s", png)
	return os.WriteFile(filepath.Join(shots, "report.html"), html, 0o644)
}

// want is what the report should draw for a results file.
type want struct{ tasks, drawn, models, segs int }

// expect counts a results file's distinct tasks, its runs with tokens (a
// line in the turns plot each), its models and its (model, outcome) pairs.
func expect(results string) want {
	ids, ms, segs := map[string]bool{}, map[string]bool{}, map[[2]string]bool{}
	var w want
	for _, l := range strings.Split(results, "\n") {
		var r struct {
			ID, Model, Outcome string
			Tokens             float64
		}
		if json.Unmarshal([]byte(l), &r) != nil {
			continue
		}
		ids[r.ID], ms[r.Model], segs[[2]string{r.Model, r.Outcome}] = true, true, true
		if r.Tokens > 0 {
			w.drawn++
		}
	}
	w.tasks, w.models, w.segs = len(ids), len(ms), len(segs)
	return w
}

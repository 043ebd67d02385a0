// Package batch holds the pure parts of headless agent runs: the task line
// (formats/task), the result line (formats/task-result), the usage tally
// read from agent events, budget checks, the outcome classification and the
// aggregate report of many results, and that report as an HTML page with
// plots. The runner (agent-session run-task) owns the processes, files and
// clocks.
package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/llm"
)

// Outcomes of a task.
const (
	Passed = "passed" // the agent stopped and the check passed (or there is no check)
	Failed = "failed" // the agent stopped and the check failed
	Budget = "budget" // a budget (turns, tokens, cost, wall time) ran out
	Error  = "error"  // the pipeline failed, the task could not start, or the run was interrupted
)

// Budgets cap one task; zero is no cap.
type Budgets struct {
	Turns       int     `json:"turns,omitempty"`
	Tokens      int     `json:"tokens,omitempty"`
	Cost        float64 `json:"cost,omitempty"`
	WallSeconds float64 `json:"wallSeconds,omitempty"`
}

// Tools is the tool set and policy of a task (agent-tool serve's flags).
type Tools struct {
	Allow     []string `json:"allow,omitempty"`
	Deny      []string `json:"deny,omitempty"`
	ReadOnly  bool     `json:"readOnly,omitempty"`
	BashAllow []string `json:"bashAllow,omitempty"`
	EditMode  string   `json:"editMode,omitempty"`
}

// Task is one line of a tasks file.
type Task struct {
	ID       string   `json:"id"`
	Repo     string   `json:"repo"`
	Ref      string   `json:"ref,omitempty"`
	Prompt   string   `json:"prompt"`
	Check    string   `json:"check,omitempty"`
	Model    string   `json:"model,omitempty"`
	Thinking string   `json:"thinking,omitempty"`
	Tools    *Tools   `json:"tools,omitempty"`
	Budgets  Budgets  `json:"budgets,omitempty"`
	ChatArgs []string `json:"chatArgs,omitempty"`
}

var (
	idRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	thinkings  = map[string]bool{"": true, "off": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true}
	editModes  = map[string]bool{"": true, "replace": true, "hashline": true, "apply_patch": true}
	toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// ParseTask decodes and validates one task line. Unknown fields are errors:
// a misspelt budget must not silently run without one.
func ParseTask(line []byte) (Task, error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return Task{}, errors.New("the task line is empty")
	}
	if i := firstInvalidUTF8(line); i >= 0 {
		return Task{}, fmt.Errorf("not a task: byte %d is not UTF-8", i+1)
	}
	var t Task
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return Task{}, fmt.Errorf("not a task: %v", err)
	}
	if dec.More() {
		return Task{}, errors.New("not a task: more than one JSON value on the line")
	}
	return t, t.Validate()
}

// Validate reports the first rule the task breaks.
func (t Task) Validate() error {
	switch {
	case !idRE.MatchString(t.ID):
		return fmt.Errorf("id %q: want 1-128 of [A-Za-z0-9._-], not starting with . _ or -", t.ID)
	case strings.TrimSpace(t.Repo) == "":
		return errors.New("repo is empty")
	case strings.TrimSpace(t.Prompt) == "":
		return errors.New("prompt is empty")
	case strings.HasPrefix(t.Ref, "-"):
		return fmt.Errorf("ref %q starts with -", t.Ref)
	case !thinkings[t.Thinking]:
		return fmt.Errorf("thinking %q: want off, minimal, low, medium, high or xhigh", t.Thinking)
	case t.Budgets.Turns < 0 || t.Budgets.Tokens < 0 || t.Budgets.Cost < 0 || t.Budgets.WallSeconds < 0:
		return errors.New("budgets must not be negative")
	}
	if t.Tools != nil {
		if !editModes[t.Tools.EditMode] {
			return fmt.Errorf("tools.editMode %q: want replace, hashline or apply_patch", t.Tools.EditMode)
		}
		for _, n := range append(append([]string{}, t.Tools.Allow...), t.Tools.Deny...) {
			if !toolNameRE.MatchString(n) {
				return fmt.Errorf("tool name %q: want [A-Za-z0-9_-]+", n)
			}
		}
	}
	return nil
}

// TaskAt returns the task on the index-th non-empty line (from 0) of a
// tasks file and that line's number, as a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX picks it. Errors name the line.
func TaskAt(r io.Reader, index int) (Task, int, error) {
	if index < 0 {
		return Task{}, 0, fmt.Errorf("index %d is negative", index)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if n == index {
			t, err := ParseTask(sc.Bytes())
			if err != nil {
				return Task{}, line, fmt.Errorf("line %d: %v", line, err)
			}
			return t, line, nil
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return Task{}, 0, err
	}
	return Task{}, 0, fmt.Errorf("index %d: the file has %d tasks", index, n)
}

// Tally sums what a run's agent events report.
type Tally struct {
	Turns      int     // assistant messages
	Input      int     // tokens
	Output     int     // tokens
	CacheRead  int     // tokens
	CacheWrite int     // tokens
	Cost       float64 // dollars
	Model      string  // provider/id of the last assistant message
	LastStop   string  // its stopReason
	LastError  string  // its errorMessage
}

// Tokens is every token the run was billed for.
func (t Tally) Tokens() int { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

type eventLine struct {
	Type    string `json:"type"`
	Message *struct {
		Role       string     `json:"role"`
		Provider   string     `json:"provider"`
		Model      string     `json:"model"`
		StopReason string     `json:"stopReason"`
		Error      string     `json:"errorMessage"`
		Usage      *llm.Usage `json:"usage"`
	} `json:"message"`
}

// Add counts one agent event line; only assistant message_end events count.
// It reports whether the line changed the tally.
func (t *Tally) Add(line []byte) bool {
	if !bytes.Contains(line, []byte(`"message_end"`)) {
		return false
	}
	var e eventLine
	if json.Unmarshal(line, &e) != nil || e.Type != "message_end" || e.Message == nil || e.Message.Role != "assistant" {
		return false
	}
	m := e.Message
	t.Turns++
	if m.Model != "" {
		t.Model = m.Model
		if m.Provider != "" {
			t.Model = m.Provider + "/" + m.Model
		}
	}
	t.LastStop, t.LastError = m.StopReason, m.Error
	if u := m.Usage; u != nil {
		t.Input += u.Input
		t.Output += u.Output
		t.CacheRead += u.CacheRead
		t.CacheWrite += u.CacheWrite
		t.Cost += u.Cost.Total
	}
	return true
}

// Exceeded names the budget the tally or the elapsed seconds went over:
// "tokens", "cost" or "wall" ("" when none). Turns are capped by agent-chat
// --max-turns and found by Classify.
func (b Budgets) Exceeded(t Tally, elapsedSeconds float64) string {
	switch {
	case b.Tokens > 0 && t.Tokens() > b.Tokens:
		return "tokens"
	case b.Cost > 0 && t.Cost > b.Cost:
		return "cost"
	case b.WallSeconds > 0 && elapsedSeconds >= b.WallSeconds:
		return "wall"
	}
	return ""
}

// Run is what the runner observed, for Classify.
type Run struct {
	SetupError  string // the task could not start (bad line, clone failed, …)
	Interrupted bool   // the runner was signalled
	BudgetHit   string // "tokens", "cost" or "wall", when the runner stopped the agent
	ChatExit    int    // agent-chat's exit status
	Tally       Tally
	TurnsBudget int
	Check       string // the check command ("" for none)
	CheckExit   int    // its exit status when it ran
}

// Classify gives the outcome and a short reason.
func Classify(r Run) (outcome, reason string) {
	switch {
	case r.SetupError != "":
		return Error, r.SetupError
	case r.Interrupted:
		return Error, "interrupted"
	case r.BudgetHit != "":
		return Budget, r.BudgetHit
	case r.TurnsBudget > 0 && r.Tally.Turns >= r.TurnsBudget && r.Tally.LastStop == "toolUse":
		return Budget, "turns"
	case r.ChatExit == 3:
		return Error, "context overflow (agent-chat exit 3)"
	case r.ChatExit != 0:
		return Error, fmt.Sprintf("agent-chat exit %d", r.ChatExit)
	case r.Tally.LastStop == "error" || r.Tally.LastStop == "aborted":
		return Error, "the model's last message stopped with " + r.Tally.LastStop
	case r.Check == "":
		return Passed, "the agent stopped; no check"
	case r.CheckExit == 0:
		return Passed, "check passed"
	}
	return Failed, fmt.Sprintf("check exit %d", r.CheckExit)
}

// Exits are the exit statuses of a run's processes; nil when one did not run.
type Exits struct {
	Chat   *int `json:"chat,omitempty"`
	Append *int `json:"append,omitempty"`
	Check  *int `json:"check,omitempty"`
}

// Result is one line of a results file.
type Result struct {
	ID            string  `json:"id"`
	Outcome       string  `json:"outcome"`
	Reason        string  `json:"reason,omitempty"`
	Model         string  `json:"model,omitempty"`
	Turns         int     `json:"turns"`
	Tokens        int     `json:"tokens"`
	Input         int     `json:"input"`
	Output        int     `json:"output"`
	CacheRead     int     `json:"cacheRead"`
	CacheWrite    int     `json:"cacheWrite"`
	Cost          float64 `json:"cost"`
	WallSeconds   float64 `json:"wallSeconds"`
	Started       string  `json:"started,omitempty"`
	Host          string  `json:"host,omitempty"`
	Session       string  `json:"session,omitempty"`
	Diff          string  `json:"diff"`
	DiffTruncated bool    `json:"diffTruncated,omitempty"`
	Exit          Exits   `json:"exit"`
	// Transient: the run ended on a provider error worth another try (a
	// rate limit, a 5xx, a network error: lib/llm's IsRetryable).
	Transient bool `json:"transient,omitempty"`
}

// NewResult fills a result from a classified run.
func NewResult(t Task, r Run, wallSeconds float64) Result {
	out, why := Classify(r)
	model := r.Tally.Model
	if model == "" {
		model = t.Model
	}
	return Result{
		ID: t.ID, Outcome: out, Reason: why, Model: model,
		Turns: r.Tally.Turns, Tokens: r.Tally.Tokens(), Input: r.Tally.Input, Output: r.Tally.Output,
		CacheRead: r.Tally.CacheRead, CacheWrite: r.Tally.CacheWrite, Cost: r.Tally.Cost,
		WallSeconds: wallSeconds, Transient: transient(out, r),
	}
}

// transient says whether a run that ended in error did so on a provider
// error worth retrying: not a setup error, an interrupt or a budget.
func transient(outcome string, r Run) bool {
	if outcome != Error || r.SetupError != "" || r.Interrupted || r.Tally.LastStop != llm.StopError {
		return false
	}
	m := llm.Message{Role: "assistant", StopReason: llm.StopError, ErrorMessage: r.Tally.LastError}
	return llm.IsRetryable(m, 0)
}

// WithCause adds to an error reason "agent-chat exit N" the last complaint
// agent-chat wrote to the log (its "agent-chat: …" line, at most 200
// bytes), so that the result says why without opening the log.
func (r *Result) WithCause(log []byte) {
	if r.Outcome != Error || !strings.HasPrefix(r.Reason, "agent-chat exit") {
		return
	}
	const prefix = "agent-chat: "
	lines := bytes.Split(log, []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(string(lines[i]))
		if strings.HasPrefix(l, prefix) {
			l = strings.TrimPrefix(l, prefix)
			if len(l) > 200 {
				l = strings.ToValidUTF8(l[:200], "") + "…"
			}
			r.Reason += ": " + l
			return
		}
	}
}

// MaxDiff is the most diff text a result line carries.
const MaxDiff = 1 << 20

// SetDiff stores the diff, cut at MaxDiff bytes.
func (r *Result) SetDiff(d string) {
	if len(d) > MaxDiff {
		d, r.DiffTruncated = d[:MaxDiff], true
	}
	r.Diff = d
}

var outcomes = map[string]bool{Passed: true, Failed: true, Budget: true, Error: true}

// ParseResult decodes and checks one result line.
func ParseResult(line []byte) (Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Result{}, fmt.Errorf("not a task result: %v", err)
	}
	switch {
	case !idRE.MatchString(r.ID):
		return Result{}, fmt.Errorf("id %q is not a task id", r.ID)
	case !outcomes[r.Outcome]:
		return Result{}, fmt.Errorf("outcome %q: want passed, failed, budget or error", r.Outcome)
	case r.Turns < 0 || r.Tokens < 0 || r.Cost < 0 || r.WallSeconds < 0:
		return Result{}, errors.New("counts must not be negative")
	}
	return r, nil
}

// Group is the aggregate of some results.
type Group struct {
	Key         string  `json:"key"`
	Runs        int     `json:"runs"`
	Passed      int     `json:"passed"`
	Failed      int     `json:"failed"`
	Budget      int     `json:"budget"`
	Error       int     `json:"error"`
	PassRate    float64 `json:"passRate"`
	Turns       int     `json:"turns"`
	Tokens      int     `json:"tokens"`
	Cost        float64 `json:"cost"`
	WallSeconds float64 `json:"wallSeconds"`
	MeanTurns   float64 `json:"meanTurns"`
	MeanTokens  float64 `json:"meanTokens"`
	MeanCost    float64 `json:"meanCost"`
	MeanWall    float64 `json:"meanWallSeconds"`
}

func (g *Group) add(r Result) {
	g.Runs++
	switch r.Outcome {
	case Passed:
		g.Passed++
	case Failed:
		g.Failed++
	case Budget:
		g.Budget++
	default:
		g.Error++
	}
	g.Turns += r.Turns
	g.Tokens += r.Tokens
	g.Cost += r.Cost
	g.WallSeconds += r.WallSeconds
}

func (g *Group) finish() {
	if g.Runs == 0 {
		return
	}
	g.Cost = llm.RoundCost(g.Cost)
	n := float64(g.Runs)
	g.PassRate = float64(g.Passed) / n
	g.MeanTurns, g.MeanTokens = float64(g.Turns)/n, float64(g.Tokens)/n
	g.MeanCost, g.MeanWall = llm.RoundCost(g.Cost/n), g.WallSeconds/n
}

// Report is the aggregate of many results: all of them, by model, by task.
type Report struct {
	Total   Group   `json:"total"`
	ByModel []Group `json:"byModel"`
	ByTask  []Group `json:"byTask"`
}

// Aggregate builds the report; groups are sorted by key.
func Aggregate(rs []Result) Report {
	rep := Report{Total: Group{Key: "total"}}
	models, tasks := map[string]*Group{}, map[string]*Group{}
	get := func(m map[string]*Group, k string) *Group {
		if m[k] == nil {
			m[k] = &Group{Key: k}
		}
		return m[k]
	}
	for _, r := range rs {
		rep.Total.add(r)
		model := r.Model
		if model == "" {
			model = "(unknown)"
		}
		get(models, model).add(r)
		get(tasks, r.ID).add(r)
	}
	rep.Total.finish()
	list := func(m map[string]*Group) []Group {
		out := make([]Group, 0, len(m))
		for _, g := range m {
			g.finish()
			out = append(out, *g)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		return out
	}
	rep.ByModel, rep.ByTask = list(models), list(tasks)
	return rep
}

package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/session"
)

// options is what the command line asks for: run's pure first step,
// tested with a table of cases (options_test.go).
type options struct {
	events        string // "none" or "stderr"
	settings      compact.Settings
	branch        bool // --branch-summary --from from --to to
	from, to      string
	models        []string // --model candidates, in order
	window        int      // --context-window (0: the model's)
	noPrune       bool
	pruneOnly     bool
	force         bool
	dryRun        bool
	summarizerCmd string
	instructions  string
	hookFiles     []string // --settings
	apiKey        string
	modelsFile    string
	record        string
	replay        string
}

func parseOptions(c *cli.Context) (options, error) {
	o := options{events: c.String("events"), branch: c.Bool("branch-summary"), from: c.String("from"), to: c.String("to"),
		models: c.StringSlice("model"), window: c.Int("context-window"), noPrune: c.Bool("no-prune"),
		pruneOnly: c.Bool("prune-only"), force: c.Bool("force"), dryRun: c.Bool("dry-run"),
		summarizerCmd: c.String("summarizer-cmd"), instructions: c.String("instructions"), hookFiles: c.StringSlice("settings"), apiKey: c.String("api-key"),
		modelsFile: c.String("models-file"), record: c.String("record"), replay: c.String("replay"),
		settings: compact.Settings{ReserveTokens: c.Int("reserve-tokens"), KeepRecentTokens: c.Int("keep-recent-tokens"),
			ProtectTokens: compact.Defaults.ProtectTokens, MinimumSavings: compact.Defaults.MinimumSavings}}
	switch o.events {
	case "", "none":
		o.events = "none"
	case "stderr":
	default:
		return o, exit.Errorf(exit.Usage, "--events %q: use stderr or none", o.events)
	}
	if o.branch && (o.from == "" || o.to == "") {
		return o, exit.Errorf(exit.Usage, "--branch-summary needs --from OLD_LEAF and --to TARGET")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"context-window", o.window}, {"reserve-tokens", o.settings.ReserveTokens}, {"keep-recent-tokens", o.settings.KeepRecentTokens}} {
		if f.v < 0 {
			return o, exit.Errorf(exit.Usage, "--%s %d: not a number of tokens", f.name, f.v)
		}
	}
	return o, nil
}

// job is one run: the options, the command's environment and the stream.
type job struct {
	options
	c      *cli.Context
	env    *app.Env
	header *session.Header
	cat    *llm.Catalog
	models []llm.Model // the candidates that resolved, in order
	model  llm.Model   // the first of them (zero when none)
	offset int         // of the path's indexes in the whole stream's (stream.offset)
	hooks  []hooks.Hook
}

// loadHooks reads the --settings files' hooks.
func loadHooks(files []string, env *app.Env) ([]hooks.Hook, error) {
	var abs []string
	for _, f := range files {
		abs = append(abs, env.Abs(f))
	}
	hs, _, err := hooks.Load(abs, nil)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return hs, nil
}

// preCompact fires the PreCompact hooks: trigger manual for --force, auto
// for the threshold and an overflow. They cannot stop the compaction;
// what they say goes to stderr.
func (j *job) preCompact() {
	if !hooks.Has(j.hooks, hooks.PreCompact) {
		return
	}
	in := hooks.Input{Event: hooks.PreCompact, Cwd: j.env.Dir, Trigger: "auto", CustomInstructions: &j.instructions}
	if j.force {
		in.Trigger = "manual"
	}
	if j.header != nil {
		in.SessionID, in.TranscriptPath = j.header.ID, j.header.File
	}
	hooks.Run(j.ctx(), j.hooks, in, nil, func(s string) { app.Warnf(j.c, "%s", s) })
}

func run(c *cli.Context, env *app.Env) error {
	env.ErrorRecord = true
	o, err := parseOptions(c)
	if err != nil {
		return err
	}
	after, keep := flushAfter, keepAfter
	if o.branch {
		after, keep = 0, 0
	}
	if o.dryRun || o.force { // the plan reads the whole path: hold it
		keep = 0
	}
	st, err := readStreamKeep(env.Stdin, env.Stdout, after, keep, o.settings)
	if err != nil {
		return err
	}
	if st.errorLine != nil { // an upstream stage failed: pass its error on, and fail
		env.Stdout.Write(append(append([]byte(nil), st.errorLine...), '\n'))
		return exit.Silent(exit.Failure)
	}
	j := &job{options: o, c: c, env: env, header: st.header}
	if j.hooks, err = loadHooks(o.hookFiles, env); err != nil {
		return err
	}
	path, lines, tail := st.path()
	if err := j.resolveModels(path); err != nil {
		return err
	}
	if st.full || tail > 0 && (o.dryRun || j.compacts(st.gone, path, tail)) {
		// the decisions read the whole window: read the stream again, holding it
		if st, err = st.reread(); err != nil || st.errorLine != nil {
			if err == nil {
				env.Stdout.Write(append(append([]byte(nil), st.errorLine...), '\n'))
				err = exit.Silent(exit.Failure)
			}
			return err
		}
		path, lines, tail = st.path()
		if err := j.resolveModels(path); err != nil {
			return err
		}
	}
	if id := compact.MissingFirstKept(path); id != "" {
		app.Warnf(c, "the newest compaction keeps from entry %q, which is not on the path: the context holds only its summary and what follows it", id)
	}
	if o.branch {
		return j.branchSummary(st.win.Held)
	}
	j.offset = st.offset()
	g := st.gone
	if g == nil {
		g = compact.NewGone(o.settings)
	}
	pruned, rec, err := j.decide(g, path, tail)
	if err != nil || o.dryRun {
		return err
	}
	// The stream as it came, with the pruned entries in place and the
	// compaction record after it.
	repl := map[int][]byte{}
	for _, p := range pruned {
		repl[lines[p.Index]] = p.Raw
	}
	st.now = j.env.Now().UnixMilli()
	return st.write(repl, rec)
}

// resolveModels loads the catalog and resolves the --model candidates (by
// default the stream's model); the first that resolves sets the window.
func (j *job) resolveModels(path []compact.Entry) error {
	cat, err := provider.LoadCatalog(j.env.Abs(j.modelsFile), j.env.Getenv)
	if err != nil {
		return err
	}
	j.cat = cat
	patterns := j.options.models
	if len(patterns) == 0 {
		if m := compact.DefaultModel(path); m != "" {
			patterns = []string{m}
		}
	}
	var resolveErr error
	for _, p := range patterns {
		m, _, err := cat.Resolve(p)
		if err != nil {
			resolveErr = cmp.Or(resolveErr, err)
			continue
		}
		j.models = append(j.models, m)
	}
	if len(j.models) == 0 && resolveErr != nil && j.summarizerCmd == "" && !j.dryRun && (j.force || j.replay != "") {
		return exit.Wrap(exit.Usage, resolveErr)
	}
	if len(j.models) > 0 {
		j.model = j.models[0]
	}
	if j.window == 0 {
		j.window = j.model.ContextWindow
	}
	return nil
}

// decide prunes and compacts path as the options say: the pruned entries
// and the compaction record (nil when none). With --dry-run it prints the
// plan instead.
func (j *job) decide(g *compact.Gone, path []compact.Entry, tail int) ([]compact.Pruned, []byte, error) {
	overflow := j.overflow(g, path, tail)
	force := j.force || overflow
	var pruned []compact.Pruned
	saved := 0
	if !j.noPrune && !force {
		pruned, saved = g.Prune(path, tail, j.env.Now().UnixMilli())
	}
	tokens := g.ContextAfterPrune(path, tail, saved)
	compactNow := force || (!j.pruneOnly && compact.OverThreshold(tokens, j.window, j.settings.ReserveTokens))
	why := reason(force, overflow, compactNow)
	if j.dryRun {
		return nil, nil, j.dryRunPlan(path, compactNow, why, tokens, len(pruned), saved)
	}
	if !compactNow {
		return pruned, nil, nil
	}
	plan, ok := compact.Prepare(path, j.settings)
	if !ok {
		const msg = "nothing to compact: the path is empty, ends in a compaction, or fits in --keep-recent-tokens"
		if force {
			return nil, nil, exit.Errorf(exit.Failure, "compaction failed: %s", msg)
		}
		app.Warnf(j.c, "%s (the stream passes through)", msg)
		return pruned, nil, nil
	}
	if err := checkKept(j.window, j.settings); err != nil {
		return nil, nil, err
	}
	j.preCompact()
	j.emit(event.Event{Type: event.CompactionStart, Reason: why, ContextTokens: tokens, ContextWindow: j.window, Model: j.model.Ref()})
	rec, err := j.summarize(path, plan)
	j.emitEnd(why, rec, err)
	if err != nil {
		if force {
			return nil, nil, exit.Errorf(exit.Failure, "compaction failed: %v", err)
		}
		app.Warnf(j.c, "compaction failed (the stream passes through): %v", err)
		rec = nil
	}
	return pruned, rec, nil
}

// overflow says whether the last assistant message failed because the
// context is too big.
func (j *job) overflow(g *compact.Gone, path []compact.Entry, tail int) bool {
	if raw := g.LastAssistant(path, tail); raw != nil {
		var last llm.Message
		if json.Unmarshal(raw, &last) == nil && last.StopReason == llm.StopError {
			return llm.IsOverflow(last, j.window)
		}
	}
	return false
}

// compacts says whether decide would compact: it reads the whole path.
func (j *job) compacts(g *compact.Gone, path []compact.Entry, tail int) bool {
	if j.force || j.overflow(g, path, tail) {
		return true
	}
	if j.pruneOnly {
		return false
	}
	saved := 0
	if !j.noPrune {
		c := *g // Prune settles the tool results let go of: decide's call does again
		_, saved = c.Prune(path, tail, 0)
	}
	return compact.OverThreshold(g.ContextAfterPrune(path, tail, saved), j.window, j.settings.ReserveTokens)
}

// dryRunPlan prints what a run would do, as JSON.
func (j *job) dryRunPlan(path []compact.Entry, compactNow bool, why string, tokens, pruned, saved int) error {
	plan, ok := compact.Prepare(path, j.settings)
	if ok && compactNow {
		if err := checkKept(j.window, j.settings); err != nil {
			return err
		}
	}
	out := map[string]any{"compact": compactNow && ok, "reason": why, "tokens": tokens,
		"contextWindow": j.window, "prunedEntries": pruned, "prunedTokens": saved}
	if ok {
		plan.FirstKept += j.offset
		if plan.TurnStart >= 0 {
			plan.TurnStart += j.offset
		}
		out["plan"] = plan
		out["estimatedTokensAfter"] = plan.KeptTokens
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	_, err := fmt.Fprintf(j.env.Stdout, "%s\n", b)
	return err
}

func reason(force, overflow, compactNow bool) string {
	switch {
	case overflow:
		return "overflow"
	case force:
		return "forced"
	case compactNow:
		return "threshold"
	}
	return ""
}

// summarize asks the model for the summary and builds the compaction record.
func (j *job) summarize(path []compact.Entry, plan compact.Plan) ([]byte, error) {
	summary, err := j.withSummarizer(func(ask func(string) (string, error)) (string, error) {
		return compact.Summarize(plan, j.instructions, ask)
	})
	if err != nil {
		return nil, err
	}
	parent := ""
	if n := len(path); n > 0 {
		parent = path[n-1].ID
	}
	id := session.NewEntryID(rand.Reader, func(string) bool { return false })
	return compact.CompactionRecord(id, parent, session.FormatTime(j.env.Now()), summary, plan), nil
}

// branchSummary writes the pending branch_summary record for leaving
// --from for --to (reference §4.11), for 'agent-session checkout
// --summary-from -'.
func (j *job) branchSummary(all []session.Record) error {
	b, err := compact.FindBranch(all, j.from, j.to)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	window := j.window
	if window == 0 {
		window = 128000
	}
	// The reference's budget is window − reserve; a small window keeps half.
	msgs, files := compact.BranchMessages(b.Entries, max(window-j.settings.ReserveTokens, window/2))
	read, mod := files.Lists()
	summary := compact.NoBranchContent
	if len(msgs) > 0 {
		prompt := compact.BranchPrompt(compact.Serialize(session.ConvertToLLM(msgs)), j.instructions)
		j.emit(event.Event{Type: event.CompactionStart, Reason: "branch", ContextWindow: window})
		text, err := j.withSummarizer(func(ask func(string) (string, error)) (string, error) { return ask(prompt) })
		if err != nil {
			j.emitEnd("branch", nil, err)
			return exit.Errorf(exit.Failure, "branch summary failed: %v", err)
		}
		summary = compact.UpsertFileLists(compact.BranchPreamble+text, read, mod)
	}
	var parent *string
	from := "root"
	if b.NewLeaf != "" {
		parent, from = &b.NewLeaf, b.NewLeaf
	}
	rec := compact.BranchSummaryRecord(session.NewEntryID(rand.Reader, func(string) bool { return false }), parent,
		session.FormatTime(j.env.Now()), from, summary, files)
	if len(msgs) > 0 {
		j.emitEnd("branch", rec, nil)
	}
	_, err = fmt.Fprintf(j.env.Stdout, "%s\n", rec)
	return err
}

// emit writes a progress event to stderr with --events stderr
// (formats/events); stdout stays the session stream.
func (j *job) emit(ev event.Event) {
	if j.events != "stderr" {
		return
	}
	if ev.Model == "/" {
		ev.Model = ""
	}
	b, _ := json.Marshal(ev)
	fmt.Fprintf(j.env.Stderr, "%s\n", b)
}

func (j *job) emitEnd(reason string, rec []byte, err error) {
	ok := err == nil
	ev := event.Event{Type: event.CompactionEnd, Reason: reason, Success: &ok, Entry: rec}
	if err != nil {
		ev.ErrorMessage = err.Error()
	}
	j.emit(ev)
}

// withSummarizer runs summarize with the --summarizer-cmd or with each
// candidate model in turn until one gives a summary.
func (j *job) withSummarizer(summarize func(ask func(string) (string, error)) (string, error)) (string, error) {
	if j.summarizerCmd != "" {
		return summarize(func(prompt string) (string, error) { return j.commandAsk(prompt) })
	}
	if len(j.models) == 0 {
		return "", fmt.Errorf("no model to summarize with: pass --model provider/id")
	}
	var text string
	var err error
	for _, m := range j.models {
		ask, done, aerr := j.modelAsk(m)
		if aerr == nil {
			text, aerr = summarize(ask)
			done()
		}
		if err = aerr; err == nil {
			break
		}
		if len(j.models) > 1 {
			app.Warnf(j.c, "summarizing with %s failed: %v", m.Ref(), err)
		}
	}
	return text, err
}

// modelAsk asks the model through lib/llm (catalog, keys, retries and
// cassettes as in agent-chat); done closes a recording.
func (j *job) modelAsk(model llm.Model) (ask func(string) (string, error), done func(), err error) {
	if model.ID == "" {
		return nil, nil, fmt.Errorf("no model to summarize with: pass --model provider/id")
	}
	client := &provider.Client{HTTP: http.DefaultClient, Now: j.env.Now}
	opts := llm.Options{MaxTokens: j.settings.ReserveTokens * 8 / 10, Thinking: "off"}
	if j.replay == "" {
		k, err := j.cat.ResolveKey(model, j.apiKey, j.env.Getenv)
		if err != nil {
			return nil, nil, err
		}
		if k.Login != "" {
			return nil, nil, fmt.Errorf("%s: logins are only supported by agent-chat", k.Source)
		}
		opts.APIKey = k.Value
		client.Secrets = []string{opts.APIKey}
	}
	if done, err = client.UseCassettes(j.record, j.replay, j.env.Abs); err != nil {
		return nil, nil, exit.Wrap(exit.Usage, err)
	}
	ask = func(prompt string) (string, error) {
		msgs := []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock(prompt)}, Timestamp: j.env.Now().UnixMilli()}}
		m, err := client.Stream(j.ctx(), model, llm.Context{SystemPrompt: compact.SystemPrompt, Messages: msgs}, opts, func(llm.Event) {})
		if err != nil {
			return "", err
		}
		if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			return "", fmt.Errorf("summarization failed: %s", m.ErrorMessage)
		}
		return strings.TrimSpace(m.Text()), nil
	}
	return ask, done, nil
}

// commandAsk hands one summarization to --summarizer-cmd: its stdin is a
// session stream (the header and one user message holding the prompt), the
// system prompt is in $AGENT_COMPACT_SYSTEM_PROMPT, and the summary is the
// last assistant message of the agent events it prints (as agent-chat
// --once does) or, when it prints no events, its whole output.
func (j *job) commandAsk(prompt string) (string, error) {
	var in bytes.Buffer
	now := j.env.Now()
	cwd := j.env.Dir
	if j.header != nil && j.header.Cwd != "" {
		cwd = j.header.Cwd
	}
	hb, _ := json.Marshal(session.Header{Type: "session", Version: 3, ID: "summarize", Timestamp: session.FormatTime(now), Cwd: cwd})
	in.Write(append(hb, '\n'))
	mb, _ := json.Marshal(struct {
		Type      string      `json:"type"`
		ID        string      `json:"id"`
		ParentID  *string     `json:"parentId"`
		Timestamp string      `json:"timestamp"`
		Message   llm.Message `json:"message"`
	}{"message", "00000001", nil, session.FormatTime(now), llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(prompt)}, Timestamp: now.UnixMilli()}})
	in.Write(append(mb, '\n'))
	var out, errb bytes.Buffer
	p := exec.CommandContext(j.ctx(), "sh", "-c", j.summarizerCmd)
	p.Dir, p.Stdin, p.Stdout, p.Stderr = j.env.Dir, &in, &out, &errb
	p.Env = append(j.env.Environment(), "AGENT_COMPACT_SYSTEM_PROMPT="+compact.SystemPrompt)
	if err := p.Run(); err != nil {
		return "", fmt.Errorf("--summarizer-cmd: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	text, events := "", false
	for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
		var ev struct {
			Type    string      `json:"type"`
			Message llm.Message `json:"message"`
		}
		if json.Unmarshal(l, &ev) != nil || ev.Type == "" {
			continue
		}
		events = true
		if ev.Type == "error" {
			return "", fmt.Errorf("--summarizer-cmd: %s", l)
		}
		if ev.Type == "message_end" && ev.Message.Role == "assistant" {
			if ev.Message.StopReason == llm.StopError || ev.Message.StopReason == llm.StopAborted {
				return "", fmt.Errorf("summarization failed: %s", ev.Message.ErrorMessage)
			}
			text = ev.Message.Text()
		}
	}
	if !events {
		text = out.String()
	}
	if text = strings.TrimSpace(text); text == "" {
		return "", fmt.Errorf("--summarizer-cmd printed no summary")
	}
	return text, nil
}

// ctx is the command's context: ^C cancels a summarization under way.
func (j *job) ctx() context.Context {
	if j.c.Context != nil {
		return j.c.Context
	}
	return context.Background()
}

package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/session"
)

func run(c *cli.Context, env *app.Env) error {
	env.ErrorRecord = true
	switch c.String("events") {
	case "", "none", "stderr":
	default:
		return exit.Errorf(exit.Usage, "--events %q: use stderr or none", c.String("events"))
	}
	in, err := readAll(env.Stdin)
	if err != nil {
		return err
	}
	st, err := readStream(in)
	if err != nil {
		return err
	}
	if st.errorLine != nil { // an upstream stage failed: pass its error on, and fail
		env.Stdout.Write(append(append([]byte(nil), st.errorLine...), '\n'))
		return exit.Silent(exit.Failure)
	}
	header := st.header
	// The path BuildContext resolves over the stream (for 'agent-session
	// open' output, every entry); the rest of the stream passes through.
	at := compact.ActivePath(st.entries)
	path := st.entries
	if !identity(at, len(path)) { // not one chain: take the path out
		path = make([]compact.Entry, len(at))
		for k, i := range at {
			path[k] = st.entries[i]
		}
	}
	if id := compact.MissingFirstKept(path); id != "" {
		app.Warnf(c, "the newest compaction keeps from entry %q, which is not on the path: the context holds only its summary and what follows it", id)
	}
	settings := compact.Settings{ReserveTokens: c.Int("reserve-tokens"), KeepRecentTokens: c.Int("keep-recent-tokens"),
		ProtectTokens: compact.Defaults.ProtectTokens, MinimumSavings: compact.Defaults.MinimumSavings}
	branch := c.Bool("branch-summary")
	if branch && (c.String("from") == "" || c.String("to") == "") {
		return exit.Errorf(exit.Usage, "--branch-summary needs --from OLD_LEAF and --to TARGET")
	}
	cat, err := loadCatalog(c, env)
	if err != nil {
		return err
	}
	// --model names candidates, tried in order; the first that resolves sets
	// the window.
	patterns := c.StringSlice("model")
	if len(patterns) == 0 {
		if m := compact.DefaultModel(path); m != "" {
			patterns = []string{m}
		}
	}
	var models []llm.Model
	var resolveErr error
	for _, p := range patterns {
		m, _, err := cat.Resolve(p)
		if err != nil {
			resolveErr = cmp.Or(resolveErr, err)
			continue
		}
		models = append(models, m)
	}
	if len(models) == 0 && resolveErr != nil && c.String("summarizer-cmd") == "" && !c.Bool("dry-run") && (c.Bool("force") || c.String("replay") != "") {
		return exit.Wrap(exit.Usage, resolveErr)
	}
	var model llm.Model
	if len(models) > 0 {
		model = models[0]
	}
	window := c.Int("context-window")
	if window == 0 {
		window = model.ContextWindow
	}
	if branch {
		return branchSummary(c, env, cat, models, header, compact.Records(st.entries), window)
	}

	// Overflow: the last assistant message failed because the context is too big.
	overflow := false
	if raw := compact.LastAssistant(path); raw != nil {
		var last llm.Message
		if json.Unmarshal(raw, &last) == nil && last.StopReason == llm.StopError {
			overflow = llm.IsOverflow(last, window)
		}
	}
	force := c.Bool("force") || overflow

	// Pruning, unless forced or disabled.
	var pruned []compact.Pruned
	saved := 0
	if !c.Bool("no-prune") && !force {
		pruned, saved = compact.Prune(path, settings, env.Now().UnixMilli())
	}
	tokens := compact.ContextAfterPrune(path, saved)
	compactNow := force || (!c.Bool("prune-only") && compact.OverThreshold(tokens, window, settings.ReserveTokens))

	if c.Bool("dry-run") {
		plan, ok := compact.Prepare(path, settings)
		if ok && compactNow {
			if err := checkKept(window, settings); err != nil {
				return err
			}
		}
		out := map[string]any{"compact": compactNow && ok, "reason": reason(force, overflow, compactNow), "tokens": tokens,
			"contextWindow": window, "prunedEntries": len(pruned), "prunedTokens": saved}
		if ok {
			out["plan"] = plan
			out["estimatedTokensAfter"] = plan.KeptTokens
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		_, err := fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	}

	var rec []byte
	if compactNow {
		plan, ok := compact.Prepare(path, settings)
		if !ok {
			const msg = "nothing to compact: the path is empty, ends in a compaction, or fits in --keep-recent-tokens"
			if force {
				return exit.Errorf(exit.Failure, "compaction failed: %s", msg)
			}
			app.Warnf(c, "%s (the stream passes through)", msg)
		}
		if ok {
			if err := checkKept(window, settings); err != nil {
				return err
			}
			why := reason(force, overflow, compactNow)
			emit(c, env, event.Event{Type: event.CompactionStart, Reason: why, ContextTokens: tokens, ContextWindow: window, Model: model.Ref()})
			rec, err = summarize(c, env, cat, models, header, path, plan)
			emitEnd(c, env, why, rec, err)
			if err != nil {
				if force {
					return exit.Errorf(exit.Failure, "compaction failed: %v", err)
				}
				app.Warnf(c, "compaction failed (the stream passes through): %v", err)
				rec = nil
			}
		}
	}
	// The stream as it came, with the pruned entries in place and the
	// compaction record after it.
	var repl []splice
	for _, p := range pruned {
		repl = append(repl, splice{st.spans[at[p.Index]], p.Raw})
	}
	slices.SortFunc(repl, func(a, b splice) int { return a.span[0] - b.span[0] }) // path order need not be stream order
	return writeStream(env.Stdout, in, repl, rec)
}

// identity reports whether at is 0, 1, …, n-1.
func identity(at []int, n int) bool {
	if len(at) != n {
		return false
	}
	for k, i := range at {
		if k != i {
			return false
		}
	}
	return true
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
func summarize(c *cli.Context, env *app.Env, cat *llm.Catalog, models []llm.Model, header *session.Header, path []compact.Entry, plan compact.Plan) ([]byte, error) {
	summary, err := withSummarizer(c, env, cat, models, header, func(ask func(string) (string, error)) (string, error) {
		return summaryText(c, plan, ask)
	})
	if err != nil {
		return nil, err
	}
	read, mod := plan.Files.Lists()
	summary = compact.UpsertFileLists(summary, read, mod)
	parent := ""
	if n := len(path); n > 0 {
		parent = path[n-1].ID
	}
	id := session.NewEntryID(rand.Reader, func(string) bool { return false })
	if read == nil {
		read = []string{}
	}
	if mod == nil {
		mod = []string{}
	}
	return json.Marshal(struct {
		Type             string `json:"type"`
		ID               string `json:"id"`
		ParentID         string `json:"parentId"`
		Timestamp        string `json:"timestamp"`
		Summary          string `json:"summary"`
		FirstKeptEntryID string `json:"firstKeptEntryId"`
		TokensBefore     int    `json:"tokensBefore"`
		Details          any    `json:"details"`
		Pending          bool   `json:"pending"`
	}{"compaction", id, parent, session.FormatTime(env.Now()), summary, plan.FirstKeptEntryID, plan.TokensBefore,
		map[string][]string{"readFiles": read, "modifiedFiles": mod}, true})
}

// branchSummary writes the pending branch_summary record for leaving
// --from for --to (reference §4.11), for 'agent-session checkout
// --summary-from -'.
func branchSummary(c *cli.Context, env *app.Env, cat *llm.Catalog, models []llm.Model, header *session.Header, all []session.Record, window int) error {
	b, err := compact.FindBranch(all, c.String("from"), c.String("to"))
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	if window == 0 {
		window = 128000
	}
	// The reference's budget is window − reserve; a small window keeps half.
	msgs, files := compact.BranchMessages(b.Entries, max(window-c.Int("reserve-tokens"), window/2))
	read, mod := files.Lists()
	summary := compact.NoBranchContent
	if len(msgs) > 0 {
		prompt := compact.BranchPrompt(compact.Serialize(session.ConvertToLLM(msgs)), c.String("instructions"))
		emit(c, env, event.Event{Type: event.CompactionStart, Reason: "branch", ContextWindow: window})
		text, err := withSummarizer(c, env, cat, models, header, func(ask func(string) (string, error)) (string, error) { return ask(prompt) })
		if err != nil {
			emitEnd(c, env, "branch", nil, err)
			return exit.Errorf(exit.Failure, "branch summary failed: %v", err)
		}
		summary = compact.UpsertFileLists(compact.BranchPreamble+text, read, mod)
	}
	var parent *string
	from := "root"
	if b.NewLeaf != "" {
		parent, from = &b.NewLeaf, b.NewLeaf
	}
	rec, _ := json.Marshal(struct {
		Type      string              `json:"type"`
		ID        string              `json:"id"`
		ParentID  *string             `json:"parentId"`
		Timestamp string              `json:"timestamp"`
		FromID    string              `json:"fromId"`
		Summary   string              `json:"summary"`
		Details   map[string][]string `json:"details"`
		Pending   bool                `json:"pending"`
	}{"branch_summary", session.NewEntryID(rand.Reader, func(string) bool { return false }), parent, session.FormatTime(env.Now()),
		from, summary, map[string][]string{"readFiles": nonNil(read), "modifiedFiles": nonNil(mod)}, true})
	if len(msgs) > 0 {
		emitEnd(c, env, "branch", rec, nil)
	}
	_, err = fmt.Fprintf(env.Stdout, "%s\n", rec)
	return err
}

// emit writes a progress event to stderr with --events stderr
// (formats/events); stdout stays the session stream.
func emit(c *cli.Context, env *app.Env, ev event.Event) {
	if c.String("events") != "stderr" {
		return
	}
	if ev.Model == "/" {
		ev.Model = ""
	}
	b, _ := json.Marshal(ev)
	fmt.Fprintf(env.Stderr, "%s\n", b)
}

func emitEnd(c *cli.Context, env *app.Env, reason string, rec []byte, err error) {
	ok := err == nil
	ev := event.Event{Type: event.CompactionEnd, Reason: reason, Success: &ok, Entry: rec}
	if err != nil {
		ev.ErrorMessage = err.Error()
	}
	emit(c, env, ev)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// withSummarizer runs summarize with the --summarizer-cmd or with each
// candidate model in turn until one gives a summary.
func withSummarizer(c *cli.Context, env *app.Env, cat *llm.Catalog, models []llm.Model, header *session.Header, summarize func(ask func(string) (string, error)) (string, error)) (string, error) {
	if cmd := c.String("summarizer-cmd"); cmd != "" {
		return summarize(func(prompt string) (string, error) { return commandAsk(c, env, header, cmd, prompt) })
	}
	if len(models) == 0 {
		return "", fmt.Errorf("no model to summarize with: pass --model provider/id")
	}
	var text string
	var err error
	for _, m := range models {
		ask, done, aerr := modelAsk(c, env, cat, m)
		if aerr == nil {
			text, aerr = summarize(ask)
			done()
		}
		if err = aerr; err == nil {
			break
		}
		if len(models) > 1 {
			app.Warnf(c, "summarizing with %s failed: %v", m.Ref(), err)
		}
	}
	return text, err
}

// summaryText is the summary of plan: the history (updating a previous
// summary), plus the prefix of a split turn, each asked of ask.
func summaryText(c *cli.Context, plan compact.Plan, ask func(string) (string, error)) (string, error) {
	conv := func(msgs []json.RawMessage) string { return compact.Serialize(session.ConvertToLLM(msgs)) }
	var summary string
	var err error
	switch {
	case len(plan.Summarize) > 0:
		summary, err = ask(compact.HistoryPrompt(conv(plan.Summarize), plan.PreviousSummary, c.String("instructions")))
	case plan.PreviousSummary != "":
		summary = plan.PreviousSummary
	default:
		summary = compact.NoHistory
	}
	if err != nil {
		return "", err
	}
	if plan.SplitTurn && len(plan.TurnPrefix) > 0 {
		prefix, err := ask(compact.TurnPrefixPrompt(conv(plan.TurnPrefix)))
		if err != nil {
			return "", err
		}
		summary = compact.MergeSplit(summary, prefix)
	}
	return summary, nil
}

// modelAsk asks the model through lib/llm (catalog, keys, retries and
// cassettes as in agent-chat); done closes a recording.
func modelAsk(c *cli.Context, env *app.Env, cat *llm.Catalog, model llm.Model) (ask func(string) (string, error), done func(), err error) {
	done = func() {}
	if model.ID == "" {
		return nil, nil, fmt.Errorf("no model to summarize with: pass --model provider/id")
	}
	client := &provider.Client{HTTP: http.DefaultClient, Now: env.Now}
	opts := llm.Options{MaxTokens: c.Int("reserve-tokens") * 8 / 10, Thinking: "off"}
	if c.String("replay") == "" {
		k, err := cat.ResolveKey(model, c.String("api-key"), env.Getenv)
		if err != nil {
			return nil, nil, err
		}
		opts.APIKey = k.Value
		client.Secrets = []string{opts.APIKey}
	}
	if done, err = client.UseCassettes(c.String("record"), c.String("replay"), env.Abs); err != nil {
		return nil, nil, exit.Wrap(exit.Usage, err)
	}
	ask = func(prompt string) (string, error) {
		msgs := []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock(prompt)}, Timestamp: env.Now().UnixMilli()}}
		m, err := client.Stream(context.Background(), model, llm.Context{SystemPrompt: compact.SystemPrompt, Messages: msgs}, opts, func(llm.Event) {})
		if err != nil {
			return "", err
		}
		if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			return "", fmt.Errorf("Summarization failed: %s", m.ErrorMessage)
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
func commandAsk(c *cli.Context, env *app.Env, header *session.Header, cmd, prompt string) (string, error) {
	var in bytes.Buffer
	now := env.Now()
	cwd := env.Dir
	if header != nil && header.Cwd != "" {
		cwd = header.Cwd
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
	p := exec.CommandContext(c.Context, "sh", "-c", cmd)
	p.Dir, p.Stdin, p.Stdout, p.Stderr = env.Dir, &in, &out, &errb
	p.Env = append(os.Environ(), "AGENT_COMPACT_SYSTEM_PROMPT="+compact.SystemPrompt)
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
				return "", fmt.Errorf("Summarization failed: %s", ev.Message.ErrorMessage)
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

func loadCatalog(c *cli.Context, env *app.Env) (*llm.Catalog, error) {
	return provider.LoadCatalog(env.Abs(c.String("models-file")), env.Getenv)
}

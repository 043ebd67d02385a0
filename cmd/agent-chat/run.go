package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/contextfiles"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/claudestream"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
	"github.com/agentutils/agentutils/lib/prompt"
)

func run(c *cli.Context, env *app.Env) error {
	if c.Bool("render") {
		return renderStream(c, env)
	}
	cat, err := loadCatalog(c, env)
	if err != nil {
		return err
	}
	if c.Bool("list-models") {
		return listModels(c, env, cat)
	}
	switch m := c.String("events"); m {
	case "compact", "full", "final":
	default:
		return exit.Errorf(exit.Usage, "--events must be compact, full or final, not %q", m)
	}
	switch r := c.String("cache-retention"); r {
	case "none", "short", "long":
	default:
		return exit.Errorf(exit.Usage, "--cache-retention must be none, short or long, not %q", r)
	}
	if c.String("record") != "" && c.String("replay") != "" {
		return exit.Errorf(exit.Usage, "--record and --replay cannot be combined")
	}
	env.ErrorRecord = true

	// The git snapshot for the system prompt runs git a few times: it runs
	// while stdin is read and resolved, off the way to the first byte.
	gitSnap := make(chan *prompt.Git, 1)
	go func() { gitSnap <- contextfiles.Git(c.Context, env.Dir) }()

	var st *stream
	if env.StdinTTY {
		st = &stream{}
	} else if st, err = readStream(env.Stdin); err != nil {
		return err
	}
	out := newEmitter(env.Stdout, c.String("events"), c.Duration("throttle"), env.Now)
	if st.upstream != nil {
		out.write(event.Event{Raw: st.upstream})
		return exit.Silent(exit.Failure)
	}
	sessionThinking := setsThinking(st) // else config.toml's applies
	sctx, history, err := st.contextMessages()
	if err != nil {
		return err
	}
	var hks []hooks.Hook
	for _, f := range c.StringSlice("settings") {
		hs, err := hooks.LoadSettings(env.Abs(f))
		if err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		hks = append(hks, hs...)
	}

	// The model: --model, else the context's, else the catalog's default.
	pattern, thinking := c.String("model"), c.String("thinking")
	if pattern == "" {
		pattern = sctx.Models["default"]
	}
	if pattern == "" && c.String("replay") == "" {
		pattern = fileDefault(c, "modelRoles.default") // config.toml
	}
	var model llm.Model
	if pattern != "" {
		m, level, err := cat.Resolve(pattern)
		if err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		model = m
		if thinking == "" {
			thinking = level
		}
	} else if m, ok := replayModel(cat, c.String("replay"), env); ok {
		model = m // a cassette knows the model it was recorded with
	} else {
		m, ok := cat.Default(func(m llm.Model) bool {
			k, err := cat.ResolveKey(m, c.String("api-key"), env.Getenv)
			return err == nil && !k.None
		})
		if !ok {
			return exit.Errorf(exit.Usage, "no model: pass --model provider/id (see --list-models) or set a provider key such as ANTHROPIC_API_KEY")
		}
		model = m
	}
	if thinking == "" && !sessionThinking {
		thinking = fileDefault(c, "defaultThinkingLevel") // config.toml
	}
	if thinking == "" {
		thinking = sctx.ThinkingLevel
	}
	if thinking == "" {
		thinking = "off"
	}
	if !validLevel(thinking) {
		return exit.Errorf(exit.Usage, "--thinking must be one of %s, not %q", strings.Join(llm.ThinkingLevels, ", "), thinking)
	}
	thinking = model.ClampThinking(thinking)

	var tools []llm.Tool
	var procs []*coproc
	var toolset *loop.Toolset
	var validator *loop.Validator
	if cmds := toolCommands(c); len(cmds) > 0 {
		sid := ""
		if st.header != nil {
			sid = st.header.ID
		}
		procs, toolset, err = startTools(c.Context, cmds, env.Dir, sid, env.Stderr)
		if err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		defer stopTools(procs)
		if validator, err = loop.NewValidator(toolset.Tools()); err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		tools = toolsForModel(toolset)
	}
	if f := c.String("tools-json"); f != "" {
		data, err := os.ReadFile(env.Abs(f))
		if err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		more, err := toolsFrom(data)
		if err != nil {
			return exit.Errorf(exit.Usage, "%s: %v", f, err)
		}
		tools = append(tools, more...)
	}

	system, templates, err := systemPrompt(c, env, tools, <-gitSnap)
	if err != nil {
		return err
	}
	sid := ""
	if st.header != nil {
		sid = st.header.ID
	}
	fire := func(in hooks.Input) hooks.Verdict {
		in.SessionID, in.Cwd = sid, env.Dir
		return hooks.Run(c.Context, hks, in, nil, func(w string) { app.Warnf(c, "%s", w) })
	}
	if len(hks) > 0 {
		if v := fire(hooks.Input{Event: hooks.SessionStart, Source: "startup"}); len(v.AdditionalContext) > 0 {
			system += "\n\n" + strings.Join(v.AdditionalContext, "\n\n")
		}
		defer fire(hooks.Input{Event: hooks.SessionEnd, Reason: "other"})
	}
	if c.Bool("print-system-prompt") {
		_, err := fmt.Fprintln(env.Stdout, system)
		return err
	}

	// The prompt.
	content, err := promptContent(env.Dir, c.StringSlice("message"), c.Args().Slice(), st.rest)
	if err != nil {
		return err
	}
	// "/name args" runs a prompt template (commands/*.md, prompts/**/*.md).
	if len(content) > 0 && content[0].Type == "text" {
		out, ok, err := prompt.Expand(content[0].Text, templates)
		if err != nil {
			return exit.Wrap(exit.Usage, err) // a template with bad frontmatter
		}
		if ok {
			content[0].Text = out
		}
		if len(hks) > 0 {
			v := fire(hooks.Input{Event: hooks.PromptSubmit, Prompt: content[0].Text})
			if v.Block {
				return exit.Errorf(exit.Failure, "the prompt was blocked by a UserPromptSubmit hook: %s", v.Reason)
			}
			for _, ctx := range v.AdditionalContext {
				content = append(content, llm.TextBlock(ctx))
			}
		}
	}
	last, hasLast := lastMessage(history)
	if len(content) == 0 && !c.Bool("continue") {
		if !hasLast || last.Role != "user" {
			return exit.Errorf(exit.Usage, "no prompt: give one as arguments, -m TEXT or @FILE, or pass --continue")
		}
	}
	if c.Bool("continue") && hasLast {
		// Drop a trailing overflow error so the model gets the context again.
		if last.Role == "assistant" && last.StopReason == llm.StopError && llm.IsOverflow(last, model.ContextWindow) {
			history = history[:len(history)-1]
		}
	}

	// The key (not needed to replay a cassette).
	var key string
	if c.String("replay") == "" {
		k, err := cat.ResolveKey(model, c.String("api-key"), env.Getenv)
		if err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		key = k.Value
		if k.Command != "" {
			if key, err = keyCommand(c.Context, k.Command); err != nil {
				return exit.Errorf(exit.Usage, "%s: %v", k.Source, err)
			}
		}
	}

	secrets := secretValues(env, key)
	client := &provider.Client{HTTP: http.DefaultClient, Now: env.Now, Secrets: secrets}
	if c.Bool("verbose") {
		client.Warn = func(s string) { app.Warnf(c, "%s", s) }
	}
	done, err := client.UseCassettes(c.String("record"), c.String("replay"), env.Abs)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	defer done()

	opts := llm.Options{MaxTokens: c.Int("max-tokens"), Thinking: thinking, CacheRetention: c.String("cache-retention"), APIKey: key}
	if st.header != nil {
		opts.SessionID = st.header.ID
	}
	if t := c.Float64("temperature"); t >= 0 {
		opts.Temperature = &t
	}
	switch f := c.String("output-format"); f {
	case "pi":
	case "claude":
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		sid := ""
		if st.header != nil {
			sid = st.header.ID
		}
		out.claude = claudestream.New(claudestream.Options{SessionID: sid, Cwd: env.Dir, Model: model.Ref(), Tools: names,
			Version: c.App.Version, IncludePartialMessages: c.String("events") == "full"})
		defer func() {
			if n := c.Int("max-turns"); n > 0 && out.turns >= n && !c.Bool("once") {
				out.claude.MaxTurns()
			}
			out.finish()
		}()
	default:
		return exit.Errorf(exit.Usage, "--output-format must be pi or claude, not %q", f)
	}
	runCtx, abort := context.WithCancel(c.Context)
	defer abort()
	var ctl *control
	if path := c.String("control"); path != "" {
		ctl = &control{}
		go ctl.listen(runCtx, env.Abs(path), abort, func() int64 { return env.Now().UnixMilli() }, func(f string, a ...any) { app.Warnf(c, f, a...) })
	}
	t := &turn{c: c, ctx: runCtx, ctl: ctl, env: env, out: out, fire: fire, hasHooks: len(hks) > 0, client: client, model: model, opts: opts, secrets: llm.NewSecrets(secrets),
		procs: procs, toolset: toolset, validator: validator,
		llmCtx: llm.Context{SystemPrompt: system, History: history, Tools: tools}}

	// Pending records first, then the state changes this run makes.
	for _, p := range st.pending {
		out.emit(event.Entry, func(e *event.Event) { e.Entry = p })
	}
	if model.Ref() != sctx.Models["default"] {
		out.emit(event.Entry, func(e *event.Event) {
			// pi's shape (provider, modelId): pi 0.73 reads no "model".
			e.Entry = msgJSON(struct {
				Type     string `json:"type"`
				Provider string `json:"provider"`
				ModelID  string `json:"modelId"`
			}{"model_change", model.Provider, model.ID})
		})
	}
	if thinking != sctx.ThinkingLevel && !(thinking == "off" && sctx.ThinkingLevel == "") {
		out.emit(event.Entry, func(e *event.Event) {
			e.Entry = msgJSON(struct {
				Type          string `json:"type"`
				ThinkingLevel string `json:"thinkingLevel"`
			}{"thinking_level_change", thinking})
		})
	}
	err = t.run(content)
	if client.Record != nil {
		if rerr := client.Record.Err(); rerr != nil && err == nil {
			err = fmt.Errorf("--record: %v", rerr)
		}
	}
	if out.err != nil && err == nil {
		err = out.err
	}
	return err
}

func validLevel(l string) bool {
	for _, v := range llm.ThinkingLevels {
		if v == l {
			return true
		}
	}
	return false
}

func loadCatalog(c *cli.Context, env *app.Env) (*llm.Catalog, error) {
	return provider.LoadCatalog(env.Abs(c.String("models-file")), env.Getenv)
}

// keyCommand runs a models.toml "!command" key (10 s limit).
func keyCommand(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", command).Output()
	if err != nil {
		return "", fmt.Errorf("key command failed: %v", err)
	}
	k := strings.TrimSpace(string(out))
	if k == "" {
		return "", fmt.Errorf("key command printed nothing")
	}
	return k, nil
}

// secretValues are values that never reach the model or a cassette: the
// key and the values of key-like environment variables (names containing
// KEY, TOKEN, SECRET or PASSWORD).
func secretValues(env *app.Env, key string) []string {
	out := []string{}
	if key != "" && key != "N/A" {
		out = append(out, key)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if strings.Contains(up, "KEY") || strings.Contains(up, "TOKEN") || strings.Contains(up, "SECRET") || strings.Contains(up, "PASSWORD") {
			if v := env.Getenv(name); len(v) >= 8 {
				out = append(out, v)
			}
		}
	}
	return out
}

func systemPrompt(c *cli.Context, env *app.Env, tools []llm.Tool, git *prompt.Git) (string, []prompt.Template, error) {
	opt := contextfiles.DefaultOptions(env.Dir, env.Getenv)
	opt.NoContextFiles = c.Bool("no-context-files")
	opt.NoSkills = c.Bool("no-skills")
	var pt []prompt.Tool
	for _, t := range tools {
		pt = append(pt, prompt.Tool{Name: t.Name, Description: t.Description})
	}
	s, found, err := contextfiles.SystemPrompt(opt, pt, env.Now(), env.Getenv, git,
		contextfiles.ResolvePromptInput(c.String("system-prompt"), env.Dir),
		contextfiles.ResolvePromptInput(c.String("append-system-prompt"), env.Dir))
	if err != nil {
		return "", nil, exit.Wrap(exit.Usage, err)
	}
	return s, found.Templates, nil
}

// turn is one run: the prompt, one model call (retried on transient
// errors), and its events.
type turn struct {
	c      *cli.Context
	env    *app.Env
	out    *emitter
	client *provider.Client
	model  llm.Model
	opts   llm.Options
	llmCtx llm.Context
	// secrets never reach the model: hidden outbound, revealed inbound.
	secrets *llm.Secrets
	// the tool co-processes and their merged tools (nil: no tools to run)
	procs     []*coproc
	toolset   *loop.Toolset
	validator *loop.Validator
	restarted map[int]bool    // co-processes restarted in this run (once each)
	ctx       context.Context // the run's context: SIGINT or a control abort cancels it
	ctl       *control        // --control: steering, follow-ups, thinking level (nil without)
	// Stop hooks: fire runs a hook event; a blocking Stop hook continues the run.
	fire     func(hooks.Input) hooks.Verdict
	hasHooks bool
	stopped  bool // a Stop hook has already continued the run once
	moved    bool // applyControl already emitted the queued messages of this turn
}

// applyControl moves queued control input into the run: a new thinking
// level (with its entry event) and the queued messages as user messages.
// It reports whether any message was added.
func (t *turn) applyControl(stopping bool, added *[]json.RawMessage) bool {
	if t.moved {
		t.moved = false
		return false
	}
	msgs, level := t.ctl.take(stopping)
	if level != "" {
		t.opts.Thinking = t.model.ClampThinking(level)
		lvl := t.opts.Thinking
		t.out.emit(event.Entry, func(e *event.Event) {
			e.Entry = msgJSON(struct {
				Type          string `json:"type"`
				ThinkingLevel string `json:"thinkingLevel"`
			}{"thinking_level_change", lvl})
		})
	}
	for _, m := range msgs {
		t.llmCtx.Messages = append(t.llmCtx.Messages, m)
		raw := msgJSON(m)
		*added = append(*added, raw)
		t.out.emit(event.MessageStart, func(e *event.Event) { e.Message = raw })
		t.out.emit(event.MessageEnd, func(e *event.Event) { e.Message = raw })
	}
	return len(msgs) > 0
}

// toolCommands are the co-processes to start: none with --once, --no-tools
// or --tools-json; --tools-cmd; else agent-tool serve when it is on PATH.
func toolCommands(c *cli.Context) []string {
	if c.Bool("once") || c.Bool("no-tools") || c.String("tools-json") != "" {
		return nil
	}
	if cmds := c.StringSlice("tools-cmd"); len(cmds) > 0 {
		return cmds
	}
	if _, err := exec.LookPath("agent-tool"); err == nil {
		return []string{"agent-tool serve"}
	}
	return nil
}

func (t *turn) run(content []llm.Content) error {
	out := t.out
	var added []json.RawMessage
	out.emit(event.AgentStart, nil)
	out.emit(event.TurnStart, nil)
	if len(content) > 0 {
		// A secret typed in the prompt is stored and shown as its placeholder.
		user := t.secrets.HideMessage(llm.Message{Role: "user", Content: content, Timestamp: t.env.Now().UnixMilli()})
		t.llmCtx.Messages = append(t.llmCtx.Messages, user)
		m := msgJSON(user)
		added = append(added, m)
		out.emit(event.MessageStart, func(e *event.Event) { e.Message = m })
		out.emit(event.MessageEnd, func(e *event.Event) { e.Message = m })
	}
	retries, base := t.c.Int("retries"), time.Duration(t.c.Int("retry-base-ms"))*time.Millisecond
	var final llm.Message
	for turns := 1; ; turns++ {
		t.applyControl(false, &added)
		for attempt := 0; ; attempt++ {
			var err error
			final, err = t.call()
			if err != nil { // a replay mismatch or a codec failure: no message to show
				return err
			}
			llm.UniqueToolCallIDs(&final, t.toolCallTaken)
			if t.ctx.Err() != nil {
				final.StopReason, final.ErrorMessage = llm.StopAborted, "Request was aborted"
			}
			retry := final.StopReason == llm.StopError && llm.IsRetryable(final, t.model.ContextWindow) && attempt < retries
			var m json.RawMessage
			m = msgJSON(final)
			if retry { // kept in the history, dropped from the context (formats/events)
				m = append(m[:len(m)-1:len(m)-1], `,"retried":true}`...)
			}
			added = append(added, m)
			out.emit(event.MessageEnd, func(e *event.Event) { e.Message = m })
			if !retry {
				if attempt > 0 {
					ok := final.StopReason != llm.StopError && final.StopReason != llm.StopAborted
					out.emit(event.AutoRetryEnd, func(e *event.Event) {
						e.Success, e.Attempt = &ok, attempt
						if !ok {
							e.FinalError = final.ErrorMessage
						}
					})
				}
				break
			}
			delay := base << attempt
			if hint := llm.RetryHint(final.ErrorMessage); hint > delay {
				delay = hint
			}
			out.emit(event.AutoRetryStart, func(e *event.Event) {
				e.Attempt, e.MaxAttempts, e.DelayMs, e.ErrorMessage = attempt+1, retries, delay.Milliseconds(), final.ErrorMessage
			})
			select {
			case <-time.After(delay):
			case <-t.ctx.Done():
				f := false
				out.emit(event.AutoRetryEnd, func(e *event.Event) { e.Success, e.Attempt, e.FinalError = &f, attempt+1, "Retry cancelled" })
				t.end(final, added)
				return exit.Silent(exit.Interrupted)
			}
		}
		if n := t.c.Int("max-turns"); n > 0 && final.StopReason == llm.StopToolUse && t.toolset != nil && turns >= n {
			// The turn limit with calls left: each is answered as not run,
			// so the session never holds a call without its result.
			t.llmCtx.Messages = append(t.llmCtx.Messages, final)
			var raws []json.RawMessage
			for _, c := range final.ToolCalls() {
				r := llm.Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name, IsError: true, Timestamp: t.env.Now().UnixMilli(),
					Content: []llm.Content{llm.TextBlock(fmt.Sprintf("Not run: agent-chat stopped at --max-turns %d.", n))}}
				m := msgJSON(r)
				raws = append(raws, m)
				out.emit(event.MessageStart, func(e *event.Event) { e.Message = m })
				out.emit(event.MessageEnd, func(e *event.Event) { e.Message = m })
			}
			added = append(added, raws...)
			m := msgJSON(final)
			out.emit(event.TurnEnd, func(e *event.Event) { e.Message = m; e.ToolResults = raws })
			out.emit(event.MaxTurns, func(e *event.Event) { e.MaxTurns = n })
			out.emit(event.AgentEnd, func(e *event.Event) { e.Messages = added })
			app.Warnf(t.c, "stopped at --max-turns %d with %d tool call(s) left, answered as not run (agent-chat --continue goes on)", n, len(raws))
			return exit.Silent(exit.MaxTurns)
		}
		if final.StopReason == llm.StopToolUse && t.toolset != nil && turns < t.c.Int("max-turns") {
			t.llmCtx.Messages = append(t.llmCtx.Messages, final)
			results := t.runTools(final)
			var raws []json.RawMessage
			for _, r := range results {
				raws = append(raws, msgJSON(r))
			}
			added = append(added, raws...)
			t.llmCtx.Messages = append(t.llmCtx.Messages, results...)
			m := msgJSON(final)
			out.emit(event.TurnEnd, func(e *event.Event) { e.Message = m; e.ToolResults = raws })
			if t.ctx.Err() != nil {
				out.emit(event.AgentEnd, func(e *event.Event) { e.Messages = added })
				return exit.Silent(exit.Interrupted)
			}
			out.emit(event.TurnStart, nil)
			continue
		}
		if final.StopReason == llm.StopStop && t.ctl != nil && turns < t.c.Int("max-turns") && t.ctx.Err() == nil {
			// Follow-ups (and steering that came too late) start the next turn.
			t.llmCtx.Messages = append(t.llmCtx.Messages, final)
			if t.applyControl(true, &added) {
				m := msgJSON(final)
				out.emit(event.TurnEnd, func(e *event.Event) { e.Message = m; e.ToolResults = []json.RawMessage{} })
				out.emit(event.TurnStart, nil)
				t.moved = true
				continue
			}
			t.llmCtx.Messages = t.llmCtx.Messages[:len(t.llmCtx.Messages)-1]
		}
		if final.StopReason == llm.StopStop && t.hasHooks && turns < t.c.Int("max-turns") {
			// A Stop hook that blocks keeps the agent going, its reason as the prompt.
			if v := t.fire(hooks.Input{Event: hooks.Stop, StopHookActive: t.stopped}); v.Block {
				t.stopped = true
				t.llmCtx.Messages = append(t.llmCtx.Messages, final)
				m := msgJSON(final)
				out.emit(event.TurnEnd, func(e *event.Event) { e.Message = m; e.ToolResults = []json.RawMessage{} })
				out.emit(event.TurnStart, nil)
				user := llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(v.Reason)}, Timestamp: t.env.Now().UnixMilli()}
				t.llmCtx.Messages = append(t.llmCtx.Messages, user)
				um := msgJSON(user)
				added = append(added, um)
				out.emit(event.MessageStart, func(e *event.Event) { e.Message = um })
				out.emit(event.MessageEnd, func(e *event.Event) { e.Message = um })
				continue
			}
		}
		break
	}
	overflow := final.StopReason == llm.StopError && llm.IsOverflow(final, t.model.ContextWindow)
	if overflow {
		out.emit(event.ContextOverflow, func(e *event.Event) {
			e.ErrorMessage, e.Model, e.ContextWindow = final.ErrorMessage, t.model.Ref(), t.model.ContextWindow
		})
	}
	if u := final.Usage; final.StopReason != llm.StopError && final.StopReason != llm.StopAborted && u != nil && t.model.ContextWindow > 0 {
		reserve := 16384
		if r := t.model.ContextWindow * 15 / 100; r > reserve {
			reserve = r
		}
		if tokens := u.ContextTokens(); tokens > t.model.ContextWindow-reserve {
			out.emit(event.CompactionSuggested, func(e *event.Event) {
				e.Reason, e.ContextTokens, e.ContextWindow = "threshold", tokens, t.model.ContextWindow
			})
		}
	}
	t.end(final, added)
	switch {
	case final.StopReason == llm.StopAborted:
		return exit.Silent(exit.Interrupted)
	case overflow:
		return exit.Silent(exit.Overflow)
	case final.StopReason == llm.StopError:
		return exit.Errorf(exit.Failure, "%s: %s", t.model.Ref(), final.ErrorMessage)
	}
	return nil
}

// end closes the run: turn_end and agent_end.
func (t *turn) end(final llm.Message, added []json.RawMessage) {
	m := msgJSON(final)
	t.out.emit(event.TurnEnd, func(e *event.Event) { e.Message = m; e.ToolResults = []json.RawMessage{} })
	t.out.emit(event.AgentEnd, func(e *event.Event) { e.Messages = added })
}

// call makes one model call, streaming message_start and updates.
func (t *turn) call() (llm.Message, error) {
	started := false
	// What the model writes keeps its placeholders: events, the session
	// and exports never hold a secret; only a tool gets the real value
	// (execute).
	final, err := t.client.Stream(t.ctx, t.model, t.secrets.Hide(t.llmCtx), t.opts, func(ev llm.Event) {
		if !started && ev.Partial != nil {
			started = true
			m := msgJSON(ev.Partial)
			t.out.emit(event.MessageStart, func(e *event.Event) { e.Message = m })
		}
		switch ev.Type {
		case "start", "done", "error":
		default:
			t.out.update(ev)
		}
	})
	if err != nil {
		return final, exit.Wrap(exit.Failure, err)
	}
	if !started {
		empty := llm.Message{Role: "assistant", Content: []llm.Content{}, API: t.model.API, Provider: t.model.Provider, Model: t.model.ID, StopReason: llm.StopStop, Timestamp: final.Timestamp}
		m := msgJSON(empty)
		t.out.emit(event.MessageStart, func(e *event.Event) { e.Message = m })
	}
	return final, nil
}

// replayModel is the model of the --replay cassette, when there is one
// and it names a model of the catalog.
func replayModel(cat *llm.Catalog, replay string, env *app.Env) (llm.Model, bool) {
	if replay == "" {
		return llm.Model{}, false
	}
	data, err := os.ReadFile(env.Abs(replay))
	if err != nil {
		return llm.Model{}, false // UseCassettes reports it
	}
	cas, err := provider.ReadCassette(replay, data)
	if err != nil {
		return llm.Model{}, false
	}
	return provider.CassetteModel(cat, cas)
}

// toolCallTaken reports whether a tool call id is already used in the
// context: by a message of this run, or anywhere in the history (a plain
// search of its bytes for the quoted id; a false match only renames).
func (t *turn) toolCallTaken(id string) bool {
	for _, m := range t.llmCtx.Messages {
		for _, c := range m.Content {
			if c.Type == "toolCall" && c.ID == id {
				return true
			}
		}
	}
	q, _ := json.Marshal(id)
	for _, h := range t.llmCtx.History {
		if bytes.Contains(h, q) {
			return true
		}
	}
	return false
}

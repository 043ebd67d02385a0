package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/contextfiles"
	"github.com/agentutils/agentutils/internal/copilot"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/internal/subagent"
	"github.com/agentutils/agentutils/lib/claudestream"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/jsonschema"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
	"github.com/agentutils/agentutils/lib/permission"
	"github.com/agentutils/agentutils/lib/prompt"
	"github.com/agentutils/agentutils/lib/redact"
	"github.com/agentutils/agentutils/lib/session"
)

func run(c *cli.Context, env *app.Env) error {
	o, err := optionsFrom(c)
	if err != nil {
		return err
	}
	if o.Render {
		return renderStream(c, env)
	}
	cat, err := provider.LoadCatalog(env.Abs(o.ModelsFile), env.Getenv)
	if err != nil {
		return err
	}
	if o.ListModels {
		return listModels(c, env, cat)
	}
	if o.Login != "" {
		return login(c, env, o)
	}
	if o.answer, err = loadAnswerSchema(env, o.JSONSchema); err != nil {
		return err
	}
	return chat(c, env, o, cat)
}

// answerSchema is --json-schema's: the text the system prompt quotes and
// the compiled schema lib/loop checks the final answer with.
type answerSchema struct {
	text   string
	schema *jsonschema.Schema
}

// loadAnswerSchema reads and compiles --json-schema FILE (nil without).
func loadAnswerSchema(env *app.Env, file string) (*answerSchema, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(env.Abs(file))
	if err == nil {
		var s *jsonschema.Schema
		if s, err = jsonschema.Compile(b); err == nil {
			return &answerSchema{text: strings.TrimSpace(string(b)), schema: s}, nil
		}
	}
	return nil, exit.Errorf(exit.Usage, "--json-schema %s: %v", file, err)
}

// input is what a run starts from: stdin's session stream, resolved.
type input struct {
	st      *stream
	sctx    session.Context
	history []json.RawMessage
	sid     string

	// setsThinking: the session chose a thinking level (else config.toml's
	// applies; sctx says "off" either way).
	setsThinking bool
}

// chat is one run: read the context, pick the model, start the tools,
// build the system prompt and the prompt, then drive lib/loop.
func chat(c *cli.Context, env *app.Env, o Options, cat *llm.Catalog) error {
	env.ErrorRecord = true
	warn := func(s string) { app.Warnf(c, "%s", s) }
	// The git snapshot for the system prompt runs git a few times: it runs
	// while stdin is read and resolved, off the way to the first byte.
	gitSnap := make(chan *prompt.Git, 1)
	go func() { gitSnap <- contextfiles.Git(c.Context, env.Dir) }()

	out := newEmitter(env.Stdout, o.Events, o.Throttle, env.Now)
	in, err := readInput(env, out)
	if err != nil {
		return err
	}
	hks, err := settingsHooks(&o, env)
	if err != nil {
		return err
	}
	o.Permission = permission.WithSession(o.Permission, in.sctx.Mode, o.ModeGiven, c.Bool("person-approves"))
	if in.setsThinking {
		o.ConfigThinking = "" // the session's level wins over config.toml's
	}
	model, thinking, err := pickModel(o, cat, in.sctx, env)
	if err != nil {
		return err
	}
	// The client (its key, its connection dialed now) is made first: off the way to the request.
	client, secrets, key, closeClient, err := newClient(c, o, env, cat, &model)
	if err != nil {
		return err
	}
	defer closeClient()
	if err := sealProc(); err != nil {
		warn(fmt.Sprintf("cannot hide the keys in /proc from the tools: %v", err))
	}
	spent := &spendMeter{}
	notes := &notices{now: func() int64 { return env.Now().UnixMilli() }}
	hm := &hookModel{client: client, model: model, cat: cat, opts0: llm.Options{APIKey: key, SessionID: in.sid, MaxTokens: o.MaxTokens}, notes: notes}
	fire := hookFirer(c, env, o, in, hks, warn, hm)
	defer hm.pending.Wait() // async hooks: their answers are told (notes fed at the end)
	task, err := newTaskRunner(c, o, env, cat, in, model, thinking, spent, fire)
	if err != nil {
		return err
	}
	hm.task = task
	// SessionStart first: its CLAUDE_ENV_FILE is in the tools' environment.
	sessionContext, sessionVars, end := sessionHooks(c.Context, o, in, model, hks, fire, env, warn)
	defer end()
	if task != nil { // a sub-agent's bash sees them too
		task.Env = append(task.Env, sessionVars...)
	}
	tr, validator, tools, err := startToolset(c.Context, o, env, in.sid, toolEnviron(append(env.Environment(), sessionVars...), o.ShellEnv, secrets, hooks.HeaderVars(hks)), task, notes)
	if err != nil {
		return err
	}
	if tr != nil {
		tr.ask.hooks = hm
		defer stopTools(tr.procs)
		tools = offered(o.Permission, tools)
		sayPermissions(env, o.Permission)
	}
	system, templates, err := systemPrompt(o, env, tools, <-gitSnap, sessionContext)
	if err != nil {
		return err
	}
	if o.PrintSystemPrompt {
		_, err := fmt.Fprintln(env.Stdout, system)
		return err
	}
	in.history = fitHistory(o, in.history, model)
	r := &chatRun{c: c, env: env, o: o, out: out, in: in, model: model, thinking: thinking, tools: tools, tr: tr,
		validator: validator, system: system, stopHooks: hooks.Has(hks, hooks.Stop, hooks.SubagentStop), fire: fire, permHooks: hooks.Has(hks, hooks.PermissionRequest), warn: warn, client: client, secrets: secrets, key: key, spent: spent,
		notes: notes, hookWait: hm.pending.Wait}
	r.ctx, r.abort = context.WithCancel(c.Context)
	defer r.abort()
	content, err := userPrompt(o, env, in, templates, hooks.Has(hks, hooks.PromptSubmit) && !in.subagent(), fire)
	if err != nil {
		return err
	}
	return r.drive(content)
}

// settingsHooks reads the hooks of the --settings files, whose paths it
// makes absolute (as the default agent-tool serve gets them).
func settingsHooks(o *Options, env *app.Env) ([]hooks.Hook, error) {
	hks, err := loadSettings(o.Settings, env)
	if err != nil {
		return nil, err
	}
	for i, f := range o.Settings {
		o.Settings[i] = env.Abs(f)
	}
	return hks, nil
}

// fitHistory is the history a --continue run sends: what overflows the
// model's window dropped.
func fitHistory(o Options, history []json.RawMessage, model llm.Model) []json.RawMessage {
	if last, ok := lastMessage(history); o.Continue && ok {
		return loop.DropOverflow(history, last, model.ContextWindow)
	}
	return history
}

// chatRun is a run made ready: what drive needs.
type chatRun struct {
	c         *cli.Context
	env       *app.Env
	o         Options
	out       *emitter
	in        input
	model     llm.Model
	thinking  string
	tools     []llm.Tool
	tr        *toolRunner
	validator *jsonschema.Validator
	system    string
	stopHooks bool
	permHooks bool // PermissionRequest hooks decide what would need approval
	fire      func(hooks.Input) hooks.Verdict
	warn      func(string)
	client    *provider.Client
	secrets   []string
	key       string
	spent     *spendMeter
	notes     *notices        // the tools' and the async hooks' news for the model
	hookWait  func()          // waits for the async hooks still running
	ctx       context.Context // the run's: SIGINT or a control abort cancels it
	abort     func()
}

// options are the model calls' options (the loop sets the thinking level
// of each).
func (r *chatRun) options() llm.Options {
	o := r.o
	return llm.Options{MaxTokens: o.MaxTokens, Thinking: r.thinking, CacheRetention: o.CacheRetention, APIKey: r.key, SessionID: r.in.sid, Temperature: o.Temperature}
}

func (r *chatRun) loopConfig() loop.Config {
	o := r.o
	return loop.Config{Model: r.model, Context: llm.Context{SystemPrompt: r.system, History: r.in.history, Tools: r.tools},
		Thinking: r.thinking, Tools: r.tr.set(), Validator: r.validator, MaxTurns: o.MaxTurns, Retries: o.Retries, RetryBase: o.RetryBase,
		Control: o.Control != "", StopHooks: r.stopHooks, Answer: o.answer.compiled()}
}

// compiled is the schema the final answer must match, or nil.
func (a *answerSchema) compiled() *jsonschema.Schema {
	if a == nil {
		return nil
	}
	return a.schema
}

// drive sets up the output and --control, then runs lib/loop with the
// driver.
func (r *chatRun) drive(content []llm.Content) error {
	c, env, o, out, in, model, thinking := r.c, r.env, r.o, r.out, r.in, r.model, r.thinking
	if o.OutputFormat == "claude" {
		out.claude = claudeTranslator(c, o, env, in.sid, model, r.tools)
		defer func() {
			if o.MaxTurns > 0 && out.turns >= o.MaxTurns && !o.Once {
				out.claude.MaxTurns()
			}
			out.finish()
		}()
	}
	var ctl *control
	if o.Control != "" {
		ctl = &control{}
		go ctl.listen(r.ctx, env.Abs(o.Control), r.abort, func() int64 { return env.Now().UnixMilli() }, func(f string, a ...any) { app.Warnf(c, f, a...) })
	}
	opts := r.options()
	r.client.Quiet, r.client.Sent = out.flush, out.flush
	d := &driver{env: env, ctx: r.ctx, out: out, client: r.client, model: model, opts: opts, secrets: llm.NewSecrets(r.secrets).Seal(r.key),
		tools: r.tr, notes: r.notes, ctl: ctl, fire: r.fire, warn: r.warn, perm: r.o.Permission, spent: r.spent, stop: r.stopInput(), permHooks: r.permHooks}
	l := loop.New(r.loopConfig())
	startEntries(out, in, model, thinking, o.Permission)
	if len(content) > 0 && o.Checkpoint {
		out.gate, out.warn = r.checkpoint(), r.warn
	}
	var prompt *llm.Message
	if len(content) > 0 {
		// A secret typed in the prompt is stored and shown as its placeholder.
		p := d.secrets.HideMessage(llm.Message{Role: "user", Content: content, Timestamp: env.Now().UnixMilli()})
		prompt = &p
	}
	err := d.run(l, prompt)
	out.wait() // a run with no tool call: the checkpoint still goes first
	// The notices that came after the last turn go into the session: the
	// model reads them with the next prompt.
	r.tr.stop(l)
	r.hookWait()
	r.notes.feed(l)
	for _, e := range l.Notices() {
		out.event(e)
	}
	if r.client.Record != nil {
		if rerr := r.client.Record.Err(); rerr != nil && err == nil {
			err = fmt.Errorf("--record: %v", rerr)
		}
	}
	if out.err != nil && err == nil {
		err = out.err
	}
	return err
}

// readInput reads and resolves stdin's session stream. An error record
// of an earlier stage is passed on and ends the run (exit 1).
func readInput(env *app.Env, out *emitter) (input, error) {
	var in input
	if env.StdinTTY {
		in.st = &stream{}
	} else {
		st, err := readStream(env.Stdin)
		if err != nil {
			return in, err
		}
		in.st = st
	}
	if in.st.upstream != nil {
		out.write(event.Event{Raw: in.st.upstream})
		return in, exit.Silent(exit.Failure)
	}
	if in.st.header != nil {
		in.sid = in.st.header.ID
	}
	var err error
	in.setsThinking = setsThinking(in.st)
	in.sctx, in.history, err = in.st.contextMessages()
	return in, err
}

// hookFirer runs the hooks of an event of this run, with the session's
// fields filled in; prompt, agent and async hooks through hm.
func hookFirer(c *cli.Context, env *app.Env, o Options, in input, hks []hooks.Hook, warn func(string), hm *hookModel) func(hooks.Input) hooks.Verdict {
	mode := "default"
	if o.Permission != nil && o.Permission.Mode != "" {
		mode = o.Permission.Mode
	}
	return func(h hooks.Input) hooks.Verdict {
		h.SessionID, h.Cwd, h.PermissionMode = in.sid, env.Dir, mode
		if in.st.header != nil {
			h.TranscriptPath = in.st.header.File
		}
		return hooks.RunOpts(c.Context, hks, h, hm.opts(warn))
	}
}

// sessionHooks fires SessionStart (startup; resume when the session has
// messages; compact when an agent-compact before this one compacted it):
// the context its hooks add for the system prompt, the variables they
// wrote to CLAUDE_ENV_FILE for the tools, and what fires SessionEnd;
// none in a sub-agent or with --no-session-hooks.
func sessionHooks(ctx context.Context, o Options, in input, model llm.Model, hks []hooks.Hook, fire func(hooks.Input) hooks.Verdict, env *app.Env, warn func(string)) (string, []string, func()) {
	if !hooks.Has(hks, hooks.SessionStart, hooks.SessionEnd) || o.NoSessionHooks || in.subagent() {
		return "", nil, func() {}
	}
	source := "startup"
	switch {
	case in.st.compacted:
		source = "compact"
	case len(in.history) > 0:
		source = "resume"
	}
	var vars []string
	if hooks.Has(hks, hooks.SessionStart) {
		file, rm, err := hooks.NewEnvFile()
		if err != nil {
			warn(fmt.Sprintf("CLAUDE_ENV_FILE: %v", err))
		}
		v := fire(hooks.Input{Event: hooks.SessionStart, Source: source, Model: model.Ref(), EnvFile: file})
		if file != "" {
			if vars, err = hooks.ReadEnvFile(ctx, file, env.Environment()); err != nil {
				warn(err.Error())
			}
			rm()
		}
		return strings.Join(v.AdditionalContext, "\n\n"), vars, func() { fire(hooks.Input{Event: hooks.SessionEnd, Reason: "other"}) }
	}
	return "", nil, func() { fire(hooks.Input{Event: hooks.SessionEnd, Reason: "other"}) }
}

// stopInput is the Stop hook's input, SubagentStop's in a sub-agent (its
// type in AGENT_SUBAGENT_TYPE, set by the parent's task tool).
func (r *chatRun) stopInput() hooks.Input {
	if !r.in.subagent() {
		return hooks.Input{Event: hooks.Stop}
	}
	return hooks.Input{Event: hooks.SubagentStop, AgentID: r.in.sid, AgentType: r.env.Getenv(subagent.TypeVar), AgentTranscriptPath: r.in.st.header.File}
}

// subagent says whether this run is a sub-agent's: its session names the
// parent's tool call.
func (in input) subagent() bool { return in.st.header != nil && in.st.header.ParentToolCallID != "" }

// loadSettings reads the hooks of every --settings file. (Its warnings,
// hooks left out, are agent-tool's to say: it reads the same files.)
func loadSettings(files []string, env *app.Env) ([]hooks.Hook, error) {
	var hks []hooks.Hook
	for _, f := range files {
		hs, _, err := hooks.LoadSettings(env.Abs(f))
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
		hks = append(hks, hs...)
	}
	return hks, nil
}

// pickModel chooses the model: --model, else the context's, else the
// cassette's, else config.toml's, else the catalog's default with a key;
// and its thinking level (--thinking, the model pattern's, config.toml's
// unless the session chose one, the context's, off), clamped.
func pickModel(o Options, cat *llm.Catalog, sctx session.Context, env *app.Env) (llm.Model, string, error) {
	pattern, thinking := o.Model, o.Thinking
	if pattern == "" {
		pattern = sctx.Models["default"]
	}
	if pattern == "" && o.Replay == "" {
		pattern = o.ConfigModel // config.toml's (a cassette knows its own)
	}
	var model llm.Model
	if pattern != "" {
		m, level, err := cat.Resolve(pattern)
		if err != nil {
			return model, "", exit.Wrap(exit.Usage, err)
		}
		model = m
		if thinking == "" {
			thinking = level
		}
	} else if m, ok := replayModel(cat, o.Replay, env); ok {
		model = m // a cassette knows the model it was recorded with
	} else {
		m, ok := cat.Default(func(m llm.Model) bool {
			k, err := cat.ResolveKey(m, o.APIKey, env.Getenv)
			return err == nil && k.Given()
		})
		if !ok {
			return model, "", exit.Errorf(exit.Usage, "no model: pass --model provider/id (see --list-models) or set a provider key such as ANTHROPIC_API_KEY")
		}
		model = m
	}
	if thinking == "" {
		thinking = o.ConfigThinking
	}
	if thinking == "" {
		thinking = sctx.ThinkingLevel
	}
	if thinking == "" {
		thinking = "off"
	}
	if !slices.Contains(llm.ThinkingLevels, thinking) {
		return model, "", exit.Errorf(exit.Usage, "--thinking must be one of %s, not %q", strings.Join(llm.ThinkingLevels, ", "), thinking)
	}
	return model, model.ClampThinking(thinking), nil
}

// startToolset starts the tool co-processes and reads --tools-json: the
// runner (nil without co-processes), the argument validator and the
// tools offered to the model.
func startToolset(ctx context.Context, o Options, env *app.Env, sid string, environ []string, task *subagent.Runner, notes *notices) (*toolRunner, *jsonschema.Validator, []llm.Tool, error) {
	var tools []llm.Tool
	var tr *toolRunner
	var validator *jsonschema.Validator
	if cmds := o.toolCommands(); len(cmds) > 0 {
		ask := &asker{cmd: o.AskCmd, dir: env.Dir, environ: environ, stderr: env.Stderr}
		ask.perm.Store(o.Permission)
		if f := o.Answers; f != "" {
			data, err := os.ReadFile(env.Abs(f))
			if err == nil {
				ask.answers, err = answersFrom(data)
			}
			if err != nil {
				return nil, nil, nil, exit.Errorf(exit.Usage, "--answers %s: %v", f, err)
			}
		}
		procs, sources, err := startTools(ctx, cmds, env.Dir, sid, environ, env.Stderr, ask, notes)
		if err != nil {
			return nil, nil, nil, exit.Wrap(exit.Usage, err)
		}
		tr = &toolRunner{procs: procs, environ: environ, ask: ask, task: task, notes: notes}
		if task != nil {
			sources = append(sources, loop.Source{Name: "agent-chat", Tools: []event.ToolDef{subagent.Def(task.Agents, task.Hosts)}})
		}
		var toolset *loop.Toolset
		sources, err = onlyTools(sources, o.Tools)
		if err == nil {
			toolset, err = loop.Merge(sources)
		}
		if err == nil {
			tr.toolset = toolset
			validator, err = jsonschema.NewValidator(toolset.Defs())
		}
		if err != nil {
			stopTools(procs)
			return nil, nil, nil, exit.Wrap(exit.Usage, err)
		}
		tools = toolsForModel(toolset)
	}
	if f := o.ToolsJSON; f != "" {
		data, err := os.ReadFile(env.Abs(f))
		if err == nil {
			var more []llm.Tool
			if more, err = toolsFrom(data); err != nil {
				err = fmt.Errorf("%s: %v", f, err)
			}
			tools = append(tools, more...)
		}
		if err != nil {
			if tr != nil {
				stopTools(tr.procs)
			}
			return nil, nil, nil, exit.Wrap(exit.Usage, err)
		}
	}
	return tr, validator, tools, nil
}

// userPrompt is the prompt's content: "/name args" runs a prompt template
// (commands/*.md, prompts/**/*.md) and a UserPromptSubmit hook may block
// it or add context. Without a prompt the context must end with a user
// message, or --continue says to go on.
func userPrompt(o Options, env *app.Env, in input, templates []prompt.Template, hasHooks bool, fire func(hooks.Input) hooks.Verdict) ([]llm.Content, error) {
	content, err := promptContent(env.Dir, o.Messages, o.Args, in.st.rest)
	if err != nil {
		return nil, err
	}
	if len(content) > 0 && content[0].Type == "text" {
		out, ok, err := prompt.Expand(content[0].Text, templates)
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err) // a template with bad frontmatter
		}
		if ok {
			content[0].Text = out
		}
		if hasHooks {
			v := fire(hooks.Input{Event: hooks.PromptSubmit, Prompt: content[0].Text})
			if v.Stop {
				return nil, exit.Errorf(exit.Failure, "a UserPromptSubmit hook stopped the run: %s", v.StopReason)
			}
			if v.Block {
				return nil, exit.Errorf(exit.Failure, "the prompt was blocked by a UserPromptSubmit hook: %s", v.Reason)
			}
			for _, ctx := range v.AdditionalContext {
				content = append(content, llm.TextBlock(ctx))
			}
		}
	}
	if len(content) == 0 && !o.Continue {
		if last, ok := lastMessage(in.history); !ok || last.Role != "user" {
			return nil, exit.Errorf(exit.Usage, "no prompt: give one as arguments, -m TEXT or @FILE, or pass --continue")
		}
	}
	return content, nil
}

// newClient resolves the key (not needed to replay a cassette), makes the
// provider client and sets up --record and --replay; secrets are the
// values never sent or stored. The client's first connection to the
// model's server is dialed now (provider.Client.Warm), unless there will be
// no request. done closes what the client holds.
func newClient(c *cli.Context, o Options, env *app.Env, cat *llm.Catalog, model *llm.Model) (client *provider.Client, secrets []string, key string, done func(), err error) {
	done = func() {}
	var login func(*provider.Client)
	if o.PrintSystemPrompt { // no request
		return &provider.Client{HTTP: http.DefaultClient, Now: env.Now}, nil, "", done, nil
	}
	if o.Replay == "" {
		k, err := cat.ResolveKey(*model, o.APIKey, env.Getenv)
		if err != nil {
			return nil, nil, "", done, exit.Wrap(exit.Usage, err)
		}
		key = k.Value
		if k.Command != "" {
			if key, err = keyCommand(c.Context, k.Command); err != nil {
				return nil, nil, "", done, exit.Errorf(exit.Usage, "%s: %v", k.Source, err)
			}
		}
		if k.Login != "" {
			f, st := copilotFlow(env)
			t, err := f.Cached(c.Context, st)
			if err != nil {
				return nil, nil, "", done, exit.Errorf(exit.Usage, "%s: %v", model.Ref(), err)
			}
			key = t.Value
			if model.BaseURL == copilot.DefaultBaseURL { // not set in models.toml
				model.BaseURL = t.BaseURL
			}
			// The token lives about 30 minutes: each request gets one with
			// time left, and a 401 fetches a new one; X-Initiator says
			// whether the person or the agent (after a tool) asks.
			login = func(cl *provider.Client) {
				cl.Key = f.Key(st, t)
				cl.Headers = func(lc llm.Context) map[string]string { return map[string]string{"X-Initiator": copilot.Initiator(lc)} }
			}
		}
	}
	secrets = secretValues(env, key)
	client = &provider.Client{HTTP: http.DefaultClient, Now: env.Now, Secrets: secrets}
	if login != nil {
		login(client)
	}
	if o.Verbose {
		client.Warn = func(s string) { app.Warnf(c, "%s", s) }
	}
	closeCassette, err := client.UseCassettes(o.Record, o.Replay, env.Abs)
	if err != nil {
		return nil, nil, "", done, exit.Wrap(exit.Usage, err)
	}
	unwarm := func() {}
	if o.Replay == "" {
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			unwarm = client.Warm(t, model.BaseURL)
		}
	}
	return client, secrets, key, func() { unwarm(); closeCassette() }, nil
}

// claudeTranslator turns the events into Claude Code's stream-json.
func claudeTranslator(c *cli.Context, o Options, env *app.Env, sid string, model llm.Model, tools []llm.Tool) *claudestream.Translator {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return claudestream.New(claudestream.Options{SessionID: sid, Cwd: env.Dir, Model: model.Ref(), Tools: names,
		Version: c.App.Version, IncludePartialMessages: o.Events == "full"})
}

// startEntries writes the pending records, then the state changes this
// run makes (model, thinking level).
func startEntries(out *emitter, in input, model llm.Model, thinking string, perm *permission.Policy) {
	for _, p := range in.st.pending {
		out.emit(event.Entry, func(e *event.Event) { e.Entry = p })
	}
	if model.Ref() != in.sctx.Models["default"] {
		out.emit(event.Entry, func(e *event.Event) {
			// pi's shape (provider, modelId): pi 0.73 reads no "model".
			e.Entry = msgJSON(struct {
				Type     string `json:"type"`
				Provider string `json:"provider"`
				ModelID  string `json:"modelId"`
			}{"model_change", model.Provider, model.ID})
		})
	}
	if thinking != in.sctx.ThinkingLevel && !(thinking == "off" && in.sctx.ThinkingLevel == "") {
		out.event(loop.ThinkingEntry(thinking))
	}
	if mode, ok := permission.ModeEntry(perm, in.sctx.Mode); ok {
		out.event(*modeEvent(mode))
	}
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
// key and the values of variables whose names look secret
// (redact.SecretName).
func secretValues(env *app.Env, key string) []string {
	out := []string{}
	if key != "" && key != "N/A" {
		out = append(out, key)
	}
	for _, kv := range env.Environment() {
		name, _, _ := strings.Cut(kv, "=")
		if redact.SecretName(name) {
			if v := env.Getenv(name); len(v) >= redact.MinLen {
				out = append(out, v)
			}
		}
	}
	return out
}

func systemPrompt(o Options, env *app.Env, tools []llm.Tool, git *prompt.Git, sessionContext string) (string, []prompt.Template, error) {
	opt := contextfiles.DefaultOptions(env.Dir, env.Getenv)
	opt.NoContextFiles = o.NoContextFiles
	opt.NoSkills = o.NoSkills
	var pt []prompt.Tool
	for _, t := range tools {
		pt = append(pt, prompt.Tool{Name: t.Name, Description: t.Description})
	}
	s, found, err := contextfiles.SystemPrompt(opt, pt, env.Now(), env.Getenv, git,
		contextfiles.ResolvePromptInput(o.SystemPrompt, env.Dir),
		appended(o.AppendSystemPrompt, env.Dir))
	if err != nil {
		return "", nil, exit.Wrap(exit.Usage, err)
	}
	if p := o.Permission; p != nil && p.Mode == "plan" {
		s += "\n\n" + permission.PlanPrompt
	}
	if o.answer != nil {
		s += "\n\nYour final answer must be a JSON document, and nothing else, valid for this JSON Schema:\n\n" + o.answer.text
	}
	if sessionContext != "" { // what SessionStart hooks added
		s += "\n\n" + sessionContext
	}
	return s, found.Templates, nil
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

// appended is what --append-system-prompt adds: each TEXT or file, joined
// by blank lines.
func appended(texts []string, dir string) string {
	var out []string
	for _, t := range texts {
		out = append(out, contextfiles.ResolvePromptInput(t, dir))
	}
	return strings.Join(out, "\n\n")
}

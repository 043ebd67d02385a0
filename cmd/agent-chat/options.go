package main

import (
	"os/exec"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	sbflags "github.com/agentutils/agentutils/internal/sandbox/flags"
	"github.com/agentutils/agentutils/lib/config"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/permission"
)

// Options is what the command line asks for, checked: the pure step
// between the flags and the run (no file, network or process is touched).
type Options struct {
	Render, ListModels, PrintSystemPrompt bool
	Login                                 string
	Verbose                               bool
	Color                                 string

	Model, Thinking, APIKey, ModelsFile string
	Messages, Args                      []string
	Continue, Once                      bool

	// ConfigModel and ConfigThinking are config.toml's (applyConfig): they
	// come after the session's; a flag or AGENT_ variable is Model/Thinking.
	ConfigModel, ConfigThinking string

	ToolsCmd []string // the co-processes to start (none with --once, --no-tools or --tools-json)
	Sandbox  []string // agent-tool's sandbox arguments, passed to the agent-tool commands
	ShellEnv []string // secret-looking variables the tools may see (--shell-env, shell.env)
	// Permission refuses tool calls as Claude Code's modes and rules say
	// (nil: no mode or rule given, nothing refused here).
	Permission *permission.Policy
	NoTools    bool
	Tools      []string // --tools: the only tools offered
	Checkpoint bool     // --checkpoint: scan the workspace before the prompt
	// MaxTaskDepth is how many levels of sub-agents may run below this
	// agent (0: no task tool); MaxParallelTasks how many at once.
	MaxTaskDepth, MaxParallelTasks int
	ToolsJSON                      string
	Answers                        string // the answers to the ask tool's questions (--answers)
	AskCmd                         string // the command that puts the tools' questions to a person (--ask-cmd)
	// ModeGiven: the permission mode comes from the command line or the
	// environment, and wins over the session's.
	ModeGiven bool
	// JSONSchema is --json-schema's file; answer is its schema, compiled by
	// run, which the final answer must match.
	JSONSchema string
	answer     *answerSchema
	Settings   []string
	Control    string

	MaxTurns, Retries, MaxTokens int
	RetryBase                    time.Duration
	Temperature                  *float64
	CacheRetention               string

	SystemPrompt       string
	AppendSystemPrompt []string
	NoContextFiles     bool
	NoSkills           bool
	NoSessionHooks     bool

	OutputFormat, Events string
	Throttle             time.Duration
	Record, Replay       string
}

// optionsFrom reads and checks the flags. --render and --list-models take
// no other checks; a bad value is a usage error (exit 2) naming the flag.
func optionsFrom(c *cli.Context) (Options, error) {
	o := Options{
		Render: c.Bool("render"), ListModels: c.Bool("list-models"), Login: c.String("login"), PrintSystemPrompt: c.Bool("print-system-prompt"),
		Verbose: c.Bool("verbose"), Color: c.String("color"),
		Model: c.String("model"), Thinking: c.String("thinking"), APIKey: c.String("api-key"), ModelsFile: c.String("models-file"),
		Messages: c.StringSlice("message"), Args: c.Args().Slice(), Continue: c.Bool("continue"), Once: c.Bool("once"),
		NoTools: c.Bool("no-tools"), Checkpoint: c.Bool("checkpoint"), ToolsJSON: c.String("tools-json"), Answers: c.String("answers"), AskCmd: c.String("ask-cmd"), JSONSchema: c.String("json-schema"), Settings: c.StringSlice("settings"), Control: c.String("control"),
		MaxTaskDepth: c.Int("max-task-depth"), MaxParallelTasks: c.Int("max-parallel-tasks"),
		MaxTurns: c.Int("max-turns"), Retries: c.Int("retries"), MaxTokens: c.Int("max-tokens"),
		RetryBase:      time.Duration(c.Int("retry-base-ms")) * time.Millisecond,
		CacheRetention: c.String("cache-retention"),
		SystemPrompt:   c.String("system-prompt"), AppendSystemPrompt: c.StringSlice("append-system-prompt"), NoSessionHooks: c.Bool("no-session-hooks"),
		NoContextFiles: c.Bool("no-context-files"), NoSkills: c.Bool("no-skills"),
		OutputFormat: c.String("output-format"), Events: c.String("events"), Throttle: c.Duration("throttle"),
		Record: c.String("record"), Replay: c.String("replay"),
		ConfigModel: fileDefault(c, "modelRoles.default"), ConfigThinking: fileDefault(c, "defaultThinkingLevel"),
		ShellEnv: configShellEnv(c),
	}
	var err error
	if o.Permission, err = configPolicy(c); err != nil {
		return o, err
	}
	if cfg, ok := c.App.Metadata["config"].(config.Config); ok {
		src := cfg.Get("permissions.defaultMode").Source
		o.ModeGiven = src == config.Flag || src == config.Env
	}
	if t := c.Float64("temperature"); t >= 0 {
		o.Temperature = &t
	}
	if !o.Once && !o.NoTools && o.ToolsJSON == "" {
		o.ToolsCmd = c.StringSlice("tools-cmd")
	}
	for _, t := range strings.Split(c.String("tools"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.Tools = append(o.Tools, t)
		}
	}
	if o.MaxTaskDepth < 0 || o.MaxParallelTasks < 1 {
		return o, exit.Errorf(exit.Usage, "--max-task-depth must be 0 or more and --max-parallel-tasks 1 or more")
	}
	if o.Sandbox, err = sbflags.PassArgs(c, "."); err != nil {
		return o, exit.Wrap(exit.Usage, err)
	}
	if o.Render || o.ListModels || o.Login != "" {
		return o, nil
	}
	switch o.Events {
	case "compact", "full", "final":
	default:
		return o, exit.Errorf(exit.Usage, "--events must be compact, full or final, not %q", o.Events)
	}
	switch o.CacheRetention {
	case "none", "short", "long":
	default:
		return o, exit.Errorf(exit.Usage, "--cache-retention must be none, short or long, not %q", o.CacheRetention)
	}
	if o.Record != "" && o.Replay != "" {
		return o, exit.Errorf(exit.Usage, "--record and --replay cannot be combined")
	}
	switch o.OutputFormat {
	case "pi", "claude":
	default:
		return o, exit.Errorf(exit.Usage, "--output-format must be pi or claude, not %q", o.OutputFormat)
	}
	return o, nil
}

// toolCommands are the co-processes to start: --tools-cmd, else
// agent-tool serve when it is on PATH (none with --once, --no-tools or
// --tools-json).
func (o Options) toolCommands() []string {
	cmds := o.ToolsCmd
	if len(o.ToolsCmd) == 0 && !o.Once && !o.NoTools && o.ToolsJSON == "" {
		if _, err := exec.LookPath("agent-tool"); err == nil {
			var settings []string // the tool hooks of --settings run there
			for _, f := range o.Settings {
				settings = append(settings, "--settings", f)
			}
			cmds = []string{sbflags.PassTo("agent-tool serve", settings)}
		}
	}
	out := make([]string, 0, len(cmds))
	for _, c := range cmds {
		out = append(out, sbflags.PassTo(c, o.Sandbox))
	}
	return out
}

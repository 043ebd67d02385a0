package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	sbflags "github.com/agentutils/agentutils/internal/sandbox/flags"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name: "agent-chat",
		// -m "yes, go on" is one prompt; --tools-cmd "x --a,b" one command.
		DisableSliceFlagSeparator: true,
		Usage:                     "send a session to a model and stream the answer as agent events",
		ArgsUsage:                 "[PROMPT|@FILE|-]...",
		Description: `agent-chat reads session records on stdin (the stream of 'agent-session open', until EOF or a
{"type":"context_end"} line), resolves them into the model's context with the same resolver every
stage uses (holding, of a stream that is one chain, only what follows the newest compaction's
kept part and the state changes before it), adds the prompt from its arguments, calls the model once and writes agent events
(formats/events) on stdout: agent_start, turn_start, message_start/update/end, turn_end,
agent_end, plus entry, auto_retry_start/end, context_overflow and compaction_suggested.
Records marked "pending" are echoed first as entry events, so 'agent-session append' stays the
only writer. Tools are sent to the model with --tools-json; with --once the run ends at the
turn's end whatever the stop reason, so a shell loop can run the tools (agent-tool run).

The prompt is the arguments joined by spaces; @FILE adds a file (text, or an image by its
extension); - reads prompt text from stdin after the records. Without a prompt the last
context message must be a user message, or --continue says to go on from the context.

Models come from the embedded catalog and $XDG_CONFIG_HOME/agentutils/models.toml (--models-file);
keys from the provider's variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …),
models.toml apiKey, or --api-key. --record writes every provider exchange to a cassette and
--replay answers from one, offline and without a key (and with the cassette's model unless
--model names one).

Defaults for the model, thinking level and tools come from config.toml: the project's
(.agentutils/config.toml, the nearest from here up) over the user's
($XDG_CONFIG_HOME/agentutils/config.toml), under AGENT_MODEL, AGENT_THINKING, AGENT_TOOLS_CMD
and the flags; a session's own model and level win over the files'. --print-config shows the
merge and where each value came from (see agentutils(7)).

--permission-mode, --allowed-tools and --disallowed-tools take Claude Code's modes and rules
(claude -p's meanings: what would need approval is refused, there being no one to ask) and say
on stderr at the start what they let run; without any of them agent-chat refuses nothing itself
(agent-tool's policy, hooks and sandbox still apply).

With tool commands agent-chat also offers the task tool: a sub-agent run as a nested pipeline
of these commands, with its own session file beside the parent's (agent-session new --parent
--parent-tool-call), the parent's sandbox, tool commands and model, a budget carved from the
parent's, --max-task-depth levels below and --max-parallel-tasks at once; agent definitions come
from .agentutils/agents/*.md and .claude/agents/*.md (see the README, "Sub-agents").

Examples:
   agent-session open "$S" | agent-chat "explain main.go" | agent-session append "$S" --tee | agent-chat --render
   agent-chat --permission-mode acceptEdits --allowed-tools 'Bash(go test:*)' "fix the failing test" < /dev/null
   agent-chat --tools read,grep,task --max-task-depth 1 "find the parser; hand the search to a sub-agent" < /dev/null
   agent-chat --list-models sonnet
   agent-chat --print-config
   agent-session open "$S" | agent-chat --once --model openai/gpt-5.1 --thinking high "review this"
   agent-chat --replay testdata/cassettes/demo.jsonl --once "fix the test" < /dev/null`,
		Flags:  flags(),
		Before: func(c *cli.Context) error { return applyConfig(c, env) },
		Action: func(c *cli.Context) error { return run(c, env) },
	}
}

func flags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "model", Usage: "`PATTERN`: provider/id, id, or a fuzzy name; an optional :LEVEL suffix sets thinking (default $AGENT_MODEL, else the session's, else config.toml's modelRoles.default)"},
		&cli.StringFlag{Name: "thinking", Usage: "thinking `LEVEL`: off, minimal, low, medium, high, xhigh (default $AGENT_THINKING, else the session's, else config.toml's defaultThinkingLevel)"},
		&cli.StringFlag{Name: "api-key", Usage: "API `KEY` for the chosen model's provider (overrides the environment)"},
		&cli.StringFlag{Name: "models-file", Usage: "models.toml `FILE` (default $XDG_CONFIG_HOME/agentutils/models.toml)"},
		&cli.StringSliceFlag{Name: "message", Aliases: []string{"m"}, Usage: "prompt `TEXT` (repeatable; joined by blank lines)"},
		&cli.BoolFlag{Name: "continue", Usage: "no new prompt: continue from the context"},
		&cli.BoolFlag{Name: "once", Usage: "one model call; exit at turn_end whatever the stop reason"},
		&cli.StringSliceFlag{Name: "shell-env", Usage: "let variable `NAME` through to the tools although its name looks secret (*KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *CREDENTIAL*); repeatable; default $AGENT_SHELL_ENV (comma-separated), else config.toml's shell.env"},
		&cli.StringSliceFlag{Name: "tools-cmd", Usage: "tool co-process `COMMAND` (repeatable; default $AGENT_TOOLS_CMD, else config.toml's toolsCmd, else \"agent-tool serve\" when agent-tool is on PATH)"},
		&cli.BoolFlag{Name: "no-tools", Usage: "offer the model no tools"},
		&cli.BoolFlag{Name: "person-approves", Usage: "a person approves the tools' calls through the tools' approval hook (agent runs its tools so): what needs approval is left to them; deny rules and plan mode still refuse"},
		&cli.StringFlag{Name: "tools", Usage: "offer only the tools `NAMES` (comma-separated) of the tool commands and the task tool"},
		&cli.IntFlag{Name: "max-task-depth", Value: 2, Usage: "levels of sub-agents the task tool may start below this agent, `N` (0: no task tool)"},
		&cli.IntFlag{Name: "max-parallel-tasks", Value: 4, Usage: "sub-agents running at once, `N`"},
		&cli.StringSliceFlag{Name: "task-host", Usage: "let the task tool run a sub-agent on `HOST` over ssh: an ssh destination (user@host or a Host of ~/.ssh/config), optionally :DIR (its working directory there; default: this one's path); repeatable (default $AGENT_TASK_HOSTS, comma-separated, else config.toml's task.hosts)"},
		&cli.BoolFlag{Name: "checkpoint", Usage: "before the prompt, when a tool may change files, scan the working directory and emit a checkpoint entry: what changed since the session's last one, the content kept in the blob store (agent-session rewind brings it back; the interactive agent passes it)"},
		&cli.StringFlag{Name: "permission-mode", Aliases: []string{"permissionMode"}, Usage: "Claude Code's permission `MODE` for the tools, where no one can approve: default (tools that read run), acceptEdits (and those that edit files), plan (only those that read), bypassPermissions (all); anything else needs --allowed-tools (default $AGENT_PERMISSION_MODE, else config.toml's permissions.defaultMode; none of these: no refusals here)"},
		&cli.StringSliceFlag{Name: "allowed-tools", Aliases: []string{"allowedTools"}, Usage: "tool `RULES` that run without approval, Claude Code's syntax: Bash(git diff:*), Bash(npm test), Edit, Read(src/**), mcp__github; comma- or space-separated, repeatable"},
		&cli.StringSliceFlag{Name: "disallowed-tools", Aliases: []string{"disallowedTools"}, Usage: "tool `RULES` that never run (same syntax; they win over everything); a tool named whole is not offered"},
		&cli.StringSliceFlag{Name: "settings", Usage: "Claude-Code-style settings `FILE` whose hooks run around the run (SessionStart, UserPromptSubmit, Stop, SubagentStart, SubagentStop, PermissionRequest, SessionEnd) and, handed to the default agent-tool serve, around each tool call; command, http, prompt and agent hooks (the prompt and agent ones answered by this run's model), async command hooks, CLAUDE_ENV_FILE; repeatable"},
		&cli.BoolFlag{Name: "no-session-hooks", Usage: "fire no SessionStart or SessionEnd hooks: the front-end fires them once a session (agent does)"},
		&cli.StringFlag{Name: "control", Usage: "read steering commands from `PATH` (a FIFO or file) while the run goes on: {\"type\":\"steer\"|\"follow_up\",\"message\"}, {\"type\":\"abort\"}, {\"type\":\"set_thinking_level\",\"level\"}"},
		&cli.IntFlag{Name: "max-turns", Value: 50, Usage: "stop after `N` model calls in one run"},
		&cli.StringFlag{Name: "json-schema", Usage: "the final answer must be a JSON document valid for the JSON Schema in `FILE`: the schema joins the system prompt, and an answer that does not match is sent back to the model (twice at most, then exit 1)"},
		&cli.StringFlag{Name: "ask-cmd", Usage: "a `COMMAND` that puts the tools' questions (ask, exit_plan_mode) to a person: it reads {\"kind\",\"payload\"} as JSON on stdin and prints the answer's value as JSON (agent passes its own); questions --answers answers do not reach it"},
		&cli.StringFlag{Name: "answers", Usage: "answers `FILE` for the ask tool's questions, a JSON object by question id or text ({\"db\": \"PostgreSQL\", \"Which parts?\": [\"api\", \"cli\"]}); without it a question gets a \"no one to ask\" result"},
		&cli.StringFlag{Name: "tools-json", Usage: "tool definitions `FILE` (JSON array of {name, description, parameters}, or agent-tool schema output) to offer the model"},
		&cli.StringFlag{Name: "system-prompt", Usage: "system prompt `TEXT` or file (replaces the default)"},
		&cli.StringSliceFlag{Name: "append-system-prompt", Usage: "`TEXT` or file appended to the system prompt; repeatable"},
		&cli.BoolFlag{Name: "no-context-files", Usage: "do not read AGENTS.md / CLAUDE.md"},
		&cli.BoolFlag{Name: "no-skills", Usage: "do not list skills in the system prompt"},
		&cli.BoolFlag{Name: "print-system-prompt", Usage: "print the system prompt and exit"},
		&cli.StringFlag{Name: "output-format", Value: "pi", Usage: "`FORMAT` of stdout: pi (agent events, formats/events) or claude (Claude Code's stream-json, formats/claude-stream)"},
		&cli.StringFlag{Name: "events", Value: "compact", Usage: "`MODE` of message_update events: compact, full or final"},
		&cli.DurationFlag{Name: "throttle", Value: defaultThrottle, Usage: "coalesce deltas for `DURATION` (0: every delta)"},
		&cli.IntFlag{Name: "retries", Value: 3, Usage: "`N` retries of transient provider errors"},
		&cli.IntFlag{Name: "retry-base-ms", Value: 2000, Usage: "first retry delay in `MS` (doubles each time; retry-after wins)"},
		&cli.IntFlag{Name: "max-tokens", Usage: "output token cap `N` (default min(model max, 32000))"},
		&cli.Float64Flag{Name: "temperature", Value: -1, Usage: "sampling `T` (default: the provider's)"},
		&cli.StringFlag{Name: "cache-retention", Value: "short", Usage: "prompt cache `RETENTION`: none, short or long"},
		&cli.StringFlag{Name: "record", Usage: "write every provider exchange to cassette `FILE` (secrets removed)"},
		&cli.StringFlag{Name: "replay", Usage: "answer provider requests from cassette `FILE` (offline, no key needed)"},
		&cli.BoolFlag{Name: "render", Usage: "read an event stream on stdin and print it for people as it arrives (no model call); with colour it runs agent-render (markdown, highlighting) when installed, unless AGENT_RENDER=builtin"},
		&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour in --render: auto, always or never"},
		&cli.BoolFlag{Name: "list-models", Usage: "list the catalog's models (an argument filters) and exit"},
		&cli.StringFlag{Name: "login", Usage: "log in to `PROVIDER` and exit: github-copilot runs GitHub's device flow (open the URL printed, enter the code) and stores the token in $XDG_DATA_HOME/agentutils/credentials.json; the --settings files' Notification hooks then hear auth_success"},
		&cli.BoolFlag{Name: "print-config", Usage: "print the settings merged from flags, AGENT_ variables and config.toml (project, user) with where each came from, and exit"},
		&cli.BoolFlag{Name: "json", Usage: "with --print-config: JSON lines even on a terminal"},
		&cli.BoolFlag{Name: "verbose", Usage: "more diagnostics on stderr"},
		// --sandbox, --sandbox-writable, --sandbox-net: passed to agent-tool.
	}, sbflags.Flags()...)
}

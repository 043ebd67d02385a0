package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/configfile"
	"github.com/agentutils/agentutils/internal/jobs"
	"github.com/agentutils/agentutils/internal/lsp"
	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/redact"
	"github.com/agentutils/agentutils/lib/websearch"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name: "agent-tool",
		// --edit-mode's default: $AGENT_EDIT_MODE, else config.toml's edit.mode.
		Before: func(c *cli.Context) error { return loadEditMode(c, env) },
		Usage:  "the agent's tools (read, write, edit, apply_patch, bash, job, grep, ls, find, todo, undo, fetch, lsp, ...) as a co-process and as commands",
		Description: `agent-tool runs the built-in tools of agentutils. 'serve' speaks the tool co-process protocol
(formats/tool-protocol) on stdin/stdout for agent-chat; 'run' executes the tool calls of assistant
messages read on stdin and writes their results as message_end events, so a shell loop can drive
the agent; 'call' runs one tool; 'schema' prints the tool definitions.

Tools: read (numbered lines, offset/limit, directories, images), write (atomic, keeps line endings),
edit in the mode --edit-mode picks (replace: old_text → new_text with the reference's fuzzy
matching; hashline: read shows [path#TAG] and N:text, edit takes line-number hunks; apply_patch: the
apply_patch tool takes the Codex patch envelope, all-or-nothing; a diff in details), undo_edit (one level per file, kept
in the state dir), todo_write (the task list, in the state dir), bash (bash -c in its own process
group, timeout, output tail with the full output in an artifact file; "background": true starts a
background job and returns its id at once), job (the background jobs: list, output from a byte
cursor, kill; at most --max-jobs at once, the last 1 MiB of each one's output kept), grep (lib/grep: numbered
matches with context, .gitignore respected), ls, find, lsp (diagnostics, definition, references,
hover and a rename preview from the language server found on PATH: gopls, typescript-language-server,
pyright-langserver, rust-analyzer; started on first use, one per workspace and language, stopped
when agent-tool ends; write, edit and apply_patch add the errors it finds in the files they changed,
waited for at most --lsp-wait; --no-lsp turns them off), fetch, web_search (titles, URLs and
snippets from an MCP server's search tool, --search-mcp, or Brave Search with $BRAVE_API_KEY or
Tavily with $TAVILY_API_KEY), and when enabled
(--memory-tool, config.toml's tools.memory) memory (a line added to AGENTS.md or CLAUDE.md).

call, run and serve put a policy and hooks around every call: --allow/--deny tool lists,
--read-only, --root DIR (paths confined, symlinks included), --bash-allow PREFIX (the script is
parsed, every command must match); Claude-Code-style PreToolUse/PostToolUse hooks from --settings
FILE and --hooks-dir DIR (exit 0 allow or a JSON verdict, exit 2 block with stderr as the reason,
a crash or timeout blocks). serve skips the hooks when hello says "hooks": false.

Background jobs run in the sandbox of bash's calls and die with their owner: this agent-tool,
or the process that owns $AGENT_JOBS_DIR (agent, for its session), unless --keep-jobs. serve
tells the model of a job's end with a notice message (formats/tool-protocol).

Examples:
   agent-chat --tools-cmd "agent-tool serve" "fix the failing test"
   agent-tool call read '{"path":"go.mod"}'
   agent-tool schema --tools read,edit > tools.json
   agent-tool call --settings .claude/settings.json --root . bash '{"command":"go test ./..."}'
   jq -c 'select(.type=="turn_end") | .message' turn.jsonl | agent-tool run | agent-session append s.jsonl
   export AGENT_JOBS_DIR=$(mktemp -d); agent-tool call --keep-jobs bash '{"command":"echo hi","background":true}'; agent-tool call job '{"id":"1"}'`,
		Commands: []*cli.Command{serveCommand(env), runCommand(env), callCommand(env), schemaCommand(env)},
	}
}

var toolsFlag = &cli.StringFlag{Name: "tools", Usage: "comma-separated `LIST` of the tools to offer (default: all)"}
var editModeFlag = &cli.StringFlag{Name: "edit-mode", Value: "replace", Usage: "how files are edited (default $AGENT_EDIT_MODE, else config.toml's edit.mode, else replace): `MODE` replace (edit: old_text → new_text), hashline (read shows [path#TAG] and N:text, edit takes a hashline patch) or apply_patch (the apply_patch tool takes a Codex patch)"}
var shellEnvFlag = &cli.StringSliceFlag{Name: "shell-env",
	Usage: "let variable `NAME` through to bash although its name looks secret (*KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *CREDENTIAL*); repeatable; default $AGENT_SHELL_ENV (comma-separated), else config.toml's shell.env",
	Action: func(_ *cli.Context, names []string) error {
		if err := redact.CheckNames(names); err != nil {
			return exit.Errorf(exit.Usage, "--shell-env: %v", err)
		}
		return nil
	}}

var (
	noLSPFlag   = &cli.BoolFlag{Name: "no-lsp", Usage: "start no language servers (also when $AGENT_NO_LSP is set non-empty): the lsp tool says they are off, and write, edit and apply_patch add no diagnostics"}
	lspWaitFlag = &cli.DurationFlag{Name: "lsp-wait", Value: tools.LSPWait, Usage: "wait at most `DURATION` for a language server's diagnostics (the lsp tool's, and those write, edit and apply_patch add)"}
)

var (
	searchFlag         = &cli.StringFlag{Name: "search-backend", Usage: "web_search's back-end `NAME`: mcp (--search-mcp's server), brave ($BRAVE_API_KEY) or tavily ($TAVILY_API_KEY) (default: mcp when --search-mcp is set, else the first whose key is set)"}
	searchMCPFlag      = &cli.StringFlag{Name: "search-mcp", Usage: "web_search through the MCP server `SERVER/TOOL` configured for agent-mcp, or SERVER alone for its tool named like *search* with a query argument (default: $AGENT_SEARCH_MCP, else config.toml's web_search.mcp; \"\" for none)"}
	searchEndpointFlag = &cli.StringFlag{Name: "search-endpoint", Usage: "the search API's `URL` instead of the back-end's own (a proxy, a test server)"}
)

var memoryFlag = &cli.BoolFlag{Name: "memory-tool", Usage: "offer the memory tool (off unless this, $AGENT_MEMORY_TOOL=true or config.toml's tools.memory = true, or --tools names it): the model adds a line to the project's AGENTS.md or CLAUDE.md, or the user's"}

var privateNetFlag = &cli.BoolFlag{Name: "allow-private-net", Usage: "let fetch and web_search connect to loopback, private and link-local addresses (refused by default)"}
var (
	keepJobsFlag = &cli.BoolFlag{Name: "keep-jobs", Usage: "background jobs (bash with background: true) outlive agent-tool (and the session of $AGENT_JOBS_DIR): they end by themselves, by the job tool or by kill"}
	maxJobsFlag  = &cli.IntFlag{Name: "max-jobs", Value: jobs.DefaultMax, Usage: "`N` background jobs at most at once"}
)

var stateFlag = &cli.StringFlag{Name: "state-dir", Usage: "`DIR` for artifacts (default: hello's stateDir, else $TMPDIR/agent-tool-state-UID, private to the user)"}

func selected(c *cli.Context) ([]tools.Tool, error) {
	var names []string
	for _, n := range strings.Split(c.String("tools"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	mode := editMode(c)
	if !slices.Contains(tools.EditModes, mode) {
		return nil, fmt.Errorf("unknown --edit-mode %q (modes: %s)", mode, strings.Join(tools.EditModes, ", "))
	}
	if on, _ := c.App.Metadata["memoryTool"].(bool); len(names) == 0 && (c.Bool("memory-tool") || on) {
		ts, err := tools.Select(nil, mode)
		if err != nil {
			return nil, err
		}
		mem, err := tools.Select([]string{"memory"}, mode)
		return append(ts, mem...), err
	}
	return tools.Select(names, mode)
}

func toolEnv(c *cli.Context, env *app.Env) (*tools.Env, error) {
	root := c.String("root")
	if root != "" && !filepath.IsAbs(root) {
		root = filepath.Join(env.Dir, root)
	}
	sb, err := sandboxOf(c, env)
	if err != nil {
		return nil, err
	}
	keep, _ := c.App.Metadata["shellEnv"].([]string)
	if c.IsSet("shell-env") {
		keep = c.StringSlice("shell-env")
	}
	if b := c.String("search-backend"); b != "" && b != websearch.MCP {
		if _, ok := websearch.Lookup(b); !ok {
			return nil, exit.Errorf(exit.Usage, "--search-backend: unknown back-end %q (mcp, brave, tavily)", b)
		}
	}
	searchMCP, _ := c.App.Metadata["searchMCP"].(string)
	if c.IsSet("search-mcp") {
		searchMCP = c.String("search-mcp") // "": none, over the configured one
		if _, _, err := websearch.MCPTarget(searchMCP); err != nil && searchMCP != "" {
			return nil, exit.Errorf(exit.Usage, "--search-mcp %v", err)
		}
	}
	var servers *lsp.Manager
	if !c.Bool("no-lsp") && env.Getenv("AGENT_NO_LSP") == "" {
		servers = &lsp.Manager{Stop: env.Dir, Env: redact.Environ(env.Environment(), keep, nil)}
	}
	return &tools.Env{Cwd: env.Dir, LSP: servers, SearchBackend: c.String("search-backend"), SearchEndpoint: c.String("search-endpoint"), SearchMCP: searchMCP, Environ: env.Environment, LSPWait: c.Duration("lsp-wait"), StateDir: c.String("state-dir"), Now: env.Now, Getenv: env.Getenv, EditMode: editMode(c), Root: root,
		Sandbox: sb, ShellEnv: keep, AllowPrivateNet: c.Bool("allow-private-net"),
		Jobs: &tools.Jobs{Dir: env.Getenv(jobs.DirEnv), Keep: c.Bool("keep-jobs"), Max: c.Int("max-jobs")}}, nil
}

// loadEditMode keeps config.toml's edit mode (or $AGENT_EDIT_MODE's) for
// the subcommands' --edit-mode default, and its shell.env (or
// $AGENT_SHELL_ENV's) for --shell-env's.
func loadEditMode(c *cli.Context, env *app.Env) error {
	cfg, err := configfile.Load(env.Dir, env.Getenv, nil)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	c.App.Metadata = map[string]any{"editMode": cfg.EditMode().String(), "shellEnv": cfg.ShellEnv(), "memoryTool": cfg.MemoryTool(), "searchMCP": cfg.SearchMCP()}
	return nil
}

// editMode is --edit-mode when given, else the configured one.
func editMode(c *cli.Context) string {
	if m, ok := c.App.Metadata["editMode"].(string); ok && !c.IsSet("edit-mode") {
		return m
	}
	return c.String("edit-mode")
}

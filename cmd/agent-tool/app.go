package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/tools"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:  "agent-tool",
		Usage: "the agent's tools (read, write, edit, bash, ls, find) as a co-process and as commands",
		Description: `agent-tool runs the built-in tools of agentutils. 'serve' speaks the tool co-process protocol
(formats/tool-protocol) on stdin/stdout for agent-chat; 'run' executes the tool calls of assistant
messages read on stdin and writes their results as message_end events, so a shell loop can drive
the agent; 'call' runs one tool; 'schema' prints the tool definitions.

Tools: read (numbered lines, offset/limit, directories, images), write (atomic, keeps line endings),
edit (old_text → new_text with the reference's fuzzy matching; a diff in details), bash (bash -c in its
own process group, timeout, output tail with the full output in an artifact file), ls, find.

Examples:
   agent-chat --tools-cmd "agent-tool serve" "fix the failing test"
   agent-tool call read '{"path":"go.mod"}'
   agent-tool schema --tools read,edit > tools.json
   jq -c 'select(.type=="turn_end") | .message' turn.jsonl | agent-tool run | agent-session append s.jsonl`,
		Commands: []*cli.Command{serveCommand(env), runCommand(env), callCommand(env), schemaCommand(env)},
	}
}

var toolsFlag = &cli.StringFlag{Name: "tools", Usage: "comma-separated `LIST` of the tools to offer (default: all)"}
var stateFlag = &cli.StringFlag{Name: "state-dir", Usage: "`DIR` for artifacts (default: hello's stateDir, else a temp dir)"}

func selected(c *cli.Context) ([]tools.Tool, error) {
	var names []string
	for _, n := range strings.Split(c.String("tools"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return tools.Select(names)
}

func toolEnv(c *cli.Context, env *app.Env) *tools.Env {
	return &tools.Env{Cwd: env.Dir, StateDir: c.String("state-dir"), Now: env.Now, Getenv: env.Getenv}
}

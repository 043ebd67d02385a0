package agentutils_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/tooldef"
)

// notTools are the places where a tool's name, or another agent's name
// for it, is written as a string and means something else, or is the
// tool's own code: file → the strings, and why.
var notTools = map[string]struct {
	names []string
	why   string
}{
	"internal/taskrun/taskrun.go":       {[]string{"bash"}, "the task's check runs with bash -c"},
	"cmd/agent-chat/hookmodel.go":       {[]string{"read", "grep", "find", "ls"}, "an agent hook's sub-agent gets Claude Code's Read, Grep and Glob (and LS): a choice of tools by name"},
	"cmd/agent-mcp/config.go":           {[]string{"read"}, "agent-mcp's subcommand names"},
	"cmd/agent-mcp/resources.go":        {[]string{"read"}, "agent-mcp's read subcommand"},
	"internal/app/extra.go":             {[]string{"bash"}, "shell completion for bash"},
	"internal/app/checkcli.go":          {[]string{"bash"}, "shell completion for bash"},
	"internal/grepfs/read.go":           {[]string{"read"}, "an os.PathError's operation"},
	"internal/fakellm/agent.go":         {[]string{"Bash", "Write", "apply_patch", "Task", "Agent", "bash", "task", "write", "edit", "read", "web_search", "exit_plan_mode", "ask"}, "the fake provider's scripted calls, as a model writes them"},
	"lib/config/config.go":              {[]string{"apply_patch", "ask"}, "the edit mode named after the tool; the approval mode ask"},
	"cmd/agent/config.go":               {[]string{"ask"}, "the approval mode ask"},
	"lib/event/ask.go":                  {[]string{"ask", "exit_plan_mode"}, "the request kinds of the tool protocol, named after their tools"},
	"internal/mcpserve/mcpserve.go":     {[]string{"ask"}, "the request kind ask of the tool protocol"},
	"internal/hooks/run.go":             {[]string{"ask"}, "Claude Code's hook decision ask"},
	"internal/mcpclient/tasks.go":       {[]string{"task"}, "MCP's task-augmented call (params.task)"},
	"internal/mcpserve/tasks.go":        {[]string{"task"}, "MCP's task-augmented call (params.task) and CreateTaskResult's member"},
	"internal/mcpserve/tasktable.go":    {[]string{"task"}, "CreateTaskResult's member task"},
	"cmd/agent-tool/app.go":             {[]string{"memory"}, "the opt-in memory tool added to the default set when config turns it on"},
	"internal/tui/memory.go":            {[]string{"memory"}, "the /memory command's name in its error"},
	"lib/transcript/codex.go":           {[]string{"web_search"}, "Codex's own web search, written as the call its model saw"},
	"lib/websearch/mcp.go":              {[]string{"web_search"}, "an MCP server's tool of that name, preferred as its search tool"},
	"lib/transcript/transcript.go":      {[]string{"Task", "Agent"}, "Claude Code's delegation tools as its transcripts name them"},
	"lib/batch/batch.go":                {[]string{"apply_patch"}, "the edit mode named after the tool"},
	"lib/batch/html.go":                 {[]string{"task"}, "a batch's tasks, the report's column"},
	"lib/batch/table.go":                {[]string{"task"}, "a batch's tasks, the report's column"},
	"lib/session/check.go":              {[]string{"task"}, "the member task of a session_init entry"},
	"lib/session/skim.go":               {[]string{"read", "bash", "edit", "write"}, "interned common strings of session records"},
	"lib/compact/entry.go":              {[]string{"edit", "write"}, "compaction's file operations, the values of the table's FileOp"},
	"lib/compact/prune.go":              {[]string{"read", "write", "edit"}, "compaction's file operations, the values of the table's FileOp"},
	"internal/tui/approve.go":           {[]string{"bash", "edit", "apply_patch", "write"}, "an approval's preview runs the tool's own algorithm on its arguments (edit's replace, apply_patch's parser, write's head, bash's script)"},
	"internal/pipeline/shell.go":        {[]string{"bash"}, "!CMD at the prompt runs the bash tool by name, as agent-tool call takes it"},
	"internal/sandbox/helper_linux.go":  {[]string{"bash"}, "argv[0] of the shell the sandbox execs"},
	"internal/sandbox/session_linux.go": {[]string{"bash"}, "argv[0] of the shell the session helper forks"},
	"internal/sandbox/sandbox.go":       {[]string{"bash"}, "the shell that runs a script unconfined"},
	"lib/permission/permission.go":      {[]string{"read", "write", "bash"}, "the permission classes (the table's Class values) and Claude Code's Bash rules, whose prefix syntax is for scripts"},
	"lib/shpolicy/shpolicy.go":          {[]string{"bash"}, "a prefix of variable names (BASH_ENV, BASH_FUNC_…) that change how bash runs"},
}

// TestToolTable proves that the tools are declared once: outside their
// own package (internal/tools) and the table (lib/tooldef), no code of
// the module names a built-in tool by a string, so the policy, hooks,
// MCP annotations, compaction, the schema and the renderers can only
// know a tool through the table.
func TestToolTable(t *testing.T) {
	names := map[string]bool{}
	for _, name := range tooldef.Names(func(tooldef.Tool) bool { return true }) {
		e, _ := tooldef.Lookup(name)
		names[e.Name] = true
		for _, a := range e.Aliases {
			names[a] = true
		}
	}
	fset := token.NewFileSet()
	listed := map[string]bool{} // file and name of the notTools entries met
	for _, top := range []string{"cmd", "internal", "lib"} {
		filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path == "internal/tools" || path == "lib/tooldef" || path == "lib/grep" || d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Error(err)
				return nil
			}
			ok := notTools[path].names
			ast.Inspect(f, func(n ast.Node) bool {
				lit, isLit := n.(*ast.BasicLit)
				if !isLit || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && names[s] && slices.Contains(ok, s) {
					listed[path+"\x00"+s] = true
				} else if err == nil && names[s] {
					t.Errorf("%s: the tool name %q is written here; read lib/tooldef's table instead (or list the file in notTools with why)", fset.Position(lit.Pos()), s)
				}
				return true
			})
			return nil
		})
	}
	for path, nt := range notTools {
		for _, n := range nt.names {
			if !listed[path+"\x00"+n] {
				t.Errorf("notTools lists %q in %s (%s), which no longer writes it: drop it", n, path, nt.why)
			}
		}
	}
}

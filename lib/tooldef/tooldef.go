// Package tooldef is the one table of the agent's built-in tools, so a new
// tool is an entry here plus its own file in internal/tools: per tool its
// name, the names other agents give it (Claude Code's, for hook matchers
// and imported sessions), its class (read, write, exec, network), which
// arguments are paths, its MCP annotations, how a renderer shows it, and
// its definition's file in formats/tool-protocol. agent-tool's policy and
// schema, the hooks' matchers, agent-mcp serve's annotations, compaction's
// file lists, the renderer and the HTML export read it (the module's
// TestToolTable finds any other place that names a tool). It imports
// nothing.
package tooldef

// Class is what a tool may do, for policies and permission modes.
type Class string

// The classes.
const (
	Read    Class = "read"    // reads files, changes nothing
	Write   Class = "write"   // changes files (or the agent's own state)
	Exec    Class = "exec"    // runs commands
	Network Class = "network" // reads the network, changes nothing
)

// PathKind says how an argument names paths.
type PathKind int

// The kinds of path arguments.
const (
	Plain      PathKind = iota // the argument is a path
	OrDot                      // a path; absent or blank means the working directory
	GlobBase                   // a glob: the part before its first glob segment is a path
	Hashline                   // a hashline patch: each [path#TAG] header names a path
	CodexPatch                 // a Codex patch: each File and Move to header names a path
)

// PathArg is one argument of a tool that names paths.
type PathArg struct {
	Arg  string
	Kind PathKind
}

// Annotations are the tool's MCP hints (agent-mcp serve), as the MCP
// specification defines them.
type Annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// Header is how a renderer writes a call's one-line header.
type Header int

// The headers (lib/render/show.ToolHeader).
const (
	HeaderArgs    Header = iota // name and the arguments on one line
	HeaderCommand               // "$ " and the command's first line
	HeaderRange                 // name, path and the line range asked for: "read main.go:10-29"
	HeaderPath                  // name and path: "edit main.go"
	HeaderPattern               // name, pattern and path when given: "grep TODO lib"
	HeaderGlob                  // name and pattern: "find **/*.go"
	HeaderURL                   // name and URL: "fetch https://go.dev/doc"
	HeaderDir                   // name and directory, "." when absent: "ls ."
	HeaderPrompt                // name, the host and the agent when given, and the prompt's first line: "task @box explore: find the parser"
)

// Tool is one entry of the table.
type Tool struct {
	Name    string
	Label   string   // the title people see (toolDef.label)
	Aliases []string // other agents' names for this tool (Claude Code's), matched by hooks and read in imported sessions
	// ClaudeArgs name the arguments as Claude Code's tool of the first
	// alias does (ours → Claude's): hook scripts written for Claude Code
	// read tool_input.file_path. An argument in Paths is given absolute.
	ClaudeArgs map[string]string
	Class      Class
	// Exclusive tools run alone (toolDef.concurrency); NonAbortable ones
	// are let finish on abort.
	Exclusive, NonAbortable bool
	Paths                   []PathArg // the arguments that name paths, checked by --root and --protect
	Script                  string    // the argument holding a shell script, checked by --bash-allow
	FileOp                  string    // "read", "write" or "edit": what compaction's file lists record
	KeepOutput              bool      // compaction never prunes its results
	Approve                 bool      // the interactive agent asks the person before a call
	OwnState                bool      // changes only the agent's own state (its todo list), never the workspace
	// InChat tools are run by agent-chat, not by a tool co-process: task
	// starts a nested pipeline, which needs the keys the sandbox hides
	// from agent-tool.
	InChat       bool
	MCP          Annotations
	Header       Header
	OutputIsFile bool   // the result is the text of the file at "path": shown as a line count, highlighted by its name
	ContentArg   string // an argument shown with the call (the file a write writes) instead of the result
	// Schemas are the files of formats/tool-protocol/tools/ that hold its
	// definition (toolDef), one per edit mode where they differ.
	Schemas []string
}

var (
	readOnly = Annotations{ReadOnly: true, Idempotent: true}
	changing = Annotations{Destructive: true}
	runs     = Annotations{Destructive: true, OpenWorld: true}
	web      = Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true}

	filePath = map[string]string{"path": "file_path"}
	editArgs = map[string]string{"path": "file_path", "old_text": "old_string", "new_text": "new_string", "all": "replace_all"}
)

// table is every built-in tool, in the order agent-tool offers them
// (apply_patch takes edit's place in the apply_patch edit mode).
var table = []Tool{
	{Name: "read", Label: "Read", Aliases: []string{"Read"}, ClaudeArgs: filePath, Class: Read, NonAbortable: true,
		Paths: []PathArg{{"path", Plain}}, FileOp: "read", KeepOutput: true, MCP: readOnly,
		Header: HeaderRange, OutputIsFile: true, Schemas: []string{"read.json"}},
	{Name: "write", Label: "Write", Aliases: []string{"Write"}, ClaudeArgs: filePath, Class: Write, Exclusive: true, NonAbortable: true,
		Paths: []PathArg{{"path", Plain}}, FileOp: "write", Approve: true, MCP: changing,
		Header: HeaderPath, ContentArg: "content", Schemas: []string{"write.json"}},
	{Name: "edit", Label: "Edit", Aliases: []string{"Edit", "MultiEdit"}, ClaudeArgs: editArgs, Class: Write, Exclusive: true, NonAbortable: true,
		Paths: []PathArg{{"path", Plain}, {"input", Hashline}}, FileOp: "edit", Approve: true, MCP: changing,
		Header: HeaderPath, Schemas: []string{"edit.json", "edit.hashline.json"}},
	{Name: "undo_edit", Label: "Undo edit", Class: Write, Exclusive: true, NonAbortable: true,
		Paths: []PathArg{{"path", Plain}}, Approve: true, MCP: changing,
		Header: HeaderPath, Schemas: []string{"undo_edit.json"}},
	{Name: "todo_write", Label: "Todo", Aliases: []string{"TodoWrite"}, Class: Write, Exclusive: true,
		OwnState: true, MCP: changing, Schemas: []string{"todo_write.json"}},
	{Name: "bash", Label: "Bash", Aliases: []string{"Bash"}, Class: Exec, Exclusive: true,
		Paths: []PathArg{{"cwd", OrDot}}, Script: "command", Approve: true, MCP: runs,
		Header: HeaderCommand, Schemas: []string{"bash.json"}},
	{Name: "job", Label: "Job", Aliases: []string{"BashOutput", "KillShell"}, Class: Exec,
		MCP: runs, Schemas: []string{"job.json"}},
	{Name: "grep", Label: "Grep", Aliases: []string{"Grep"}, Class: Read,
		Paths: []PathArg{{"path", OrDot}}, MCP: readOnly, Header: HeaderPattern, Schemas: []string{"grep.json"}},
	{Name: "ls", Label: "List", Aliases: []string{"LS"}, Class: Read,
		Paths: []PathArg{{"path", OrDot}}, MCP: readOnly, Header: HeaderDir, Schemas: []string{"ls.json"}},
	{Name: "find", Label: "Find", Aliases: []string{"Glob"}, Class: Read,
		Paths: []PathArg{{"pattern", GlobBase}}, MCP: readOnly, Header: HeaderGlob, Schemas: []string{"find.json"}},
	{Name: "notebook_edit", Label: "Notebook edit", Aliases: []string{"NotebookEdit"}, ClaudeArgs: map[string]string{"path": "notebook_path"}, Class: Write, Exclusive: true, NonAbortable: true,
		Paths: []PathArg{{"path", Plain}}, FileOp: "edit", Approve: true, MCP: changing,
		Header: HeaderPath, Schemas: []string{"notebook_edit.json"}},
	{Name: "fetch", Label: "Fetch", Aliases: []string{"WebFetch"}, Class: Network, MCP: web,
		Header: HeaderURL, Schemas: []string{"fetch.json"}},
	{Name: "web_search", Label: "Web search", Aliases: []string{"WebSearch"}, Class: Network, MCP: web,
		Schemas: []string{"web_search.json"}},
	{Name: "ask", Label: "Ask", Aliases: []string{"AskUserQuestion"}, Class: Read, MCP: Annotations{ReadOnly: true},
		Schemas: []string{"ask.json"}},
	{Name: "task", Label: "Task", Aliases: []string{"Task", "Agent"}, Class: Exec, InChat: true, MCP: runs,
		Header: HeaderPrompt, Schemas: []string{"task.json"}},
	{Name: "exit_plan_mode", Label: "Plan", Aliases: []string{"ExitPlanMode"}, Class: Read, Exclusive: true,
		OwnState: true, MCP: Annotations{ReadOnly: true}, Schemas: []string{"exit_plan_mode.json"}},
	{Name: "lsp", Label: "LSP", Aliases: []string{"LSP"}, Class: Read, Paths: []PathArg{{"path", Plain}}, MCP: readOnly,
		Schemas: []string{"lsp.json"}},
	{Name: "memory", Label: "Memory", Class: Write, Exclusive: true, Approve: true, MCP: changing,
		Schemas: []string{"memory.json"}},
	{Name: "apply_patch", Label: "Apply patch", Aliases: []string{"Edit", "MultiEdit"}, Class: Write, Exclusive: true, NonAbortable: true,
		Paths: []PathArg{{"input", CodexPatch}}, FileOp: "edit", Approve: true, MCP: changing,
		Schemas: []string{"apply_patch.json"}},
}

// Lookup is the tool named name (our name, not an alias).
func Lookup(name string) (Tool, bool) {
	for _, t := range table {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// IsTask says whether name is the tool that runs a sub-agent (task, the
// tool agent-chat runs itself): its results' details hold the
// sub-agent's session and usage.
func IsTask(name string) bool {
	t, ok := Lookup(name)
	return ok && t.InChat
}

// Resolve is the tool named name or, failing that, the first one another
// agent names so (Claude Code's Read is read).
func Resolve(name string) (Tool, bool) {
	if t, ok := Lookup(name); ok {
		return t, true
	}
	for _, t := range table {
		for _, a := range t.Aliases {
			if a == name {
				return t, true
			}
		}
	}
	return Tool{}, false
}

// Names are the names of the tools keep keeps, in table order (joined
// with "|", a hooks matcher: the approvals of agent read those with
// Approve).
func Names(keep func(Tool) bool) []string {
	var out []string
	for _, t := range table {
		if keep(t) {
			out = append(out, t.Name)
		}
	}
	return out
}

// Changes keeps the tools that change files or the agent's state.
func Changes(t Tool) bool { return t.Class == Write }

// ChangesFiles keeps the tools that change the workspace's files: not
// those that change only the agent's own state, which run in a read-only
// sandbox and in every permission mode.
func ChangesFiles(t Tool) bool { return Changes(t) && !t.OwnState }

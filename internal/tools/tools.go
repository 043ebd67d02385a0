// Package tools runs the agent's built-in tools (read, write, edit, bash,
// ls, find, ...) against the real file system and processes; what each
// tool is (name, class, path arguments, ...) is its entry in lib/tooldef. agent-tool serves
// them over the tool co-process protocol; agent-mcp can serve them over MCP.
// The algorithms (edit matching, truncation) are pure, in lib/.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	ilsp "github.com/agentutils/agentutils/internal/lsp"
	isandbox "github.com/agentutils/agentutils/internal/sandbox"
	"github.com/agentutils/agentutils/lib/config"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/lsp"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// Env is where tools run.
type Env struct {
	Cwd      string
	StateDir string // artifacts, undo copies, todos; "" keeps them in a temp dir
	Now      func() time.Time
	Getenv   func(string) string
	EditMode string // replace (default), hashline or apply_patch: how files are shown and edited
	// Root, when set, confines every path argument: a path outside it is
	// refused, and files are opened beneath the root's descriptor (at).
	Root string
	// Sandbox confines the processes bash starts; nil: none.
	Sandbox *Sandbox
	// Session names the session (hello's sessionId): each has its own
	// private temp dir in the sandbox.
	Session string
	// ShellEnv names the variables that bash gets although their names
	// look secret (lib/redact): every other one is withheld.
	ShellEnv []string
	// AllowPrivateNet lets fetch connect to loopback, private and
	// link-local addresses.
	AllowPrivateNet bool
	// Jobs are bash's background jobs; nil: bash cannot start one.
	Jobs *Jobs
	// SearchBackend names web_search's back-end (lib/websearch); "": the
	// MCP one when SearchMCP is set, else the first whose key is set.
	// SearchEndpoint replaces an HTTP back-end's URL.
	SearchBackend, SearchEndpoint string
	// SearchMCP is the MCP back-end's server and tool: "server/tool", or
	// "server" for its search tool (websearch.PickTool).
	SearchMCP string
	// Environ is the environment of the MCP search server (nil: this
	// process's).
	Environ func() []string
	// LSP runs the language servers of the lsp tool, and of the
	// diagnostics write, edit and apply_patch add; nil: none.
	LSP *ilsp.Manager
	// LSPWait bounds the wait for a server's diagnostics (0: LSPWait).
	LSPWait time.Duration
	// Ask puts a request of kind to the person through the parent and
	// returns the answer's value, or false when no one answered (nil: no
	// one to ask).
	Ask func(ctx context.Context, kind string, payload []byte) ([]byte, bool)

	search mcpSearch // web_search's MCP connection

	touchMu sync.Mutex
	touched []string // the files the running write tool changed

	rootMu   sync.Mutex
	rootFS   *os.Root
	rootName string
}

// Sandbox is the bash tool's sandbox (lib/sandbox, internal/sandbox).
type Sandbox struct {
	Mode     string   // lib/sandbox's modes
	Writable []string // more writable dirs (~ is home, relative to the cwd)
	Net      bool     // keep the network
	Hide     []string // credential stores to hide; nil: lib/sandbox's DefaultHide
}

// EditModes are the edit tool's modes.
var EditModes = config.EditModes // the one list (config.toml's edit.mode checks it too)

// Tool is one built-in tool.
type Tool struct {
	Def event.ToolDef
	Run func(ctx context.Context, env *Env, args json.RawMessage, update func(event.ToolOutput)) (event.ToolOutput, error)
}

// All lists the tools in the order they are offered, with the edit tool
// of mode: replace's and hashline's are named edit, apply_patch's is
// apply_patch (the reference's wire name).
func All(mode string) []Tool {
	ed := editTool()
	switch mode {
	case "hashline":
		ed = hashlineTool()
	case "apply_patch":
		ed = applyPatchTool()
	}
	return []Tool{readTool(), writeTool(), ed, undoTool(), todoTool(), bashTool(), jobTool(), grepTool(), lsTool(), findTool(), notebookTool(), fetchTool(), webSearchTool(), askTool(), exitPlanTool(), lspTool(), memoryTool()}
}

// InMode is the name the tool called name has in edit mode mode: the edit
// tool is apply_patch in the apply_patch mode, edit in the others.
func InMode(name, mode string) string {
	if name != "edit" && name != "apply_patch" {
		return name
	}
	if mode == "apply_patch" {
		return "apply_patch"
	}
	return "edit"
}

// OptIn are the tools offered only when named: memory writes the
// context files every later session reads.
var OptIn = []string{"memory"}

// Select returns the tools of mode named in allow (when empty: all but
// the OptIn ones); an unknown name is an error that lists the known ones.
func Select(allow []string, mode string) ([]Tool, error) {
	all := All(mode)
	if len(allow) == 0 {
		return slices.DeleteFunc(all, func(t Tool) bool { return slices.Contains(OptIn, t.Def.Name) }), nil
	}
	var out []Tool
	for _, name := range allow {
		found := false
		for _, t := range all {
			if t.Def.Name == name {
				out, found = append(out, t), true
			}
		}
		if !found {
			var names []string
			for _, t := range all {
				names = append(names, t.Def.Name)
			}
			return nil, fmt.Errorf("unknown tool %q (tools: %s)", name, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// Run runs a tool by name: the result, with IsError set for a failure
// (a tool failure is a result, never a protocol error).
func Run(ctx context.Context, ts []Tool, env *Env, name string, args json.RawMessage, update func(event.ToolOutput)) event.Result {
	for _, t := range ts {
		if t.Def.Name != name {
			continue
		}
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		diagnose := env.LSP != nil && changesFiles(name)
		if diagnose {
			env.touch("")
		}
		out, err := t.Run(ctx, env, args, update)
		if diagnose && err == nil {
			if s := changedDiagnostics(ctx, env, env.touch("")); s != "" {
				s = strings.TrimRight(s, "\n")
				note := lsp.DiagnosticsNote + s
				if len(out.Content) > 0 && out.Content[0].Type == "text" {
					out.Content[0].Text += "\n\n" + note
				} else {
					out.Content = append(out.Content, event.Text(note))
				}
				out.Details = withMember(out.Details, "diagnostics", s) // for the person's card
			}
		}
		if err != nil {
			text := err.Error()
			if len(out.Content) > 0 && out.Content[0].Text != "" {
				text = out.Content[0].Text
			}
			return event.Result{Content: []event.Content{event.Text(text)}, Details: out.Details, IsError: true}
		}
		return event.Result{Content: out.Content, Details: out.Details}
	}
	return event.Result{Content: []event.Content{event.Text("Tool " + name + " not found")}, IsError: true}
}

// withMember is the JSON object d (nil: an empty one) with member k
// set to v; d unchanged when it is not an object.
func withMember(d json.RawMessage, k string, v any) json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(d) > 0 && json.Unmarshal(d, &m) != nil {
		return d
	}
	m[k], _ = json.Marshal(v)
	b, err := json.Marshal(m)
	if err != nil {
		return d
	}
	return b
}

// Close ends what the tools started that ends with the tool process: the
// background jobs (unless kept), the language servers and the sandbox's
// session helpers.
func (e *Env) Close() {
	defer isandbox.CloseAll()
	if e.Jobs != nil {
		e.Jobs.Close()
	}
	if e.LSP != nil {
		e.LSP.Close()
	}
	e.search.close()
}

// changesFiles says whether tool name changes files (its diagnostics
// follow its result).
func changesFiles(name string) bool {
	t, ok := tooldef.Lookup(name)
	return ok && (t.FileOp == "write" || t.FileOp == "edit")
}

// touch records that path is changed by the running tool; touch("")
// returns the paths recorded and forgets them.
func (e *Env) touch(path string) []string {
	e.touchMu.Lock()
	defer e.touchMu.Unlock()
	if path != "" {
		e.touched = append(e.touched, path)
		return nil
	}
	t := e.touched
	e.touched = nil
	return t
}

// def is a tool's definition: its name, label and scheduling from the one
// table of tools (lib/tooldef), its words and schema from its own file. A
// name missing from the table is a programming error (TestTable).
func def(name, description, params string) event.ToolDef {
	t, ok := tooldef.Lookup(name)
	if !ok {
		panic("tools: " + name + " has no entry in lib/tooldef")
	}
	c := event.Shared
	if t.Exclusive {
		c = event.Exclusive
	}
	return event.ToolDef{Name: name, Label: t.Label, Description: description, Parameters: json.RawMessage(params), Concurrency: c, NonAbortable: t.NonAbortable}
}

func text(s string) event.ToolOutput {
	return event.ToolOutput{Content: []event.Content{event.Text(s)}}
}

func details(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// decode reads a tool's arguments, naming the tool in errors.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// rel shows a path relative to the cwd when it is inside it.
func (e *Env) rel(p string) string {
	if r, err := filepath.Rel(e.Cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func (e *Env) stateDir() (string, error) {
	if e.StateDir != "" {
		return e.StateDir, os.MkdirAll(e.StateDir, 0o755)
	}
	// The default is in the shared temp dir, so it is the user's own
	// (0700, named by the uid): in a directory others can write to, they
	// could plant links to where our artifacts and the sandbox's private
	// /tmp go.
	d := filepath.Join(os.TempDir(), fmt.Sprintf("agent-tool-state-%d", os.Getuid()))
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("the state directory %s is not a private directory (mode %v): remove it, or give --state-dir", d, fi.Mode())
	}
	return d, nil
}

// fileError tells the model what went wrong reading a file it named, and
// what to do instead.
func fileError(path string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("File not found: %s", path)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("Permission denied: %s. Choose another file or ask the user to change its permissions.", path)
	case errors.Is(err, syscall.EISDIR):
		return fmt.Errorf("%s is a directory, not a file. Use ls or read on it to see its entries.", path)
	}
	return fmt.Errorf("Cannot read %s: %v", path, err)
}

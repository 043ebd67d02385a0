// Command interop-lsp checks agent-tool's lsp tool, and the diagnostics
// write and edit add, against language servers other than gopls (which
// `make test` covers): typescript-language-server with TypeScript, and
// pyright, installed from npm at pinned versions into the interop cache.
// For each, one agent-tool serve (the tool protocol, as agent-chat drives
// it) works on a small project with a type error: the file's diagnostics,
// definition, references and hover of a function, a rename preview, then
// edits that add an error and take it away again, whose results must
// carry the new error and then none. The edit-to-diagnostics time (the
// edit call's wall time, the server warm) is reported as the median of
// several edits, and gopls's beside it when gopls is on PATH or in
// .tools/bin. Skips with a message when node or npm is absent.
//
//	go run ./scripts/interop-lsp
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentutils/agentutils/internal/toolproto"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/scripts/internal/interop"
)

// The pinned npm packages: TypeScript 6 is the last with the tsserver
// typescript-language-server drives (TypeScript 7 is the native port).
var packages = []string{"typescript-language-server@5.3.0", "typescript@6.0.3", "pyright@1.1.414"}

func main() { os.Exit(interop.Main("interop-lsp", run)) }

// project is a language's check: its files, the questions asked and the
// answers expected (substrings of the tool's text), and the edits.
type project struct {
	name   string
	server string // its program, which must be installed
	files  map[string]string
	file   string // the file the questions are about
	diag   string // its diagnostics hold this
	line   int
	symbol string
	def    string // definition's answer holds this
	refs   []string
	hover  string
	rename string // the preview holds this
	// bad turns the file's text into one with a new error (holding
	// newErr), good back.
	bad, good [2]string
	newErr    string
}

var projects = []project{
	{name: "typescript", server: "typescript-language-server",
		files: map[string]string{
			"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs","noEmit":true},"include":["src"]}` + "\n",
			"src/util.ts":   "export function greet(name: string): string {\n  return \"hello \" + name;\n}\n",
			"src/main.ts":   "import { greet } from \"./util\";\n\nconst n: number = greet(\"world\");\nconsole.log(n, greet(\"again\"));\n",
		},
		file: "src/main.ts", diag: "src/main.ts:3:7: error: Type 'string' is not assignable to type 'number'.",
		line: 3, symbol: "greet", def: "src/util.ts:1:17:", refs: []string{"src/util.ts:1:17:", "src/main.ts:3:19:", "src/main.ts:4:16:"},
		hover: "(alias) greet(name: string): string", rename: "+const n: number = welcome(\"world\");",
		bad: [2]string{`greet("again")`, `greet(42)`}, good: [2]string{`greet(42)`, `greet("again")`},
		newErr: "1 new error in src/main.ts:\nsrc/main.ts:4:22: error: Argument of type 'number' is not assignable to parameter of type 'string'."},
	{name: "python", server: "pyright-langserver",
		files: map[string]string{
			"pyrightconfig.json": "{}\n",
			"util.py":            "def greet(name: str) -> str:\n    return \"hello \" + name\n",
			"main.py":            "from util import greet\n\nn: int = greet(\"world\")\nprint(n, greet(\"again\"))\n",
		},
		file: "main.py", diag: "main.py:3:10: error:",
		line: 3, symbol: "greet", def: "util.py:1:5:", refs: []string{"util.py:1:5:", "main.py:3:10:", "main.py:4:10:"},
		hover: "def greet(name: str) -> str", rename: "+n: int = welcome(\"world\")",
		bad: [2]string{`greet("again")`, `greet(42)`}, good: [2]string{`greet(42)`, `greet("again")`},
		newErr: "1 new error in main.py:\nmain.py:4:16: error: Argument of type \"Literal[42]\" cannot be assigned to parameter \"name\" of type \"str\""},
}

// goProject is gopls's, for the time beside the others.
var goProject = project{name: "go", server: "gopls",
	files: map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc greet(name string) string { return \"hello \" + name }\n\nfunc main() {\n\tfmt.Println(greet(\"again\"))\n}\n",
	},
	file: "main.go", bad: [2]string{`greet("again")`, `greet(42)`}, good: [2]string{`greet(42)`, `greet("again")`},
	newErr: "1 new error in main.go:"}

// edits is how many times the error is added and taken away for the
// time's median.
const edits = 5

func run(t *interop.T) error {
	if err := interop.Need([2]string{"node", "nodejs"}, [2]string{"npm", "npm"}); err != nil {
		return err
	}
	npm := interop.NPM(interop.Cache("lsp"))
	if !npm.Has("typescript-language-server", "pyright-langserver", "tsc") || npm.Version("typescript") != "6.0.3" {
		if err := npm.Install(packages...); err != nil {
			return err
		}
	}
	t.Note("typescript-language-server %s, typescript %s, pyright %s", npm.Version("typescript-language-server"), npm.Version("typescript"), npm.Version("pyright"))
	path := filepath.Join(string(npm), "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")
	if _, err := os.Stat(filepath.Join(t.Root, ".tools", "bin", "gopls")); err == nil {
		path += string(os.PathListSeparator) + filepath.Join(t.Root, ".tools", "bin")
	}
	times := map[string][]time.Duration{}
	for _, p := range projects {
		t.Section("%s (%s)", p.name, p.server)
		times[p.name] = check(t, p, path, true)
	}
	if _, err := lookIn(path, "gopls"); err == nil {
		t.Section("go (gopls), for the time")
		times["go"] = check(t, goProject, path, false)
	} else {
		t.Note("gopls not found (make gopls): no time of it")
	}
	for _, n := range []string{"go", "typescript", "python"} {
		if ds := times[n]; len(ds) > 0 {
			t.Note("edit → diagnostics, %s: median %s of %d edits (min %s, max %s)", n, median(ds).Round(time.Millisecond), len(ds),
				slices.Min(ds).Round(time.Millisecond), slices.Max(ds).Round(time.Millisecond))
		}
	}
	return nil
}

// check runs a project's checks; questions false asks none (gopls, timed
// only). It returns the edits' times.
func check(t *interop.T, p project, path string, questions bool) []time.Duration {
	dir := filepath.Join(t.Dir, p.name)
	for name, text := range p.files {
		f := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fail("write the project", err.Error())
			return nil
		}
	}
	env := append(os.Environ(), "PATH="+path, "AGENT_NO_LSP=")
	tc, err := start(dir, env)
	if err != nil {
		t.Fail("agent-tool serve starts", err.Error())
		return nil
	}
	defer tc.Close(5 * time.Second)
	call := func(name string, args any) (string, bool) {
		b, _ := json.Marshal(args)
		return tc.call(name, b)
	}
	// The first diagnostics wait for the project to load (a minute at most).
	text, ok := call("lsp", map[string]any{"operation": "diagnostics", "path": p.file})
	if questions {
		t.Check("diagnostics: the type error", ok && strings.Contains(text, p.diag), text)
		text, ok = call("lsp", map[string]any{"operation": "definition", "path": p.file, "line": p.line, "symbol": p.symbol})
		t.Check("definition: the function's declaration", ok && strings.Contains(text, p.def), text)
		text, ok = call("lsp", map[string]any{"operation": "references", "path": p.file, "line": p.line, "symbol": p.symbol})
		all := ok
		for _, r := range p.refs {
			all = all && strings.Contains(text, r)
		}
		t.Check("references: the declaration and both calls", all, text)
		text, ok = call("lsp", map[string]any{"operation": "hover", "path": p.file, "line": p.line, "symbol": p.symbol})
		t.Check("hover: the signature", ok && strings.Contains(text, p.hover), text)
		text, ok = call("lsp", map[string]any{"operation": "rename", "path": p.file, "line": p.line, "symbol": p.symbol, "new_name": "welcome"})
		t.Check("rename: a preview diff", ok && strings.Contains(text, p.rename), text)
	}
	var ds []time.Duration
	for i := range edits {
		t0 := time.Now()
		text, ok = call("edit", map[string]any{"path": p.file, "old_text": p.bad[0], "new_text": p.bad[1]})
		ds = append(ds, time.Since(t0))
		if i == 0 {
			t.Check("edit: the result carries the new error", ok && strings.Contains(text, "Language server diagnostics:\n"+p.newErr), text)
		}
		text, ok = call("edit", map[string]any{"path": p.file, "old_text": p.good[0], "new_text": p.good[1]})
		if i == 0 {
			t.Check("edit: no new error after the fix", ok && !strings.Contains(text, "Language server diagnostics"), text)
		}
	}
	return ds
}

// toolClient is an agent-tool serve process.
type toolClient struct {
	*toolproto.Client
	n int
}

func start(dir string, env []string) (*toolClient, error) {
	c, err := toolproto.Start(toolproto.Options{Command: "agent-tool serve --lsp-wait 90s", Dir: dir, Env: env, Stderr: os.Stderr,
		Hello: &event.Hello{Cwd: dir}})
	if err != nil {
		return nil, err
	}
	select {
	case <-c.Tools():
	case <-c.Dead():
		return nil, c.Err()
	case <-time.After(time.Minute):
		c.Kill()
		return nil, fmt.Errorf("no tools message within a minute")
	}
	return &toolClient{Client: c}, nil
}

// call runs a tool: its text, and false for an error result.
func (c *toolClient) call(name string, args json.RawMessage) (string, bool) {
	c.n++
	ch, err := c.Call(&event.Call{ID: fmt.Sprint(c.n), Name: name, Arguments: args})
	if err != nil {
		return err.Error(), false
	}
	for m := range ch {
		if r, ok := m.(*event.Result); ok {
			var b strings.Builder
			for _, ct := range r.Content {
				b.WriteString(ct.Text)
			}
			return b.String(), !r.IsError
		}
	}
	return "the tool process ended", false
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func lookIn(path, name string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		if p := filepath.Join(d, name); isExec(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

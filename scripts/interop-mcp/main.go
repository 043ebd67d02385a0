// Command interop-mcp checks agent-mcp against the MCP reference servers
// from npm: @modelcontextprotocol/server-everything over stdio, Streamable
// HTTP and legacy SSE (list and call every tool, read the resources, get
// every prompt, the bridge), @modelcontextprotocol/server-filesystem over
// stdio, `agent-mcp serve` driven by the MCP Inspector's CLI mode (with
// agent-tool when it is installed, else with the test co-process
// faketools), and the official conformance suite (npm
// @modelcontextprotocol/conformance, on Node 22: node@22 from npm when this
// node is older; skipped when it cannot be had): its client scenarios
// against agent-mcp, its server scenarios against agent-mcp serve --http
// and over stdio (behind supergateway, npm), with the known failures in
// scripts/testdata/mcp-conformance-baseline.yml.
// Skips with a message when npm is missing. Set AGENT_INTEROP_NPM_PREFIX to
// reuse an install.
//
//	go run ./scripts/interop-mcp
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/scripts/internal/interop"
)

func main() { os.Exit(interop.Main("interop-mcp", run)) }

// mcp holds what the checks share.
type mcp struct {
	*interop.T
	npm      interop.NPM
	toolsCmd string // agent-mcp serve's --tools-cmd
}

func run(t *interop.T) error {
	if err := interop.Need([2]string{"node", "nodejs"}, [2]string{"npm", "npm"}); err != nil {
		return err
	}
	if _, err := exec.LookPath("agent-mcp"); err != nil {
		if r := interop.Run(exec.Command("go", "build", "-o", "bin/", "./cmd/agent-mcp")); !r.OK() {
			return fmt.Errorf("go build ./cmd/agent-mcp: %s", r.Why())
		}
	}
	m := &mcp{T: t, npm: interop.NPM(os.Getenv("AGENT_INTEROP_NPM_PREFIX"))}
	if m.npm == "" {
		m.npm = interop.NPM(filepath.Join(t.Dir, "npm"))
	}
	if !m.npm.Has("mcp-server-everything", "mcp-server-filesystem", "mcp-inspector") {
		fmt.Printf("interop-mcp: installing the reference servers into %s\n", m.npm)
		if err := m.npm.Install("@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/inspector"); err != nil {
			return interop.Skip("%v", err)
		}
	}
	version := interop.Run(exec.Command("agent-mcp", "--version")).Stdout
	fmt.Printf("interop-mcp: server-everything %s, server-filesystem %s, %s\n", m.npm.Version("@modelcontextprotocol/server-everything"),
		m.npm.Version("@modelcontextprotocol/server-filesystem"), strings.TrimSpace(version))
	node22 := node22(t, os.Getenv("AGENT_NODE22_PREFIX"))
	home := filepath.Join(t.Dir, "home")
	os.Setenv("AGENTUTILS_HOME", home)
	os.Setenv("HOME", home)
	for _, d := range []string{home, filepath.Join(t.Dir, "files")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	m.stdio()
	m.helpExamples()
	m.streamableHTTP()
	m.legacySSE()
	m.filesystem()
	m.bridge()
	m.serve()
	t.Section("the official conformance suite (@modelcontextprotocol/conformance)")
	m.conformance(node22)
	return nil
}

// agentMCP runs agent-mcp with args.
func agentMCP(args ...string) interop.Result {
	return interop.Run(exec.Command("agent-mcp", args...))
}

func (m *mcp) stdio() {
	m.Section("server-everything, stdio")
	agentMCP("add", "ev", "--", m.npm.Bin("mcp-server-everything"), "stdio")
	m.exercise("ev")
	m.latest("ev")
}

// latest checks what MCP 2025-11-25 added, on server-everything's tools
// for it: a tool that must run as a task, and URL elicitation (request
// and -32042 error paths).
func (m *mcp) latest(s string) {
	check := func(what string, r interop.Result, ok bool) {
		if ok {
			m.OK("%s: %s", s, what)
		} else {
			m.Fail(s+": "+what, r.Why())
		}
	}
	r := agentMCP("call", s, "simulate-research-query", `{"topic":"bees"}`, "--text", "--tool-timeout", "60s")
	check("task (taskSupport required): simulate-research-query", r, r.OK() && strings.Contains(r.Stdout, "Research Report: bees"))
	r = agentMCP("call", s, "trigger-url-elicitation", `{"url":"https://example.com/login","message":"Log in"}`, "--text")
	check("URL elicitation shown", r, r.OK() && strings.Contains(r.Stderr, "asks you to open https://example.com/login: Log in"))
	r = agentMCP("call", s, "trigger-url-elicitation", `{"url":"https://example.com/login","errorPath":true}`)
	check("-32042 URLElicitationRequired names its URL", r, r.Code == 1 && strings.Contains(r.Stderr, "-32042") && strings.Contains(r.Stderr, "\nOpen http"))
}

// exercise lists a server, calls each of its tools, reads its resources and
// gets its prompts.
func (m *mcp) exercise(s string) {
	r := agentMCP("list", "--json", s)
	var list struct {
		Tools    []json.RawMessage `json:"tools"`
		Protocol string            `json:"protocolVersion"`
	}
	if !r.OK() || json.Unmarshal([]byte(r.Stdout), &list) != nil {
		m.Fail(s+": list", r.Why())
		return
	}
	m.OK("%s: list: %d tools, protocol %s", s, len(list.Tools), list.Protocol)
	for _, line := range lines(agentMCP("tools", "--json", s).Stdout) {
		var def struct {
			Parameters json.RawMessage `json:"parameters"`
			MCP        struct {
				Tool string `json:"tool"`
			} `json:"x_mcp"`
		}
		json.Unmarshal([]byte(line), &def)
		m.call(s, def.MCP.Tool, def.Parameters)
	}
	n := 0
	for i, line := range lines(agentMCP("resources", s).Stdout) {
		var res struct {
			URI string `json:"uri"`
		}
		if i == 20 || json.Unmarshal([]byte(line), &res) != nil {
			break
		}
		if r := agentMCP("read", "--server", s, res.URI); r.OK() {
			n++
		} else {
			m.Fail(s+": read "+res.URI, r.Why())
		}
	}
	m.OK("%s: read %d resources", s, n)
	for _, line := range lines(agentMCP("prompts", s).Stdout) {
		var p struct {
			Name      string      `json:"name"`
			Arguments []promptArg `json:"arguments"`
		}
		json.Unmarshal([]byte(line), &p)
		kv := promptArgs(p.Arguments)
		what := strings.TrimSpace(s + ": prompt " + p.Name + " " + strings.Join(kv, " "))
		if r := agentMCP(append([]string{"prompt", s, p.Name}, kv...)...); r.OK() {
			m.OK("%s: prompt %s", s, p.Name)
		} else {
			m.Fail(what, r.Why())
		}
	}
}

// call calls one tool with the arguments its schema requires: a result or
// a tool error result passes, anything else fails.
func (m *mcp) call(s, tool string, schema json.RawMessage) {
	args, ok := overrides[tool]
	if !ok {
		args = argsFor(schema)
	}
	r := agentMCP("call", s, tool, args, "--tool-timeout", "30s")
	var res callResult
	json.Unmarshal([]byte(r.Stdout), &res)
	switch {
	case r.OK():
		m.OK("%s: call %s: %s", s, tool, contentSummary(res))
	case r.Code == 1 && res.IsError:
		text := ""
		if len(res.Content) > 0 {
			text = show.Clip(interop.Head(res.Content[0].Text, 1), 80)
		}
		m.OK("%s: call %s: tool error result: %s", s, tool, text)
	default:
		m.Fail(fmt.Sprintf("%s: call %s %s: exit %d", s, tool, args, r.Code), r.Why())
	}
}

// helpExamples runs the --help examples that use server-everything as
// printed (not those of add, remove, enable and disable, which edit the
// configuration).
func (m *mcp) helpExamples() {
	m.Section("the --help examples that use server-everything, run as printed")
	agentMCP("add", "everything", "--", m.npm.Bin("mcp-server-everything"), "stdio")
	_, jq := exec.LookPath("jq")
	for _, sub := range subcommands(agentMCP("--help").Stdout) {
		switch sub {
		case "add", "remove", "enable", "disable":
			continue
		}
		for _, ex := range examples(agentMCP(sub, "--help").Stdout) {
			if jq != nil && strings.Contains(ex, "jq ") {
				m.SkipCheck("example: "+ex, "jq not installed")
				continue
			}
			if r := interop.Sh("", ex); r.OK() {
				m.OK("example: %s", ex)
			} else {
				m.Fail("example: "+ex, r.Why())
			}
		}
	}
}

// startEverything starts server-everything on a free port with a
// transport; it returns the port, or 0 after a failed check.
func (m *mcp) startEverything(transport string) int {
	port, err := interop.FreePort()
	if err != nil {
		m.Fail(transport+" server", err.Error())
		return 0
	}
	cmd := exec.Command(m.npm.Bin("mcp-server-everything"), transport)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	log := filepath.Join(m.Dir, transport+".log")
	if err := m.Start(cmd, log); err != nil || !interop.WaitPort(port, 10*time.Second) {
		b, _ := os.ReadFile(log)
		m.Fail(transport+" server did not start", interop.Tail(string(b), 1))
		return 0
	}
	return port
}

func (m *mcp) streamableHTTP() {
	m.Section("server-everything, Streamable HTTP")
	if port := m.startEverything("streamableHttp"); port != 0 {
		agentMCP("add", "evh", "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port))
		m.exercise("evh")
	}
}

func (m *mcp) legacySSE() {
	m.Section("server-everything, legacy HTTP+SSE")
	if port := m.startEverything("sse"); port != 0 {
		agentMCP("add", "evs", "--url", fmt.Sprintf("http://127.0.0.1:%d/sse", port), "--transport", "sse")
		r := agentMCP("call", "evs", "echo", `{"message":"over sse"}`, "--text")
		m.Check("evs: call echo over legacy SSE", r.OK() && strings.TrimRight(r.Stdout, "\n") == "Echo: over sse", r.Stdout+" "+r.Why())
	}
}

func (m *mcp) filesystem() {
	m.Section("server-filesystem, stdio")
	files := filepath.Join(m.Dir, "files")
	agentMCP("add", "fs", "--", m.npm.Bin("mcp-server-filesystem"), files)
	f := filepath.Join(files, "note.txt")
	r := agentMCP("call", "fs", "write_file", jsonArgs("path", f, "content", "hello from agent-mcp\n"))
	_, err := os.Stat(f)
	m.Check("fs: write_file", r.OK() && err == nil, r.Why())
	r = agentMCP("call", "fs", "read_text_file", jsonArgs("path", f), "--text")
	m.Check("fs: read_text_file", strings.TrimRight(r.Stdout, "\n") == "hello from agent-mcp", r.Stdout)
	r = agentMCP("call", "fs", "list_directory", jsonArgs("path", files), "--text")
	m.Check("fs: list_directory", strings.Contains(r.Stdout, "[FILE] note.txt"), r.Stdout)
	r = agentMCP("call", "fs", "read_text_file", `{"path":"/etc/passwd"}`)
	var res callResult
	json.Unmarshal([]byte(r.Stdout), &res)
	m.Check("fs: outside the allowed directory is a tool error", r.Code == 1 && res.IsError, fmt.Sprintf("/etc/passwd: exit %d %s", r.Code, r.Stdout))
}

// jsonArgs is a JSON object of string values from key, value pairs.
func jsonArgs(kv ...string) string {
	o := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(o)
	return string(b)
}

func (m *mcp) bridge() {
	m.Section("bridge")
	cmd := exec.Command("agent-mcp", "bridge", "--servers", "ev,fs")
	cmd.Stdin = strings.NewReader(`{"type":"hello","cwd":"/"}
{"type":"call","id":"b1","name":"mcp__ev__echo","arguments":{"message":"bridged"}}
{"type":"call","id":"b2","name":"mcp__fs__list_allowed_directories","arguments":{}}
`)
	out := interop.Run(cmd).Stdout
	first := interop.Head(out, 1)
	var hello struct {
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal([]byte(first), &hello)
	m.Check(fmt.Sprintf("bridge: %d tools", len(hello.Tools)), len(hello.Tools) >= 20, show.Clip(first, 200))
	m.Check("bridge: call echo", strings.Contains(out, `"id":"b1","content":[{"type":"text","text":"Echo: bridged"}]`), out)
	m.Check("bridge: call fs tool", regexp.MustCompile(`"id":"b2".*"isError":false`).MatchString(out), out)
}

func (m *mcp) serve() {
	m.Section("serve, driven by the MCP Inspector CLI")
	if _, err := exec.LookPath("agent-tool"); err == nil {
		m.toolsCmd = "agent-tool serve"
	} else {
		m.Note("(agent-tool is not installed: serving the test co-process faketools)")
		interop.Run(exec.Command("go", "build", "-o", m.Dir+"/", "./cmd/agent-mcp/testdata/faketools"))
		m.toolsCmd = filepath.Join(m.Dir, "faketools")
	}
	files := filepath.Join(m.Dir, "files")
	os.WriteFile(filepath.Join(files, "served.txt"), []byte("hello from serve\n"), 0o644)
	insp := func(args ...string) interop.Result {
		return interop.Run(exec.Command(m.npm.Bin("mcp-inspector"), append([]string{"--cli", "agent-mcp", "serve", "--cwd", files, "--tools-cmd", m.toolsCmd}, args...)...))
	}
	r := insp("--method", "tools/list")
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnly bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	json.Unmarshal([]byte(r.Stdout), &list)
	var names []string
	readOnly, writes := false, false
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		readOnly = readOnly || tool.Name == "read" && tool.Annotations.ReadOnly
		writes = writes || tool.Name == "write" || tool.Name == "bash"
	}
	m.Check("serve: tools/list: "+strings.Join(names, " "), readOnly, r.Stdout+" "+r.Why())
	m.Check("serve: read-only by default", !writes, "write or bash offered without --allow-write/--allow-exec")
	r = insp("--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=served.txt")
	m.Check("serve: tools/call read", strings.Contains(r.Stdout, "hello from serve"), r.Stdout+" "+r.Why())
}

// node22 is a Node 22 or later the conformance suite can run on: this one,
// or the node@22 package from npm in prefix (default
// ~/.cache/agentutils/interop/node22); "" when there is none.
func node22(t *interop.T, prefix string) string {
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(interop.Run(exec.Command("node", "--version")).Stdout), "v"), ".")
	if n, err := strconv.Atoi(major); err == nil && n >= 22 {
		p, _ := exec.LookPath("node")
		return p
	}
	if prefix == "" {
		prefix = interop.Cache("node22")
	}
	npm := interop.NPM(prefix)
	if !npm.Has("node") && npm.Install("node@22") != nil {
		return ""
	}
	if !interop.Run(exec.Command(npm.Bin("node"), "--version")).OK() {
		return ""
	}
	return npm.Bin("node")
}

// conformance runs the suite's client scenarios against agent-mcp (driven
// by scripts/mcp-conformance-client) and its server scenarios against
// agent-mcp serve --http; a failing scenario not in the baseline fails.
func (m *mcp) conformance(node string) {
	if node == "" {
		m.SkipCheck("conformance", "the suite needs Node 22 (node@22 from npm could not be installed)")
		return
	}
	index := filepath.Join(string(m.npm), "node_modules/@modelcontextprotocol/conformance/dist/index.js")
	if _, err := os.Stat(index); err != nil {
		if err := m.npm.Install("@modelcontextprotocol/conformance"); err != nil {
			m.SkipCheck("conformance", err.Error())
			return
		}
	}
	base, _ := os.ReadFile("scripts/testdata/mcp-conformance-baseline.yml")
	m.Note("conformance %s on node %s", m.npm.Version("@modelcontextprotocol/conformance"),
		strings.TrimSpace(interop.Run(exec.Command(node, "--version")).Stdout))
	suite := func(name string, args ...string) {
		cmd := exec.Command(node, append([]string{index}, args...)...)
		cmd.Dir = m.Dir
		r := interop.Run(cmd)
		log := r.Stdout + r.Stderr
		os.WriteFile(filepath.Join(m.Dir, "conf-"+name+".log"), []byte(log), 0o644)
		total, unknown, fixed := conformance(log, string(base), name)
		if len(fixed) > 0 {
			m.Note("conformance %s: in the baseline but passed (take them off): %s", name, strings.Join(fixed, " "))
		}
		switch {
		case total == "":
			m.Fail("conformance "+name, "no summary: "+interop.Tail(log, 3))
		case len(unknown) == 0:
			m.OK("conformance %s: %s (failures all in the baseline)", name, total)
		default:
			m.Fail("conformance "+name+": "+total, "not in the baseline: "+strings.Join(unknown, " "))
		}
	}
	suite("client", "client", "--command", filepath.Join(m.Root, "scripts/mcp-conformance-client"), "--suite", "all", "-o", filepath.Join(m.Dir, "conf-client"))
	port, err := interop.FreePort()
	cwd := filepath.Join(m.Dir, "serve-cwd")
	os.MkdirAll(cwd, 0o755)
	log := filepath.Join(m.Dir, "conf-serve.log")
	if err == nil {
		err = m.Start(exec.Command("agent-mcp", "serve", "--http", fmt.Sprintf("127.0.0.1:%d", port), "--cwd", cwd, "--tools-cmd", m.toolsCmd), log)
	}
	if err != nil || !interop.WaitPort(port, 10*time.Second) {
		b, _ := os.ReadFile(log)
		m.Fail("conformance server: agent-mcp serve --http did not start", interop.Tail(string(b), 1))
		return
	}
	suite("server", "server", "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port), "-o", filepath.Join(m.Dir, "conf-server"))

	// The suite reaches servers over HTTP only: agent-mcp serve over
	// stdio is put behind supergateway (npm), a stdio-to-Streamable-HTTP
	// gateway built on the TypeScript SDK.
	if !m.npm.Has("supergateway") && m.npm.Install("supergateway@"+supergateway) != nil {
		m.SkipCheck("conformance server-stdio", "supergateway could not be installed")
		return
	}
	if port, err = interop.FreePort(); err == nil {
		serve := fmt.Sprintf("agent-mcp serve --cwd %q --tools-cmd %q", cwd, m.toolsCmd)
		err = m.Start(exec.Command(m.npm.Bin("supergateway"), "--stdio", serve, "--outputTransport", "streamableHttp", "--stateful",
			"--port", strconv.Itoa(port), "--streamableHttpPath", "/mcp"), filepath.Join(m.Dir, "conf-gateway.log"))
	}
	if err != nil || !interop.WaitPort(port, 20*time.Second) {
		m.Fail("conformance server-stdio: supergateway did not start", fmt.Sprint(err))
		return
	}
	suite("server-stdio", "server", "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port), "-o", filepath.Join(m.Dir, "conf-server-stdio"))
}

// supergateway is the version of the stdio gateway the conformance suite
// reaches agent-mcp serve's stdio through.
const supergateway = "4.0.0"

// lines are the non-empty lines of s.
func lines(s string) []string {
	var l []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if sc.Text() != "" {
			l = append(l, sc.Text())
		}
	}
	return l
}

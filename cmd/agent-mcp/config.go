package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/internal/mcpdiscover"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/editdist"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/agentutils/agentutils/lib/mcptool"
)

// runner is what every subcommand shares: the environment, the flags and the
// discovered servers.
type runner struct {
	env  *cmdEnv
	c    *cli.Context
	dirs dirs.Dirs
	cwd  string
	res  mcpconfig.Result
	// trusted tells whether project-level servers are in res.
	trusted bool

	connectTimeout, toolTimeout *time.Duration // nil: not given on the command line
	serverLog                   string
	// logLevel is --log-level: sent as logging/setLevel ("": not sent).
	logLevel string
	// sampler answers servers' sampling requests (nil: declined).
	sampler *sampler
	// terminate is how long a stdio server gets to exit after its stdin is
	// closed, and again after SIGTERM, before it is killed. One-shot
	// commands keep it short (50 ms; the reference agent sends SIGTERM at
	// once): they have their answer, and some servers take long to exit on
	// EOF (server-everything: ~370 ms) or ignore it.
	terminate time.Duration
}

func (r *runner) getenv(k string) string { return r.env.Getenv(k) }

// newRunner reads the flags and discovers the servers.
func newRunner(c *cli.Context, env *cmdEnv) (*runner, error) {
	r := filesRunner(c, env)
	if c.IsSet("timeout") {
		d := c.Duration("timeout")
		r.connectTimeout = &d
	}
	if c.IsSet("tool-timeout") {
		d := c.Duration("tool-timeout")
		r.toolTimeout = &d
	}
	r.serverLog = c.String("server-log")
	if r.logLevel = c.String("log-level"); r.logLevel != "" && !mcpclient.ValidLogLevel(r.logLevel) {
		return nil, exit.Errorf(exit.Usage, "--log-level %q: want one of %s", r.logLevel, strings.Join(mcpclient.LogLevels, ", "))
	}
	if src := c.String("only-source"); src != "" {
		ok := false
		for _, s := range mcpconfig.Sources {
			ok = ok || s == src
		}
		if !ok {
			return nil, exit.Errorf(exit.Usage, "--only-source %q: want one of %s", src, strings.Join(mcpconfig.Sources, ", "))
		}
	}
	if err := r.discover(); err != nil {
		return nil, err
	}
	return r, nil
}

// filesRunner is a runner for the subcommands that only edit or remove
// our files: the directories and --cwd, no servers discovered.
func filesRunner(c *cli.Context, env *cmdEnv) *runner {
	r := &runner{env: env, c: c, dirs: dirs.Resolve(env.Getenv), cwd: env.Dir, terminate: 50 * time.Millisecond}
	if d := c.String("cwd"); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(env.Dir, d)
		}
		r.cwd = d
	}
	r.cwd = filepath.Clean(r.cwd)
	return r
}

// userFile is our user-level mcp.json.
func (r *runner) userFile() string { return filepath.Join(r.dirs.Config, "mcp.json") }

// projectFile is our project-level mcp.json.
func (r *runner) projectFile() string { return filepath.Join(r.cwd, ".agentutils", "mcp.json") }

func (r *runner) discover() error {
	extra := r.c.String("config")
	if extra != "" && !filepath.IsAbs(extra) {
		extra = filepath.Join(r.env.Dir, extra)
	}
	o := mcpdiscover.Options{Getenv: r.getenv, Dirs: r.dirs, Cwd: r.cwd, Extra: extra, OnlySource: r.c.String("only-source"),
		NoProject: r.c.Bool("no-project-config"), Trust: r.c.Bool("trust"), Warn: func(m string) { app.Warnf(r.c, "%s", m) }}
	if r.mayAsk() {
		o.Ask = r.askTrust
	}
	var err error
	if r.res, r.trusted, err = mcpdiscover.Discover(o); err != nil {
		return err
	}
	if len(r.res.SkippedUntrusted) > 0 {
		var names []string
		seen := map[string]bool{}
		for _, e := range r.res.SkippedUntrusted {
			if !seen[e.Name] {
				seen[e.Name] = true
				names = append(names, e.Name)
			}
		}
		app.Warnf(r.c, "ignoring the project's MCP servers (%s) of untrusted project %s: pass --trust or add it to \"trustedProjects\" in %s",
			strings.Join(names, ", "), r.cwd, r.userFile())
	}
	return nil
}

// askingCommands are the subcommands that may ask on a terminal whether to
// trust a project (the ones that run servers; never bridge or serve, whose
// stdin is a protocol).
var askingCommands = map[string]bool{"list": true, "tools": true, "call": true, "resources": true,
	"read": true, "prompts": true, "prompt": true, "test": true}

// mayAsk says whether this run can ask a person: a connecting command with
// stdin and stderr on a terminal.
func (r *runner) mayAsk() bool {
	return r.env.StdinTTY && r.env.StderrTTY && askingCommands[r.c.Command.Name]
}

// askTrust asks on the terminal whether to use the project's own servers:
// y trusts the project from now on (trust.json), o for this run only, and
// anything else (or EOF) keeps them off.
func (r *runner) askTrust(skipped []mcpconfig.Entry) (bool, error) {
	var lines []string
	seen := map[string]bool{}
	for _, e := range skipped {
		if seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		what := e.Server.Command
		if what == "" {
			what = e.Server.URL
		} else if len(e.Server.Args) > 0 {
			what += " " + strings.Join(e.Server.Args, " ")
		}
		lines = append(lines, fmt.Sprintf("  %s: %s (%s)", e.Name, mcptool.Clip(what, 120), e.Path))
	}
	fmt.Fprintf(r.env.Stderr, "agent-mcp: the project %s configures MCP servers that run commands from the repository:\n%s\n"+
		"Use them? [y] yes, and trust this project from now on; [o] only this once; [N] no: ", r.cwd, strings.Join(lines, "\n"))
	line, _ := bufio.NewReader(r.env.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		if err := r.recordTrust(); err != nil {
			if exit.Code(err) == exit.Usage {
				return false, err // a malformed trust file, reported as isTrusted does
			}
			return false, exit.Errorf(exit.Failure, "recording trust: %v", err)
		}
		fmt.Fprintf(r.env.Stderr, "agent-mcp: %s is trusted (%s)\n", r.cwd, r.trustFile())
		return true, nil
	case "o", "once":
		return true, nil
	}
	return false, nil
}

// trustFile lists the projects a person trusted.
func (r *runner) trustFile() string { return mcpdiscover.TrustFile(r.dirs) }

// recordTrust adds the project to the trust file.
func (r *runner) recordTrust() error {
	return mcpdiscover.RecordTrust(r.trustFile(), r.cwd, func() time.Time { return r.env.Now() })
}

// server finds an enabled server by name, with suggestions when unknown.
func (r *runner) server(name string) (mcpconfig.Entry, error) {
	if e, ok := r.res.Lookup(name); ok {
		if e.Disabled {
			return e, exit.Errorf(exit.Usage, "server %q is disabled (%s); enable it with 'agent-mcp enable %s'", name, e.Path, name)
		}
		return e, nil
	}
	for _, e := range r.res.SkippedUntrusted {
		if e.Name == name {
			return e, exit.Errorf(exit.Usage, "server %q is configured by the untrusted project %s (%s): pass --trust to use it", name, r.cwd, e.Path)
		}
	}
	var known []string
	for _, e := range r.res.Servers {
		known = append(known, e.Name)
	}
	msg := fmt.Sprintf("unknown server %q", name)
	if s := editdist.Suggest(name, known); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
	} else if len(known) == 0 {
		msg += " (no servers configured: see 'agent-mcp add --help')"
	}
	return mcpconfig.Entry{}, exit.Errorf(exit.Usage, "%s", msg)
}

// selectedServers is the runner of a command and the servers its
// arguments name (all enabled ones when none).
func selectedServers(c *cli.Context, env *cmdEnv) (*runner, []mcpconfig.Entry, error) {
	r, err := newRunner(c, env)
	if err != nil {
		return nil, nil, err
	}
	es, err := r.selected(c.Args().Slice())
	return r, es, err
}

// selected is the enabled servers named in args, or all enabled servers.
func (r *runner) selected(args []string) ([]mcpconfig.Entry, error) {
	if len(args) == 0 {
		var out []mcpconfig.Entry
		for _, e := range r.res.Servers {
			if !e.Disabled {
				out = append(out, e)
			}
		}
		return out, nil
	}
	var out []mcpconfig.Entry
	for _, a := range args {
		e, err := r.server(a)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// connectTimeoutFor is the connect/list time limit for one server.
func (r *runner) connectTimeoutFor(e mcpconfig.Entry) time.Duration {
	if r.connectTimeout != nil {
		return *r.connectTimeout
	}
	if ms, ok := envMillis(r.getenv("AGENT_MCP_TIMEOUT_MS")); ok {
		return ms
	}
	if e.Server.Timeout > 0 {
		return time.Duration(e.Server.Timeout) * time.Millisecond
	}
	return 30 * time.Second
}

// toolTimeoutFor is the time limit of one tools/call (0: none).
func (r *runner) toolTimeoutFor(e mcpconfig.Entry) time.Duration {
	if r.toolTimeout != nil {
		return *r.toolTimeout
	}
	if ms, ok := envMillis(r.getenv("AGENT_MCP_TOOL_TIMEOUT_MS")); ok {
		return ms
	}
	return time.Duration(e.Server.ToolTimeout) * time.Millisecond
}

func envMillis(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

// writeJSON prints one value as a JSON line.
func writeJSON(r *runner, v any) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable in text
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(r.env.Stdout, b.String())
	return err
}

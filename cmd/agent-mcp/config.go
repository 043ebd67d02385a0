package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/atomicfile"
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
	r := &runner{env: env, c: c, dirs: dirs.Resolve(env.Getenv), cwd: env.Dir, terminate: 50 * time.Millisecond}
	if d := c.String("cwd"); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(env.Dir, d)
		}
		r.cwd = d
	}
	r.cwd = filepath.Clean(r.cwd)
	if c.IsSet("timeout") {
		d := c.Duration("timeout")
		r.connectTimeout = &d
	}
	if c.IsSet("tool-timeout") {
		d := c.Duration("tool-timeout")
		r.toolTimeout = &d
	}
	r.serverLog = c.String("server-log")
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

// userFile is our user-level mcp.json.
func (r *runner) userFile() string { return filepath.Join(r.dirs.Config, "mcp.json") }

// projectFile is our project-level mcp.json.
func (r *runner) projectFile() string { return filepath.Join(r.cwd, ".agentutils", "mcp.json") }

// readConfigs reads and parses the configuration files that exist.
func (r *runner) readConfigs(locs []mcpconfig.Location) ([]mcpconfig.Found, error) {
	// In the home directory the project files are the user's files: read
	// them once, as user files.
	userPaths := map[string]bool{}
	for _, l := range locs {
		if l.Level == mcpconfig.User {
			userPaths[l.Path] = true
		}
	}
	var found []mcpconfig.Found
	for _, l := range locs {
		if l.Level == mcpconfig.Project && userPaths[l.Path] {
			continue
		}
		data, err := os.ReadFile(l.Path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || isDir(err) {
			continue
		}
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
		f, err := mcpconfig.Parse(l, data, r.getenv)
		if err != nil {
			if l.Source == "native" {
				return nil, exit.Wrap(exit.Usage, err)
			}
			// Another client's file: its owner validates it; a broken one
			// must not stop every agent-mcp command.
			app.Warnf(r.c, "skipping %v", err)
			continue
		}
		found = append(found, mcpconfig.Found{Loc: l, File: f})
	}
	return found, nil
}

func (r *runner) discover() error {
	places := mcpconfig.Places{
		Home: r.getenv("HOME"), Cwd: r.cwd, ConfigDir: r.dirs.Config,
		XDGConfig: r.getenv("XDG_CONFIG_HOME"), CodexHome: r.getenv("CODEX_HOME"),
	}
	if places.XDGConfig != "" && !filepath.IsAbs(places.XDGConfig) {
		places.XDGConfig = ""
	}
	locs := mcpconfig.Locations(places)
	if extra := r.c.String("config"); extra != "" {
		if !filepath.IsAbs(extra) {
			extra = filepath.Join(r.env.Dir, extra)
		}
		if _, err := os.Stat(extra); err != nil {
			return exit.Errorf(exit.Usage, "--config: %v", err)
		}
		locs = append([]mcpconfig.Location{{Source: "native", Priority: 1000, Level: mcpconfig.User, Path: extra, Format: "native"}}, locs...)
	}
	found, err := r.readConfigs(locs)
	if err != nil {
		return err
	}
	opts := mcpconfig.Options{OnlySource: r.c.String("only-source"), NoProject: r.c.Bool("no-project-config")}
	// Trust needs the user's trustedProjects, so merge once to read them.
	first := mcpconfig.Merge(append([]mcpconfig.Found(nil), found...), opts)
	opts.Trusted = r.c.Bool("trust")
	if !opts.Trusted && len(first.SkippedUntrusted) > 0 {
		var err error
		if opts.Trusted, err = r.isTrusted(first.TrustedProjects); err != nil {
			return err
		}
	}
	if !opts.Trusted && len(first.SkippedUntrusted) > 0 && r.mayAsk() {
		var err error
		if opts.Trusted, err = r.askTrust(first.SkippedUntrusted); err != nil {
			return err
		}
	}
	r.trusted = opts.Trusted
	r.res = mcpconfig.Merge(found, opts)
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

// trustFile lists the projects a person trusted (mcpconfig.ParseTrust).
func (r *runner) trustFile() string { return filepath.Join(r.dirs.Data, "trust.json") }

// readTrust reads the trust file: a missing one is an empty list; one that
// cannot be read or is malformed is a configuration error (exit 2) that
// names the file and the place.
func (r *runner) readTrust() ([]map[string]any, error) {
	path := r.trustFile()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "trust file: %v", err)
	}
	list, err := mcpconfig.ParseTrust(data)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "trust file %s: %v (fix or remove it; it lists the projects whose own MCP servers may run)", path, err)
	}
	return list, nil
}

// recordTrust adds the project to the trust file ([{root, trustedAt}]).
func (r *runner) recordTrust() error {
	list, err := r.readTrust()
	if err != nil {
		return err
	}
	list = append(list, map[string]any{"root": r.cwd, "trustedAt": r.env.Now().UTC().Format(time.RFC3339)})
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(r.trustFile(), append(data, '\n'))
}

func isDir(err error) bool { return errors.Is(err, syscall.EISDIR) }

// isTrusted looks the project up in the user config's list, then in the
// trust file.
func (r *runner) isTrusted(fromConfig []string) (bool, error) {
	under := func(roots []string) bool {
		for _, root := range roots {
			root = filepath.Clean(mcpconfig.Expand(root, r.getenv))
			if root == r.cwd || strings.HasPrefix(r.cwd, root+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	if under(fromConfig) {
		return true, nil
	}
	list, err := r.readTrust()
	return err == nil && under(mcpconfig.TrustRoots(list)), err
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

// writeFileAtomic replaces a file of ours (configuration, credentials,
// trust, tool cache) with atomicfile.Write: a new file is 0600 and a new
// directory 0700, since they may hold tokens.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

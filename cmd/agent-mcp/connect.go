package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

// session is a connection to a server and the runner that opened it.
type session struct {
	*mcpclient.Session
	r *runner
}

// current is the live connection (nil on a nil session or after close).
func (s *session) current() *mcp.ClientSession {
	if s == nil {
		return nil
	}
	return s.Session.Current()
}

// dialer is what the runner gives a connection.
func (r *runner) dialer() *mcpclient.Dialer {
	d := &mcpclient.Dialer{Cwd: r.cwd, Environ: r.env.Environment, Getenv: r.getenv, Transport: r.env.transport,
		Warn: func(m string) { app.Warnf(r.c, "%s", m) }, ServerStderr: r.serverStderr, Terminate: r.terminate,
		ConnectTimeout: r.connectTimeoutFor, AccessToken: r.creds().AccessToken, OAuthHandler: r.creds().Handler,
		LogLevel: r.logLevel, Log: func(l string) { fmt.Fprintln(r.env.Stderr, l) }}
	if r.sampler != nil {
		d.Sampler = r.sampler.handler
	}
	return d
}

// open connects to a server within its connect timeout.
func (r *runner) open(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions) (*session, error) {
	s, err := r.dialer().Open(ctx, e, opts)
	if err != nil {
		return nil, err
	}
	return &session{s, r}, nil
}

// serverStderr is where a stdio server's stderr goes.
func (r *runner) serverStderr(name string) (io.Writer, error) {
	if r.serverLog == "" {
		return r.env.Stderr, nil
	}
	if err := os.MkdirAll(r.serverLog, 0o755); err != nil {
		return nil, exit.Errorf(exit.Usage, "--server-log: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(r.serverLog, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "--server-log: %v", err)
	}
	return f, nil
}

// oneServer is the sequence of every one-server command: the runner, the
// server named name, a connection, fn, and the close.
func oneServer(c *cli.Context, env *cmdEnv, name string, fn func(r *runner, s *session) error) error {
	r, e, err := namedServer(c, env, name)
	if err != nil {
		return err
	}
	return r.withSession(c.Context, e, nil, func(s *session) error { return fn(r, s) })
}

// oneArg refuses a command line that does not hold exactly the one
// argument the command's ArgsUsage names ("read: want one URI").
func oneArg(c *cli.Context) error {
	if c.NArg() != 1 {
		return exit.Errorf(exit.Usage, "%s: want one %s", c.Command.Name, c.Command.ArgsUsage)
	}
	return nil
}

// namedServer is the runner of a command and the configured server named name.
func namedServer(c *cli.Context, env *cmdEnv, name string) (*runner, mcpconfig.Entry, error) {
	r, err := newRunner(c, env)
	if err != nil {
		return nil, mcpconfig.Entry{}, err
	}
	e, err := r.server(name)
	return r, e, err
}

// withSession runs fn on a new connection to e and closes it after.
func (r *runner) withSession(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions, fn func(*session) error) error {
	s, err := r.open(ctx, e, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

// listEach writes each item of a paged list as a JSON line; nothing when the
// server lacks the capability (has false).
func listEach[T any](ctx context.Context, s *session, what string, has func(*mcp.ServerCapabilities) bool,
	items func(ctx context.Context, cs *mcp.ClientSession) iter.Seq2[T, error]) error {
	return s.Request(ctx, what, func(lctx context.Context, cs *mcp.ClientSession) error {
		if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && !has(ir.Capabilities) {
			return nil
		}
		for it, err := range items(lctx, cs) {
			if err != nil {
				return err
			}
			if err := writeJSON(s.r, it); err != nil {
				return err
			}
		}
		return nil
	})
}

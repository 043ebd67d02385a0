package lsp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentutils/agentutils/lib/lsp"
)

// Manager starts language servers on first use, one per workspace root
// and language, and stops them all at Close.
type Manager struct {
	// Stop is the directory a workspace root is looked for up to (the
	// working directory): a file under it with no marker is in Stop's
	// workspace.
	Stop string
	// Env is the servers' environment (and its PATH finds them).
	Env []string

	mu      sync.Mutex
	clients map[string]*starting // by language and root
	closed  bool
}

// starting is a server being started, or started.
type starting struct {
	done chan struct{}
	c    *client
	err  error
}

// Doc is a document in its server: its text, lines and language server.
type Doc struct {
	Path, URI string
	Text      string
	Lines     []string
	Units     lsp.Units
	Server    string // the server's program
	c         *client
	version   int
	before    int
}

// Supported says whether a server for path's language is known and on
// PATH: the program, or "" and why not.
func (m *Manager) Supported(path string) (string, error) {
	s, _, ok := lsp.ServerFor(path)
	if !ok {
		return "", fmt.Errorf("no language server handles %s files (known: Go, TypeScript/JavaScript, Python, Rust)", filepath.Ext(path))
	}
	p, err := m.lookPath(s.Command[0])
	if err != nil {
		return "", fmt.Errorf("%s files need %s on PATH, and it is not there", filepath.Ext(path), s.Command[0])
	}
	return p, nil
}

func (m *Manager) lookPath(name string) (string, error) {
	for _, kv := range m.Env {
		if dirs, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(dirs) {
				p := filepath.Join(d, name)
				if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return p, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	return exec.LookPath(name)
}

// Open gives the server of path's language the file's text as it is on
// disk (starting the server when it is not running) and returns the
// document.
func (m *Manager) Open(ctx context.Context, path string) (*Doc, error) {
	prog, err := m.Supported(path)
	if err != nil {
		return nil, err
	}
	s, lang, _ := lsp.ServerFor(path)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	root := s.Root(path, m.Stop, func(p string) bool { _, err := os.Stat(p); return err == nil })
	c, err := m.client(ctx, s, prog, root)
	if err != nil {
		return nil, err
	}
	d := &Doc{Path: path, URI: lsp.FileURI(path), Text: string(raw), Lines: lsp.Lines(string(raw)), Units: c.units, Server: s.Command[0], c: c}
	d.version, d.before, err = c.sync(d.URI, lang, d.Text)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.Command[0], err)
	}
	return d, nil
}

func (m *Manager) client(ctx context.Context, s lsp.Server, prog, root string) (*client, error) {
	key := s.Name + "\x00" + root
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("the language servers are shut down")
	}
	if m.clients == nil {
		m.clients = map[string]*starting{}
	}
	st := m.clients[key]
	if st != nil {
		m.mu.Unlock()
		select {
		case <-st.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if st.err == nil && !st.c.ended() {
			return st.c, st.err
		}
		m.mu.Lock()
		if m.clients[key] == st {
			delete(m.clients, key) // ended: start it again
		}
		m.mu.Unlock()
		return m.client(ctx, s, prog, root)
	}
	st = &starting{done: make(chan struct{})}
	m.clients[key] = st
	m.mu.Unlock()
	// The server outlives this call: it starts under its own context,
	// bounded by a minute for initialize.
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	st.c, st.err = start(sctx, s, prog, root, m.Env, s.InitOptions(m.installed(prog, root)))
	cancel()
	close(st.done)
	if st.err != nil {
		m.mu.Lock()
		delete(m.clients, key)
		m.mu.Unlock()
	}
	return st.c, st.err
}

// installed is where server prog (and TypeScript's tsc) are, their links
// resolved.
func (m *Manager) installed(prog, root string) lsp.Installed {
	in := lsp.Installed{Root: root, Server: prog, Exists: func(p string) bool { _, err := os.Stat(p); return err == nil }}
	if p, err := filepath.EvalSymlinks(prog); err == nil {
		in.Server = p
	}
	if p, err := m.lookPath("tsc"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			in.Tsc = r
		}
	}
	return in
}

// Diagnostics waits, until ctx ends, for the server's diagnostics of the
// document's text; ok is false when they did not come in time (then
// the last ones known, if any).
func (d *Doc) Diagnostics(ctx context.Context) ([]lsp.Diagnostic, bool) {
	if d.c.pull {
		return d.pull(ctx)
	}
	return d.c.diagnostics(ctx, d.URI, d.version, d.before)
}

// pull asks the server for the document's diagnostics (lsp.PullRequests)
// and keeps them as the last known.
func (d *Doc) pull(ctx context.Context) ([]lsp.Diagnostic, bool) {
	var all []lsp.Diagnostic
	for _, req := range lsp.PullRequests(d.Path) {
		raw, err := d.c.call(ctx, "workspace/executeCommand", req)
		if err != nil {
			return d.c.known(d.URI), false
		}
		ds, err := lsp.TSDiagnostics(raw)
		if err != nil {
			return d.c.known(d.URI), false
		}
		all = append(all, ds...)
	}
	d.c.pulled(d.URI, all)
	return all, true
}

// Call sends a request about the document to its server.
func (d *Doc) Call(ctx context.Context, method string, params any) ([]byte, error) {
	return d.c.call(ctx, method, params)
}

// Known are the diagnostics last published for path while it was open
// in a running server, and whether there are any.
func (m *Manager) Known(path string) ([]lsp.Diagnostic, bool) {
	s, _, ok := lsp.ServerFor(path)
	if !ok {
		return nil, false
	}
	m.mu.Lock()
	var cs []*client
	for k, st := range m.clients {
		if strings.HasPrefix(k, s.Name+"\x00") {
			select {
			case <-st.done:
				if st.c != nil {
					cs = append(cs, st.c)
				}
			default:
			}
		}
	}
	m.mu.Unlock()
	for _, c := range cs {
		if ds, ok := c.last(lsp.FileURI(path)); ok {
			return ds, true
		}
	}
	return nil, false
}

// Close shuts every server down (each gets two seconds to exit).
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	sts := m.clients
	m.clients = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, st := range sts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-st.done
			if st.c != nil {
				st.c.shutdown(2 * time.Second)
			}
		}()
	}
	wg.Wait()
}

func (c *client) ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

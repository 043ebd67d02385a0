// Package lsp runs language servers for the lsp tool: each is a child
// process that speaks the Language Server Protocol (lib/lsp's framing) on
// its stdin and stdout, started on first use, one per workspace root and
// language, and shut down with the Manager.
package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/lib/lsp"
)

// doc is a document the client opened in the server.
type doc struct {
	version int
	text    string
	diags   []lsp.Diagnostic
	// published counts the publishDiagnostics for it; seen is the version
	// of the last one (-1: the server sent none).
	published int
	seen      int
}

// client is one running server.
type client struct {
	name  string
	root  string
	cmd   *exec.Cmd
	in    io.WriteCloser
	units lsp.Units
	pull  bool // diagnostics are asked for (lsp.Server.Pull)

	wmu sync.Mutex // one message at a time on stdin

	mu      sync.Mutex
	next    int
	pending map[string]chan lsp.Message
	docs    map[string]*doc // by URI
	changed *sync.Cond      // broadcast on every publishDiagnostics and at the end
	done    bool
	err     error // why the server ended
	stderr  *tailBuf
}

// start starts server s in root and initializes it with options.
func start(ctx context.Context, s lsp.Server, path, root string, env []string, options map[string]any) (*client, error) {
	cmd := exec.Command(path, s.Command[1:]...)
	cmd.Dir = root
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &client{name: s.Command[0], root: root, cmd: cmd, in: in, units: lsp.UTF16, pull: s.Pull,
		pending: map[string]chan lsp.Message{}, docs: map[string]*doc{}, stderr: &tailBuf{max: 4096}}
	c.changed = sync.NewCond(&c.mu)
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", s.Command[0], err)
	}
	go c.read(bufio.NewReader(out))
	if err := c.initialize(ctx, options); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

func (c *client) initialize(ctx context.Context, options map[string]any) error {
	params := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          lsp.FileURI(c.root),
		"workspaceFolders": []map[string]string{{"uri": lsp.FileURI(c.root), "name": c.root}},
		"clientInfo":       map[string]string{"name": "agentutils"},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"definition":         map[string]any{"linkSupport": true},
				"rename":             map[string]any{"prepareSupport": false},
			},
			"workspace": map[string]any{"workspaceFolders": true, "configuration": true},
		},
	}
	if options != nil {
		params["initializationOptions"] = options
	}
	raw, err := c.call(ctx, "initialize", params)
	if err != nil {
		return fmt.Errorf("%s: initialize: %v", c.name, err)
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(raw, &res)
	if res.Capabilities.PositionEncoding == string(lsp.UTF8) {
		c.units = lsp.UTF8
	}
	return c.notify("initialized", map[string]any{})
}

// read dispatches the server's messages until its stdout ends.
func (c *client) read(r *bufio.Reader) {
	var err error
	for {
		var body []byte
		body, err = lsp.Read(r)
		if err != nil {
			break
		}
		var m lsp.Message
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go c.answer(m)
		case m.Method == "textDocument/publishDiagnostics":
			c.published(m.Params)
		case m.Method == "":
			c.mu.Lock()
			ch := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
	werr := c.cmd.Wait()
	c.mu.Lock()
	c.done = true
	c.err = fmt.Errorf("%s ended (%v)%s", c.name, firstErr(werr, err), c.stderr.last())
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.changed.Broadcast()
	c.mu.Unlock()
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil && !errors.Is(e, io.EOF) {
			return e
		}
	}
	return errors.New("exit 0")
}

// answer answers a request of the server: the configuration asked for is
// null (the server's defaults), the rest is acknowledged.
func (c *client) answer(m lsp.Message) {
	var result any
	switch m.Method {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(m.Params, &p)
		result = make([]any, len(p.Items))
	case "workspace/applyEdit":
		result = map[string]any{"applied": false, "failureReason": "the lsp tool only previews edits"}
	case "workspace/workspaceFolders":
		result = []map[string]string{{"uri": lsp.FileURI(c.root), "name": c.root}}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	c.send(b)
}

func (c *client) published(params json.RawMessage) {
	var p lsp.PublishDiagnostics
	if json.Unmarshal(params, &p) != nil || c.pull {
		return // a pulling client keeps only what it pulled
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[p.URI]
	if d == nil {
		d = &doc{seen: -1}
		c.docs[p.URI] = d
	}
	d.diags = p.Diagnostics
	d.published++
	d.seen = -1
	if p.Version != nil {
		d.seen = *p.Version
	}
	c.changed.Broadcast()
}

func (c *client) send(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return lsp.Write(c.in, b)
}

func (c *client) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	return c.send(b)
}

// call sends a request and waits for its response, or for ctx's end
// (then the server is told to cancel it).
func (c *client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.done {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan lsp.Message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := c.send(b); err != nil {
		return nil, fmt.Errorf("%s: %v", c.name, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return nil, c.err
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		_ = c.notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
		return nil, ctx.Err()
	}
}

// sync makes the server's copy of the document at path (URI uri) the
// text: opened at first, changed (whole text) when it differs. It
// returns the document's version and the count of diagnostics published
// for it before.
func (c *client) sync(uri, lang, text string) (version, before int, err error) {
	c.mu.Lock()
	d := c.docs[uri]
	if d == nil {
		d = &doc{seen: -1}
		c.docs[uri] = d
	}
	opened := d.version > 0
	if opened && d.text == text {
		v, p := d.version, d.published
		c.mu.Unlock()
		if p > 0 {
			p-- // the last one is of this text
		}
		return v, p, nil
	}
	d.version++
	d.text = text
	v, p := d.version, d.published
	c.mu.Unlock()
	if !opened {
		err = c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": lang, "version": v, "text": text}})
	} else {
		err = c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": text}}})
		if err == nil {
			err = c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
		}
	}
	return v, p, err
}

// diagnostics waits until the server published diagnostics for uri after
// the count before (of version at least version, when the server says
// versions), or until ctx ends; ok says whether they came.
func (c *client) diagnostics(ctx context.Context, uri string, version, before int) ([]lsp.Diagnostic, bool) {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.changed.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		d := c.docs[uri]
		if d != nil && d.published > before && (d.seen < 0 || d.seen >= version) {
			return d.diags, true
		}
		if c.done || ctx.Err() != nil {
			if d != nil && d.published > 0 {
				return d.diags, false
			}
			return nil, false
		}
		c.changed.Wait()
	}
}

// pulled keeps ds as the diagnostics of uri's current text.
func (c *client) pulled(uri string, ds []lsp.Diagnostic) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.docs[uri]; d != nil {
		d.diags, d.seen = ds, d.version
		d.published++
	}
}

// known is the diagnostics last known for uri (nil: none).
func (c *client) known(uri string) []lsp.Diagnostic {
	ds, _ := c.last(uri)
	return ds
}

// last is the diagnostics last published for uri, and whether the
// document is open.
func (c *client) last(uri string) ([]lsp.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[uri]
	if d == nil || d.version == 0 || d.published == 0 {
		return nil, false
	}
	return d.diags, true
}

// shutdown asks the server to end, and kills its process group when it
// has not within grace.
func (c *client) shutdown(grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if _, err := c.call(ctx, "shutdown", nil); err == nil {
		_ = c.notify("exit", nil)
	}
	c.in.Close()
	c.mu.Lock()
	for !c.done && ctx.Err() == nil {
		stop := context.AfterFunc(ctx, func() { c.mu.Lock(); c.changed.Broadcast(); c.mu.Unlock() })
		c.changed.Wait()
		stop()
	}
	done := c.done
	c.mu.Unlock()
	if !done {
		c.kill()
	}
}

func (c *client) kill() {
	if c.cmd.Process != nil {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// tailBuf keeps the last max bytes written (a server's stderr, for the
// error when it dies).
type tailBuf struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuf) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuf) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) == 0 {
		return ""
	}
	return ": " + string(t.b)
}

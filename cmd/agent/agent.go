package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/session"
)

// agent is the front-end's state outside the screen: the stages, the
// session file, the model choice, the numbers of the footer.
type agent struct {
	st           *stages
	file         string
	dir          string
	getenv       func(string) string
	color        bool
	modelFlag    string
	configModel  string // config.toml's model: after the session's
	cfgThinking  string // config.toml's thinking level: after the session's
	thinkingFlag string
	cat          *llm.Catalog
	state        sessionState
	approver     *approver
	templates    []string
	histFile     string
	lastText     string // the session's last assistant text (for /copy)
	noAhead      bool   // --no-ahead: start each run at Enter
	footerLast   footerKey
	footerText   string // the footer for footerLast
}

// footerKey is what the footer shows: it is drawn again when this changes,
// not at every paint (a catalog look-up and styled text per paint while
// a stream renders).
type footerKey struct {
	width                 int
	state                 sessionState
	thinking, cfgThinking string
	cat                   *llm.Catalog
	drawn                 bool
}

func (a *agent) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.dir, p)
}

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// chatExtra are the agent-chat flags of the front-end itself: with
// approvals, the built-in tools run with the approval hook.
func (a *agent) chatExtra() []string {
	if a.approver == nil || len(a.st.tools) > 0 {
		return nil
	}
	return []string{"--tools-cmd", "agent-tool serve --settings " + shellQuote(a.approver.settings)}
}

// keyless reports whether agent-chat gets its answers without a key
// (--replay, --api-key among the passed flags).
func (a *agent) keyless() bool {
	for _, f := range a.st.chatArgs {
		if strings.HasPrefix(f, "--replay") || strings.HasPrefix(f, "--api-key") {
			return true
		}
	}
	return false
}

// currentModel is the catalog entry of the footer's model.
func (a *agent) currentModel() *llm.Model {
	if a.cat == nil || a.state.modelRef == "" {
		return nil
	}
	m, _, err := a.cat.Resolve(a.state.modelRef)
	if err != nil {
		return nil
	}
	return &m
}

// checkModel resolves the model a run will use as agent-chat does (the
// flag, else the session's, else the catalog default with a key) and
// reports an unknown model or a missing key.
func (a *agent) checkModel() error {
	if a.cat == nil {
		return nil
	}
	pattern := a.modelFlag
	if pattern == "" {
		pattern = a.state.modelRef
	}
	if pattern == "" {
		pattern = a.configModel
	}
	if pattern == "" {
		m, ok := a.cat.Default(func(m llm.Model) bool {
			k, err := a.cat.ResolveKey(m, "", a.getenv)
			return err == nil && !k.None
		})
		if !ok {
			if a.keyless() {
				return nil
			}
			return errors.New("no model: pass --model provider/id or set a provider key such as ANTHROPIC_API_KEY")
		}
		a.state.modelRef = m.Ref()
		return nil
	}
	m, level, err := a.cat.Resolve(pattern)
	if err != nil {
		return err
	}
	a.state.modelRef = m.Ref()
	if a.thinkingFlag == "" && level != "" {
		a.thinkingFlag = level
	}
	if a.keyless() {
		return nil
	}
	_, err = a.cat.ResolveKey(m, "", a.getenv)
	return err
}

// loadState reads the session's active path: the footer's numbers, the
// model and thinking level, the leaf, and a recap of the last exchanges.
func (a *agent) loadState(ctx context.Context) string {
	a.state = sessionState{modelRef: a.state.modelRef}
	out, err := a.st.sessionOut(ctx, "open", a.file)
	if err != nil {
		return red.Render(err.Error())
	}
	var msgs []llm.Message
	h, recs := streamRecords(out)
	// The footer's totals are the whole path's: a stream cut at the newest
	// compaction (formats/session) leaves the turns before it out.
	paid := recs
	if h.Omitted > 0 {
		if full, err := a.st.sessionOut(ctx, "open", "--history", a.file); err == nil {
			_, paid = streamRecords(full)
		}
	}
	t := session.Totals(paid)
	a.state.in, a.state.out, a.state.cost = int(t.Input), int(t.Output), t.Cost
	sctx, err := session.BuildContext(session.Rechain(recs, h.Carried), nil) // a cut stream's carried state first
	if err == nil {
		if m := sctx.Models["default"]; m != "" {
			a.state.modelRef = m
		}
		if session.SetsThinkingLevel(recs) { // else config.toml's (footer)
			a.state.thinking = sctx.ThinkingLevel
		}
		for _, raw := range sctx.Messages {
			var m llm.Message
			if json.Unmarshal(raw, &m) == nil {
				msgs = append(msgs, m)
			}
		}
	}
	a.lastText = ""
	for _, m := range msgs {
		if m.Role == "assistant" && m.Usage != nil {
			a.state.ctx = m.Usage.ContextTokens()
		}
		if m.Role == "assistant" {
			if t := m.Text(); t != "" {
				a.lastText = t
			}
		}
	}
	return recap(msgs, 3, a.color)
}

// streamRecords reads an agent-session open stream: its header and records.
func streamRecords(out []byte) (session.Header, []session.Record) {
	var h session.Header
	var recs []session.Record
	for i, line := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if i == 0 {
			h, _ = session.ParseStreamHeader(line)
			continue
		}
		if r, err := session.ParseRecord(line); err == nil {
			recs = append(recs, r)
		}
	}
	return h, recs
}

// recap shows the last n exchanges (from the n-th last user prompt on):
// prompts cut to a line, answers to a few lines, tool calls as headers,
// drawn by the renderer the live view uses (markdown and all).
func recap(msgs []llm.Message, n int, color bool) string {
	start := len(msgs)
	for start > 0 && n > 0 {
		start--
		if msgs[start].Role == "user" {
			n--
		}
	}
	if start == len(msgs) {
		return ""
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString(dim.Render(fmt.Sprintf("… %d earlier messages", start)) + "\n")
	}
	v := newRenderer(termWidth(), color)
	for _, m := range msgs[start:] {
		typ := event.MessageEnd // an assistant message is drawn at its end
		switch m.Role {
		case "user":
			typ = event.MessageStart // a prompt at its start
			m.Content = []llm.Content{{Type: "text", Text: clip(m.Text(), 200)}}
		case "assistant":
			m.Content = slices.Clone(m.Content)
			for i, c := range m.Content {
				if lines := strings.Split(strings.TrimSpace(c.Text), "\n"); c.Type == "text" && len(lines) > 6 {
					m.Content[i].Text = strings.Join(lines[:6], "\n") + fmt.Sprintf("\n\n*… %d more lines*", len(lines)-6)
				}
			}
		default:
			continue
		}
		b.WriteString(v.Event(messageEvent(typ, m)))
	}
	b.WriteString(v.Finish())
	return b.String()
}

// messageEvent is a message event of type typ, as agent-chat writes it.
func messageEvent(typ string, m llm.Message) event.Event {
	raw, _ := json.Marshal(struct {
		Type    string      `json:"type"`
		Message llm.Message `json:"message"`
	}{typ, m})
	return event.Event{Type: typ, Raw: raw}
}

func (a *agent) lastAnswer() string { return a.lastText }

// branchSummary runs SESSION open --all S | COMPACT --branch-summary
// --from OLD --to ID | SESSION checkout S ID --summary-from -.
func (s *stages) branchSummary(ctx context.Context, file, old, id string) error {
	var errb bytes.Buffer
	open := s.cmd(ctx, s.session, "open", "--all", file)
	comp := s.cmd(ctx, s.compact, "--branch-summary", "--from", old, "--to", id)
	co := s.cmd(ctx, s.session, "checkout", file, id, "--summary-from", "-")
	open.Stderr, comp.Stderr, co.Stderr = &errb, &errb, &errb
	p1, err := open.StdoutPipe()
	if err != nil {
		return err
	}
	comp.Stdin = p1
	p2, err := comp.StdoutPipe()
	if err != nil {
		return err
	}
	co.Stdin = p2
	for _, c := range []interface{ Start() error }{open, comp, co} {
		if err := c.Start(); err != nil {
			return err
		}
	}
	e1, e2, e3 := open.Wait(), comp.Wait(), co.Wait()
	if e1 != nil || e2 != nil || e3 != nil {
		return errors.New(strings.TrimSpace(errb.String()))
	}
	return nil
}

// History: one prompt per record in $XDG_DATA_HOME/agentutils/agent_history,
// JSON strings so multi-line prompts stay one entry.
func (a *agent) loadHistory() []string {
	f, err := os.Open(a.histFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil {
			out = append(out, s)
		}
	}
	if len(out) > 1000 {
		out = out[len(out)-1000:]
	}
	return out
}

func (a *agent) saveHistory(s string) {
	if a.histFile == "" {
		return
	}
	os.MkdirAll(filepath.Dir(a.histFile), 0o755)
	f, err := os.OpenFile(a.histFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	b, _ := json.Marshal(s)
	f.Write(append(b, '\n'))
	f.Close()
}

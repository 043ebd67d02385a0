package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/agentutils/agentutils/internal/lineblock"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/session"
)

// stream is what agent-chat read on stdin.
type stream struct {
	header *session.Header
	// records are what BuildContext resolves: on a stream that is one
	// chain, the entries from the newest compaction's kept part on, after
	// the state changes before it (compact.Window); else every entry.
	records []session.Record
	pending [][]byte // records marked pending, echoed as entry events
	// compacted: a stage before (agent-compact) compacted the session: a
	// pending compaction record (SessionStart's source is then compact).
	compacted bool
	upstream  json.RawMessage // an error record from an earlier stage
	rest      *bufio.Reader   // stdin after context_end
	win       compact.Window  // the entries held while reading
	// spans locate the bytes of each entry of win (by address only: they
	// keep nothing alive) and its line, to name the line of a message that
	// does not decode after the records are let go.
	spans  []span
	blocks lineblock.Blocks // the bytes of the lines held
	view   session.View     // each line is decoded into it
}

type span struct {
	start uintptr
	n     int
	line  int
}

// lineOf is the stdin line whose record holds b, or 0.
func (s *stream) lineOf(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, sp := range s.spans {
		if p >= sp.start && p < sp.start+uintptr(sp.n) {
			return sp.line
		}
	}
	return 0
}

// readStream reads session records until EOF or {"type":"context_end"},
// holding only the entries a context can read (compact.Window). A line
// that is not a record is bad input: exit 2 naming the line, before any
// request is sent.
func readStream(r io.Reader) (*stream, error) {
	s := &stream{rest: bufio.NewReaderSize(r, 64<<10), win: compact.Window{Own: true}}
	var long []byte // a line longer than the reader's buffer
	for n := 1; ; n++ {
		// the line stays in the reader's buffer until it is copied into
		// the blocks
		line, err := lineblock.Next(s.rest, &long)
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				return s.done(), nil
			}
			return nil, err
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		stop, aerr := s.add(bytes.TrimRight(line, "\r\n"), n)
		if aerr != nil {
			return nil, aerr
		}
		if stop || err == io.EOF {
			return s.done(), nil
		}
	}
}

// add reads line n; stop is true at the end of the records (context_end,
// or an upstream error record).
func (s *stream) add(line []byte, n int) (stop bool, err error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return false, nil
	}
	perr := session.DecodeInto(&s.view, s.blocks.Copy(line)) // Raw is the block's bytes, not a copy
	e := s.view.Record
	if perr != nil {
		return false, exit.Errorf(exit.Usage, "stdin:%d: not a session record: %v (no request was sent)", n, perr)
	}
	switch e.Type {
	case "context_end":
		return true, nil
	case "error":
		s.upstream = e.Raw
		return true, nil
	case "state":
		return false, exit.Errorf(exit.Usage, "stdin:%d: a resolved stream ('agent-session open --resolved') is for reading, not a pipeline stream: use 'agent-session open'", n)
	case "session":
		if s.header == nil {
			h, err := session.ParseStreamHeader(line)
			if err != nil {
				return false, exit.Errorf(exit.Usage, "stdin:%d: %v", n, err)
			}
			s.header = &h
			s.win.Start(h)
		}
		return false, nil
	}
	if e.ID == "" {
		return false, exit.Errorf(exit.Usage, "stdin:%d: %s record without an id", n, e.Type)
	}
	if e.Pending {
		s.pending = append(s.pending, bytes.Clone(e.Raw)) // its block may be used again
		s.compacted = s.compacted || e.Type == "compaction"
	}
	carried := s.win.Carrying()
	k, err := s.win.Add(e)
	if err != nil {
		return false, exit.Errorf(exit.Usage, "stdin:%d: %v (no request was sent)", n, err)
	}
	if carried { // a copy in win.Carry
		return false, nil
	}
	s.spans = append(s.spans, span{uintptr(unsafe.Pointer(unsafe.SliceData(e.Raw))), len(e.Raw), n})
	if k > 0 {
		s.win.Cut(k)
		s.spans = slices.Delete(s.spans, 0, k)
		s.blocks.Release(s.win.Held[0].Raw)
	}
	return false, nil
}

// done sets the records BuildContext resolves.
func (s *stream) done() *stream {
	s.records = s.win.Path()
	s.win = compact.Window{}
	return s
}

// contextMessages resolves the records into the model's history: message
// JSON, checked here (a message that does not decode is bad input, named
// by its line, before any request) and decoded again, one at a time, each
// time a request body is encoded (llm.Context.History). The history is
// held once, in the bytes it came in; a decoded copy of it would be as big
// again.
func (s *stream) contextMessages() (session.Context, []json.RawMessage, error) {
	ctx, err := session.BuildContext(s.records, nil)
	s.records = nil
	if err != nil {
		return ctx, nil, exit.Wrap(exit.Usage, err)
	}
	raws := session.ConvertToLLM(ctx.Messages)
	ctx.Messages = nil
	if i, err := llm.CheckHistory(raws); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			err = fmt.Errorf("field %q cannot be a JSON %s", te.Field, te.Value)
		}
		if n := s.lineOf(raws[i]); n > 0 {
			return ctx, nil, exit.Errorf(exit.Usage, "stdin:%d: not a model message: %v (no request was sent)", n, err)
		}
		return ctx, nil, exit.Errorf(exit.Usage, "context message %d: %v (no request was sent)", i+1, err)
	}
	return ctx, raws, nil
}

// lastMessage is the last message of the history (checked by
// contextMessages, so it decodes).
func lastMessage(history []json.RawMessage) (llm.Message, bool) {
	if len(history) == 0 {
		return llm.Message{}, false
	}
	m, err := llm.DecodeMessage(history[len(history)-1])
	return m, err == nil
}

var imageTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}

// promptContent builds the user message content from the arguments:
// -m texts, then the words (joined by spaces), @FILE contents, and "-"
// (the rest of stdin).
func promptContent(dir string, messages, args []string, stdin io.Reader) ([]llm.Content, error) {
	var texts []string
	var images []llm.Content
	texts = append(texts, messages...)
	var words []string
	for _, a := range args {
		switch {
		case a == "-":
			b, err := io.ReadAll(stdin)
			if err != nil {
				return nil, err
			}
			if t := strings.TrimSpace(string(b)); t != "" {
				words = append(words, t)
			}
		case strings.HasPrefix(a, "@") && len(a) > 1:
			p := a[1:]
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, exit.Errorf(exit.Usage, "%s: %v", a, err)
			}
			if mime, ok := imageTypes[strings.ToLower(filepath.Ext(p))]; ok {
				images = append(images, llm.ImageBlock(base64.StdEncoding.EncodeToString(b), mime))
				continue
			}
			texts = append(texts, fmt.Sprintf("<file path=%q>\n%s\n</file>", a[1:], strings.TrimRight(string(b), "\n")))
		default:
			words = append(words, a)
		}
	}
	if len(words) > 0 {
		texts = append([]string{strings.Join(words, " ")}, texts...)
	}
	var out []llm.Content
	if len(texts) > 0 {
		out = append(out, llm.TextBlock(strings.Join(texts, "\n\n")))
	}
	return append(out, images...), nil
}

// toolsFrom reads --tools-json: an array of {name, description,
// parameters}, or agent-tool schema's output ({"type":"tools","tools":[…]}
// or one tool per line).
func toolsFrom(data []byte) ([]llm.Tool, error) {
	data = bytes.TrimSpace(data)
	var tools []llm.Tool
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &tools); err != nil {
			return nil, err
		}
	} else {
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var msg struct {
				Tools []llm.Tool `json:"tools"`
				llm.Tool
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			if msg.Tools != nil {
				tools = append(tools, msg.Tools...)
			} else if msg.Name != "" {
				tools = append(tools, msg.Tool)
			}
		}
	}
	for i, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("tool %d has no name", i+1)
		}
	}
	return tools, nil
}

// Package lsp is the pure part of the Language Server Protocol client of
// the lsp tool: the base protocol's framing (Content-Length headers), the
// messages' types, positions in UTF-8 or UTF-16 units, the table of
// language servers by file extension, and how diagnostics, locations,
// hovers and rename edits are shown to the model. internal/lsp runs the
// servers.
package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxMessage is the largest message body read (a server's answer for a
// whole workspace's references stays far below it).
const MaxMessage = 64 << 20

// Write writes body as one message: a Content-Length header, a blank
// line, the body.
func Write(w io.Writer, body []byte) error {
	_, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// Read reads one message's body: headers up to a blank line (each
// "Name: value", Content-Length required, others ignored), then that
// many bytes.
func Read(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && n == -1 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("lsp: reading a header: %w", unexpected(err))
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("lsp: bad header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v < 0 {
				return nil, fmt.Errorf("lsp: bad Content-Length %q", strings.TrimSpace(value))
			}
			n = v
		}
	}
	if n < 0 {
		return nil, errors.New("lsp: a message without Content-Length")
	}
	if n > MaxMessage {
		return nil, fmt.Errorf("lsp: a message of %d bytes (at most %d)", n, MaxMessage)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("lsp: reading a body of %d bytes: %w", n, unexpected(err))
	}
	return body, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Message is a JSON-RPC 2.0 request, notification or response.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a response's error.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Position is a zero-based line and character offset in the units the
// server and client agreed on.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// Diagnostic is a problem a server found.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity,omitempty"` // 1 error, 2 warning, 3 information, 4 hint
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// PublishDiagnostics is textDocument/publishDiagnostics's params.
type PublishDiagnostics struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// TextEdit replaces a range with new text.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// WorkspaceEdit is a rename's answer: edits per document, in either of
// the protocol's two shapes.
type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Edits []TextEdit `json:"edits"`
	} `json:"documentChanges,omitempty"`
}

// Edits are the edits of w by document URI.
func (w WorkspaceEdit) Edits() map[string][]TextEdit {
	out := map[string][]TextEdit{}
	for u, e := range w.Changes {
		out[u] = append(out[u], e...)
	}
	for _, d := range w.DocumentChanges {
		out[d.TextDocument.URI] = append(out[d.TextDocument.URI], d.Edits...)
	}
	return out
}

// FileURI is the file: URI of an absolute path.
func FileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// Path is the path of a file: URI.
func Path(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", fmt.Errorf("lsp: not a file URI: %q", uri)
	}
	return filepath.FromSlash(u.Path), nil
}

// Units are how a position's character counts: "utf-8" (bytes) or
// "utf-16" (the protocol's default).
type Units string

// The position encodings.
const (
	UTF8  Units = "utf-8"
	UTF16 Units = "utf-16"
)

// Character is the character offset, in units u, of byte offset col of
// line (a col past the end counts from the end).
func (u Units) Character(line string, col int) int {
	col = min(max(col, 0), len(line))
	if u == UTF8 {
		return col
	}
	n := 0
	for _, r := range line[:col] {
		n += utf16.RuneLen(r)
	}
	return n
}

// Byte is the byte offset in line of character offset ch in units u.
func (u Units) Byte(line string, ch int) int {
	if u == UTF8 {
		return min(max(ch, 0), len(line))
	}
	n := 0
	for i, r := range line {
		if n >= ch {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}

// Column is the 1-based column, in characters (runes), of position p in
// the text of line.
func (u Units) Column(line string, p Position) int {
	return utf8.RuneCountInString(line[:u.Byte(line, p.Character)]) + 1
}

package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LogLevels are the MCP logging levels (RFC 5424's), least severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// ValidLogLevel tells whether l is one of LogLevels.
func ValidLogLevel(l string) bool { return slices.Contains(LogLevels, l) }

// LogLine is the stderr line of a server's notifications/message:
// "[mcp:SERVER] LEVEL LOGGER: DATA", the data as sent (a string as is,
// anything else as compact JSON).
func LogLine(server string, p *mcp.LoggingMessageParams) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp:%s] %s", server, p.Level)
	if p.Logger != "" {
		b.WriteString(" " + p.Logger)
	}
	b.WriteString(": ")
	if s, ok := p.Data.(string); ok {
		b.WriteString(s)
	} else if d, err := json.Marshal(p.Data); err == nil {
		b.Write(d)
	}
	return strings.TrimRight(b.String(), "\n")
}

// setLogLevel sends logging/setLevel when one was asked for and the server
// advertises logging; a refusal is a warning, not a failed connection. From
// protocol 2026-07-28 on, the level travels in each request's _meta
// instead (RawConn).
func (s *Session) setLogLevel(ctx context.Context, cs *mcp.ClientSession) {
	if s.d.LogLevel == "" {
		return
	}
	if ir := cs.InitializeResult(); ir == nil || ir.Capabilities == nil || ir.Capabilities.Logging == nil {
		s.d.Warn(fmt.Sprintf("%s: the server does not offer logging; --log-level ignored", s.Entry.Name))
		return
	}
	if ir := cs.InitializeResult(); ir.ProtocolVersion >= "2026-07-28" {
		return
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(s.d.LogLevel)}); err != nil {
		s.d.Warn(fmt.Sprintf("%s: logging/setLevel: %v", s.Entry.Name, err))
	}
}

package mcpclient

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLogLine(t *testing.T) {
	for _, tc := range []struct {
		p    mcp.LoggingMessageParams
		want string
	}{
		{mcp.LoggingMessageParams{Level: "info", Data: "hello\n"}, "[mcp:s] info: hello"},
		{mcp.LoggingMessageParams{Level: "error", Logger: "db", Data: map[string]any{"n": 1}}, `[mcp:s] error db: {"n":1}`},
	} {
		if d := cmp.Diff(tc.want, LogLine("s", &tc.p)); d != "" {
			t.Error(d)
		}
	}
}

func TestWithLogLevel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"name":"x"}`, `{"name":"x"}`},
		{`{"_meta":{"progressToken":1}}`, `{"_meta":{"progressToken":1}}`},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`,
			`{"_meta":{"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`},
	} {
		if d := cmp.Diff(tc.want, string(withLogLevel([]byte(tc.in), "debug"))); d != "" {
			t.Error(d)
		}
	}
}

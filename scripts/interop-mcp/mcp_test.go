package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgsFor(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{}`, `{}`},
		{`{"type":"object","properties":{"message":{"type":"string"},"n":{"type":"number"}},"required":["message"]}`, `{"message":"x"}`},
		{`{"properties":{"a":{"type":"integer"},"b":{"type":"boolean"},"c":{"type":"array"},"d":{"type":"object"},"e":{"enum":["low","high"]},"f":{"type":"string","default":"dflt"}},"required":["a","b","c","d","e","f"]}`,
			`{"a":1,"b":false,"c":[],"d":{},"e":"low","f":"dflt"}`},
		{`{"properties":{},"required":["undeclared"]}`, `{"undeclared":"x"}`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, argsFor(json.RawMessage(tt.schema))); diff != "" {
			t.Errorf("argsFor(%s) (-want +got):\n%s", tt.schema, diff)
		}
	}
}

func TestContentSummary(t *testing.T) {
	var r callResult
	json.Unmarshal([]byte(`{"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}`), &r)
	if diff := cmp.Diff("image×1,text×2", contentSummary(r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPromptArgs(t *testing.T) {
	got := promptArgs([]promptArg{{"department", true}, {"style", false}, {"city", true}, {"resourceId", true}})
	if diff := cmp.Diff([]string{"department=Engineering", "city=x", "resourceId=1"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

const help = `NAME:
   agent-mcp - MCP servers as commands

COMMANDS:
   list        connect to servers and show their status and tool names
   remove, rm  remove a server from our mcp.json
   help, h     Shows a list of commands or help for one command

EXAMPLES:
       agent-mcp list everything      # what it offers
       agent-mcp read --server everything demo://resource/static/document/architecture.md
       agent-mcp list github
`

func TestHelpParsing(t *testing.T) {
	if diff := cmp.Diff([]string{"list", "remove"}, subcommands(help)); diff != "" {
		t.Errorf("subcommands (-want +got):\n%s", diff)
	}
	want := []string{"agent-mcp list everything", "agent-mcp read --server everything demo://resource/static/document/architecture.md"}
	if diff := cmp.Diff(want, examples(help)); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
}

func TestConformance(t *testing.T) {
	base := "client:\n  # a comment\n  - sse-retry  # timing\n  - auth/basic-cimd\nserver:\n  - tools-call  # fixtures\n  - sse-retry\n"
	tests := []struct {
		name, section, log, total string
		unknown, fixed            []string
	}{
		{"known failures only", "client", "✓ initialize: ok\n✗ sse-retry: timing\nTotal: 9 passed, 1 failed\n", "9 passed, 1 failed", nil, nil},
		{"a regression", "client", "✗ auth/basic-cimd: warn\n✗ elicitation: declined\nTotal: 1 passed\nTotal: 8 passed, 2 failed\n", "8 passed, 2 failed", []string{"elicitation"}, nil},
		{"another section's", "server", "✗ auth/basic-cimd: warn\n✓ tools-call: ok\nTotal: 1 passed, 1 failed\n", "1 passed, 1 failed", []string{"auth/basic-cimd"}, []string{"tools-call"}},
		{"no summary", "client", "Error: cannot start\n", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			total, unknown, fixed := conformance(tt.log, base, tt.section)
			if diff := cmp.Diff(tt.total, total); diff != "" {
				t.Errorf("total (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unknown, unknown); diff != "" {
				t.Errorf("unknown (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.fixed, fixed); diff != "" {
				t.Errorf("fixed (-want +got):\n%s", diff)
			}
		})
	}
}

package tui

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestElicitURL(t *testing.T) {
	for _, tc := range []struct{ payload, want string }{
		{`{"server":"gh","mode":"url","url":"https://github.com/login/device","message":"Enter the code"}`,
			`MCP server "gh" asks you to open https://github.com/login/device: Enter the code`},
		{`{"server":"gh","mode":"url","url":"https://x.example"}`, `MCP server "gh" asks you to open https://x.example`},
		{`{"server":"gh","mode":"form","message":"Name?"}`, ``},
		{`{"server":"gh","mode":"url"}`, ``},
		{`not json`, ``},
	} {
		if d := cmp.Diff(tc.want, elicitURL(json.RawMessage(tc.payload))); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.payload, d)
		}
	}
}

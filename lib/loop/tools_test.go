package loop

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

func def(name, conc string) event.ToolDef {
	return event.ToolDef{Name: name, Description: name + " tool", Parameters: json.RawMessage(`{"type":"object"}`), Concurrency: conc}
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		sources []Source
		want    []string // name@source
		wantErr string
	}{
		{name: "empty", sources: nil},
		{
			name: "two sources in order",
			sources: []Source{
				{Name: "agent-tool serve", Tools: []event.ToolDef{def("read", "shared"), def("bash", "exclusive")}},
				{Name: "agent-mcp bridge", Tools: []event.ToolDef{def("mcp__gh__issues", "")}},
			},
			want: []string{"read@0:shared", "bash@0:exclusive", "mcp__gh__issues@1:shared"},
		},
		{
			name: "clash names both",
			sources: []Source{
				{Name: "agent-tool serve", Tools: []event.ToolDef{def("read", "shared")}},
				{Name: "my-tools", Tools: []event.ToolDef{def("read", "shared")}},
			},
			wantErr: `tool "read" is offered by both "agent-tool serve" and "my-tools"`,
		},
		{
			name:    "clash in one source",
			sources: []Source{{Name: "x", Tools: []event.ToolDef{def("a", ""), def("a", "")}}},
			wantErr: `tool "a" is offered twice by "x"`,
		},
		{
			name:    "no name",
			sources: []Source{{Name: "x", Tools: []event.ToolDef{{}}}},
			wantErr: `tool source "x": a tool without a name`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := Merge(tt.sources)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tl := range ts.Tools() {
				got = append(got, tl.Name+"@"+string(rune('0'+tl.Source))+":"+tl.Concurrency)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if len(ts.Defs()) != len(tt.want) {
				t.Errorf("Defs: %d, want %d", len(ts.Defs()), len(tt.want))
			}
		})
	}
}

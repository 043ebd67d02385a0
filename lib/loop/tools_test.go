package loop

import (
	"encoding/json"
	"strings"
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

func TestReplace(t *testing.T) {
	ts, err := Merge([]Source{
		{Name: "a", Tools: []event.ToolDef{def("read", "")}},
		{Name: "b", Tools: []event.ToolDef{def("old", "")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	nts, err := ts.Replace(1, []event.ToolDef{def("new", "")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := nts.Lookup("old"); ok {
		t.Error("old tool still there")
	}
	if tl, ok := nts.Lookup("new"); !ok || tl.Source != 1 {
		t.Errorf("new tool: %+v %v", tl, ok)
	}
	if _, ok := ts.Lookup("old"); !ok {
		t.Error("Replace changed the original toolset")
	}
	if _, err := ts.Replace(1, []event.ToolDef{def("read", "")}); err == nil || !strings.Contains(err.Error(), `both "a" and "b"`) {
		t.Errorf("clash on replace: %v", err)
	}
	if _, err := ts.Replace(5, nil); err == nil {
		t.Error("bad source index: no error")
	}
}

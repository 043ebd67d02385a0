package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/subagent"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/tooldef"
)

var update = flag.Bool("update", false, "rewrite formats/tool-protocol/valid/toolDef/ from the tools")

const defDir = "../../formats/tool-protocol/valid/toolDef"

// TestTable: every tool here has an entry in lib/tooldef's table and every
// entry is a tool here, with the label and scheduling the table gives.
func TestTable(t *testing.T) {
	offered := map[string]bool{}
	for _, mode := range EditModes {
		for _, tl := range All(mode) {
			offered[tl.Def.Name] = true
			e, ok := tooldef.Lookup(tl.Def.Name)
			if !ok {
				t.Errorf("%s (edit mode %s) has no entry in lib/tooldef's table", tl.Def.Name, mode)
				continue
			}
			want := event.Shared
			if e.Exclusive {
				want = event.Exclusive
			}
			if tl.Def.Label != e.Label || tl.Def.Concurrency != want || tl.Def.NonAbortable != e.NonAbortable {
				t.Errorf("%s: label %q, concurrency %s, nonAbortable %v; the table says %q, %s, %v",
					tl.Def.Name, tl.Def.Label, tl.Def.Concurrency, tl.Def.NonAbortable, e.Label, want, e.NonAbortable)
			}
			if InMode(tl.Def.Name, mode) != tl.Def.Name {
				t.Errorf("InMode(%s, %s) = %s", tl.Def.Name, mode, InMode(tl.Def.Name, mode))
			}
		}
	}
	for _, name := range tooldef.Names(func(tooldef.Tool) bool { return true }) {
		e, _ := tooldef.Lookup(name)
		if !offered[e.Name] && !e.InChat {
			t.Errorf("lib/tooldef's table has %s, which no edit mode offers: add its file here", e.Name)
		}
	}
}

// TestSchemaFiles keeps each tool's definition in formats/tool-protocol
// (valid/toolDef/NAME.json, or NAME.MODE.json where an edit mode changes
// it; TestCorpus checks them against the protocol's schema) equal to what
// agent-tool schema prints. go test ./internal/tools -update rewrites them.
func TestSchemaFiles(t *testing.T) {
	want := map[string][]byte{}
	for _, mode := range EditModes {
		for _, tl := range All(mode) {
			e, _ := tooldef.Lookup(tl.Def.Name)
			file := e.Name + "." + mode + ".json"
			if !slices.Contains(e.Schemas, file) {
				file = e.Name + ".json"
			}
			b, err := json.MarshalIndent(tl.Def, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, '\n')
			if prev, ok := want[file]; ok && !bytes.Equal(prev, b) {
				t.Errorf("%s differs in edit mode %s: name the file %s.%s.json in the table's Schemas", tl.Def.Name, mode, e.Name, mode)
			}
			want[file] = b
			if !slices.Contains(e.Schemas, file) {
				t.Errorf("%s: the table's Schemas %q lack %s", e.Name, e.Schemas, file)
			}
		}
	}
	// The task tool is agent-chat's (internal/subagent), its definition
	// kept here with the others.
	task, _ := json.MarshalIndent(subagent.Def(nil, nil), "", "  ")
	want[subagent.Name+".json"] = append(task, '\n')
	if *update {
		os.RemoveAll(defDir)
		os.MkdirAll(defDir, 0o755)
		for f, b := range want {
			if err := os.WriteFile(filepath.Join(defDir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	have, _ := filepath.Glob(filepath.Join(defDir, "*.json"))
	var got []string
	for _, p := range have {
		got = append(got, filepath.Base(p))
	}
	var names []string
	for f := range want {
		names = append(names, f)
	}
	slices.Sort(names)
	if d := cmp.Diff(names, got); d != "" {
		t.Errorf("files in %s (-want +got; go test ./internal/tools -update rewrites them):\n%s", defDir, d)
	}
	for f, b := range want {
		disk, _ := os.ReadFile(filepath.Join(defDir, f))
		if d := cmp.Diff(string(b), string(disk)); d != "" && len(disk) > 0 {
			t.Errorf("%s is stale (-tool +file; go test ./internal/tools -update rewrites it):\n%s", f, d)
		}
	}
	for _, name := range tooldef.Names(func(tooldef.Tool) bool { return true }) {
		e, _ := tooldef.Lookup(name)
		for _, f := range e.Schemas {
			if _, ok := want[f]; !ok || !strings.HasPrefix(f, e.Name+".") {
				t.Errorf("%s: Schemas names %s, which is not one of its definitions", e.Name, f)
			}
		}
	}
}

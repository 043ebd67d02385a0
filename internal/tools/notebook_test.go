package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// read shows a notebook's cells with outputs and images; notebook_edit
// changes one cell, undo_edit takes it back, edit refuses the notebook.
func TestNotebook(t *testing.T) {
	raw, err := os.ReadFile("../../lib/notebook/testdata/sales.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	nbPath := filepath.Join(dir, "sales.ipynb")
	os.WriteFile(nbPath, raw, 0o644)
	env := &Env{Cwd: dir, StateDir: t.TempDir(), Now: time.Now, Getenv: os.Getenv}
	ts := All("replace")
	run := func(name, args string) (string, bool, int) {
		r := Run(context.Background(), ts, env, name, json.RawMessage(args), nil)
		images := 0
		for _, c := range r.Content {
			if c.Type == "image" {
				images++
			}
		}
		return r.Content[0].Text, r.IsError, images
	}

	out, isErr, images := run("read", `{"path":"sales.ipynb"}`)
	if isErr || images != 1 || !strings.Contains(out, "<cell id=\"boom\" type=\"code\" execution_count=3>\n1/0\n<output>\nZeroDivisionError: division by zero\nZeroDivisionError: division by zero\n</output>") {
		t.Errorf("read of a notebook (%d images):\n%s", images, out)
	}
	if out, _, _ := run("read", `{"path":"sales.ipynb","limit":3}`); !strings.HasPrefix(out, "1|{\n2| \"cells\": [\n") {
		t.Errorf("read with a limit shows the JSON lines:\n%s", out)
	}

	out, isErr, _ = run("notebook_edit", `{"path":"sales.ipynb","cell_id":"load","new_source":"df = load()"}`)
	if isErr || out != "Replaced cell load in sales.ipynb." {
		t.Fatalf("notebook_edit: %v %s", isErr, out)
	}
	after, _ := os.ReadFile(nbPath)
	if !strings.Contains(string(after), "\"source\": [\n    \"df = load()\"\n   ]") || strings.Contains(string(after), "loaded 12 rows") {
		t.Errorf("after the edit:\n%s", after)
	}
	if _, isErr, _ := run("undo_edit", `{"path":"sales.ipynb"}`); isErr {
		t.Error("undo_edit failed")
	}
	if back, _ := os.ReadFile(nbPath); string(back) != string(raw) {
		t.Error("undo_edit did not restore the notebook")
	}

	for _, tc := range []struct{ tool, args, want string }{
		{"notebook_edit", `{"path":"sales.ipynb","cell_id":"nope","edit_mode":"delete"}`, `sales.ipynb: no cell "nope" in the notebook (cells: intro, load, plot, boom)`},
		{"notebook_edit", `{"path":"notes.txt","cell_id":"a","new_source":"x"}`, "notes.txt is not a notebook (.ipynb)"},
		{"edit", `{"path":"sales.ipynb","old_text":"1/0","new_text":"1/1"}`, "Use the notebook_edit tool instead."},
	} {
		if out, isErr, _ := run(tc.tool, tc.args); !isErr || !strings.Contains(out, tc.want) {
			t.Errorf("%s %s: %v %q, want %q", tc.tool, tc.args, isErr, out, tc.want)
		}
	}
	if b, _ := os.ReadFile(nbPath); string(b) != string(raw) {
		t.Error("a refused call changed the notebook")
	}
}

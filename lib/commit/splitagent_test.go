package commit

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

const agentDiff = `diff --git a/a.go b/a.go
index 1..2 100644
--- a/a.go
+++ b/a.go
@@ -1,2 +1,3 @@
 package a
+// one
 x
@@ -10,2 +11,3 @@
 y
+// two
 z
diff --git a/go.sum b/go.sum
new file mode 100644
--- /dev/null
+++ b/go.sum
@@ -0,0 +1 @@
+x v1 h1:a
diff --git a/go.mod b/go.mod
new file mode 100644
--- /dev/null
+++ b/go.mod
@@ -0,0 +1 @@
+module x
diff --git a/doc.md b/doc.md
--- a/doc.md
+++ b/doc.md
@@ -1 +1 @@
-old
+new
`

func TestSplitAgentTools(t *testing.T) {
	a := &SplitAgent{Files: ParseDiff(agentDiff), Cfg: Conventional()}
	ov := a.Overview()
	if len(ov.Files) != 3 || len(ov.Excluded) != 1 || ov.Excluded[0] != "go.sum" || ov.Files[0].Hunks != 2 {
		t.Errorf("overview = %+v", ov)
	}
	out, isErr := a.Call("git_hunk", json.RawMessage(`{"file":"a.go","hunks":[2]}`))
	if isErr || !strings.HasPrefix(out, "Hunk 2 (new lines 11-13):\n@@ -10,2 +11,3 @@") || strings.Contains(out, "one") {
		t.Errorf("git_hunk = %q", out)
	}
	out, _ = a.Call("git_file_diff", json.RawMessage(`{"files":["doc.md","a.go","go.sum","nope"]}`))
	if !strings.HasPrefix(out, "=== a.go ===") || !strings.Contains(out, "=== go.sum ===\n(lock file") || !strings.Contains(out, "=== nope ===\n(not in the staged diff)") {
		t.Errorf("git_file_diff = %q", out)
	}
	if _, isErr := a.Call("rm_rf", nil); !isErr {
		t.Error("unknown tool: want an error result")
	}

	var v SplitVerdict
	out, _ = a.Call("split_commit", json.RawMessage(`{"commits":[{"type":"feat","summary":"add one","changes":[{"path":"a.go","kind":"indices","indices":[1]}]},
		{"type":"chore","summary":"add the module","changes":[{"path":"go.mod","hunks":{"type":"all"}}],"dependencies":[0]}]}`))
	json.Unmarshal([]byte(out), &v)
	if v.Valid || len(v.Errors) != 1 || v.Errors[0] != "Staged file missing from split plan: doc.md" || a.Plan != nil {
		t.Errorf("missing file: %s", out)
	}
	out, _ = a.Call("split_commit", json.RawMessage(`{"commits":[{"type":"feat","summary":"add one","changes":[{"path":"a.go","kind":"indices","indices":[1]}]},
		{"type":"chore","summary":"add the module","changes":[{"path":"go.mod","hunks":{"type":"all"}},{"path":"./doc.md","kind":"all"}],"dependencies":[0]}]}`))
	v = SplitVerdict{}
	json.Unmarshal([]byte(out), &v)
	if !v.Valid || len(v.Warnings) != 1 || v.Warnings[0] != "left staged: a.go hunks 2" || a.Plan == nil {
		t.Fatalf("valid plan: %s", out)
	}
	if n := len(a.Plan.Commits[1].Changes); n != 2 {
		t.Errorf("validation changed the plan: %d changes (go.sum added?)", n)
	}
	run, err := PlanSplit(*a.Plan, a.Files, a.Cfg)
	patch := func(i int) string {
		b, _ := io.ReadAll(SpanReader(strings.NewReader(agentDiff), run.Patches[i]))
		return string(b)
	}
	if err != nil || !strings.Contains(patch(1), "b/go.sum") || !strings.Contains(patch(1), "+module x\n") || strings.Contains(patch(0), "// two") ||
		!strings.HasPrefix(patch(0), "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,3 @@\n package a\n+// one\n x\n") {
		t.Errorf("PlanSplit: %v\n%s\n%s", err, patch(0), patch(1))
	}
}

func TestCapLines(t *testing.T) {
	s := strings.Repeat("x\n", 500)
	got := capLines(s, 300, 100)
	if n := strings.Count(got, "\n"); n != 401 || !strings.Contains(got, "... (truncated 100 lines) ...") {
		t.Errorf("capLines: %d lines", n)
	}
}

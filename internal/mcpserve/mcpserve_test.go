package mcpserve

import (
	"testing"

	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// TestServeToolClasses: every built-in tool of agent-tool has a class, so
// --allow-write and --allow-exec offer all of them (todo_write and
// undo_edit were left out when matched as "todo" and "undo").
func TestServeToolClasses(t *testing.T) {
	for _, mode := range []string{"replace", "hashline", "apply_patch"} {
		for _, tl := range tools.All(mode) {
			if class, _ := toolClass(tl.Def.Name); class == "" {
				t.Errorf("%s (edit mode %s) has no class: serve never offers it", tl.Def.Name, mode)
			}
		}
	}
	for _, name := range []string{"todo_write", "undo_edit"} {
		if class, _ := toolClass(name); class != tooldef.Write {
			t.Errorf("%s: class %q, want %q", name, class, tooldef.Write)
		}
	}
}

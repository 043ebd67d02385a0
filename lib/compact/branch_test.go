package compact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/session"
)

func records(t *testing.T, lines ...string) []session.Record {
	t.Helper()
	var out []session.Record
	for _, l := range lines {
		r, err := session.ParseRecord([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out = append(out, r)
	}
	return out
}

// A tree: u1 → a1 → u2 → a2 → r2 (the old branch) and a1 → u3 (the target).
var branchTree = []string{
	`{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"start"}}`,
	`{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
	`{"type":"message","id":"u2","parentId":"a1","message":{"role":"user","content":"try plan B"}}`,
	`{"type":"branch_summary","id":"b1","parentId":"u2","fromId":"u2","summary":"older","details":{"readFiles":["old.go"],"modifiedFiles":[]}}`,
	`{"type":"message","id":"a2","parentId":"b1","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"edit","arguments":{"path":"x.go"}}]}}`,
	`{"type":"message","id":"r2","parentId":"a2","message":{"role":"toolResult","toolCallId":"t","toolName":"edit","content":[{"type":"text","text":"edited"}]}}`,
	`{"type":"message","id":"u3","parentId":"a1","message":{"role":"user","content":"plan C"}}`,
}

func TestFindBranch(t *testing.T) {
	all := records(t, branchTree...)
	b, err := FindBranch(all, "r2", "u3")
	if err != nil {
		t.Fatal(err)
	}
	// The target is a user message: the leaf moves to its parent.
	if b.NewLeaf != "a1" || b.Ancestor != "a1" {
		t.Fatalf("NewLeaf %q Ancestor %q, want a1 a1", b.NewLeaf, b.Ancestor)
	}
	var ids []string
	for _, e := range b.Entries {
		ids = append(ids, e.ID)
	}
	if got := strings.Join(ids, " "); got != "u2 b1 a2 r2" {
		t.Fatalf("entries %q", got)
	}
	msgs, files := BranchMessages(b.Entries, 100000)
	if len(msgs) != 3 { // u2, the branch summary, a2; the tool result is left out
		t.Fatalf("%d messages: %s", len(msgs), msgs)
	}
	if !strings.Contains(string(msgs[1]), `"branchSummary"`) {
		t.Fatalf("second message %s", msgs[1])
	}
	read, mod := files.Lists()
	if strings.Join(read, ",") != "old.go" || strings.Join(mod, ",") != "x.go" {
		t.Fatalf("read %v modified %v", read, mod)
	}
	// A failed attempt agent-chat retried is left out, as BuildContext
	// leaves it out.
	retried := append(b.Entries[:len(b.Entries):len(b.Entries)], records(t,
		`{"type":"message","id":"e2","parentId":"r2","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"overloaded","retried":true}}`)...)
	if msgs, _ := BranchMessages(retried, 100000); len(msgs) != 3 {
		t.Fatalf("with a retried attempt: %d messages: %s", len(msgs), msgs)
	}
	// A tight budget keeps the newest messages only.
	if msgs, _ := BranchMessages(b.Entries, 1); len(msgs) != 0 {
		t.Fatalf("budget 1: %d messages", len(msgs))
	}

	// To the root; and to a non-user target, which becomes the leaf.
	if b, _ := FindBranch(all, "r2", "root"); b.NewLeaf != "" || len(b.Entries) != 6 {
		t.Fatalf("root: leaf %q, %d entries", b.NewLeaf, len(b.Entries))
	}
	if b, _ := FindBranch(all, "u3", "a2"); b.NewLeaf != "a2" || len(b.Entries) != 1 || b.Entries[0].ID != "u3" {
		t.Fatalf("to a2: leaf %q, %d entries", b.NewLeaf, len(b.Entries))
	}
	if _, err := FindBranch(all, "zz", "u3"); err == nil || !strings.Contains(err.Error(), "--all") {
		t.Fatalf("missing entry: %v", err)
	}
}

func TestBranchPrompt(t *testing.T) {
	p := BranchPrompt("[User]: hi", "")
	if !strings.HasPrefix(p, "<conversation>\n[User]: hi\n</conversation>\n\n") || !strings.Contains(p, "## Key Decisions") {
		t.Fatal(p)
	}
	if p := BranchPrompt("x", "only the API"); !strings.HasSuffix(p, "\n\nonly the API") || strings.Contains(p, "## Goal") {
		t.Fatal(p)
	}
}

// FuzzFindBranch: any parent links (cycles, dangling parents, duplicate
// ids) give a branch without a panic, never containing the ancestor.
func FuzzFindBranch(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 4}, uint8(4), uint8(3))
	f.Add([]byte{1, 0, 0}, uint8(0), uint8(2))
	f.Fuzz(func(t *testing.T, parents []byte, from, to uint8) {
		if len(parents) == 0 || len(parents) > 64 {
			return
		}
		var lines []string
		for i, p := range parents {
			parent := "null"
			if int(p) != i && int(p)%len(parents) != i {
				parent = fmt.Sprintf("%q", fmt.Sprintf("e%d", int(p)%(len(parents)+2)))
			}
			lines = append(lines, fmt.Sprintf(`{"type":"message","id":"e%d","parentId":%s,"message":{"role":"user","content":"x"}}`, i, parent))
		}
		all := records(t, lines...)
		fromID := fmt.Sprintf("e%d", int(from)%len(parents))
		toID := fmt.Sprintf("e%d", int(to)%len(parents))
		b, err := FindBranch(all, fromID, toID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range b.Entries {
			if b.Ancestor != "" && e.ID == b.Ancestor {
				t.Fatalf("ancestor %s in the branch", e.ID)
			}
		}
		BranchMessages(b.Entries, 10)
	})
}

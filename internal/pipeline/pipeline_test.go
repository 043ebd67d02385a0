package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChatArgv: every flag the front-end forwards to agent-chat, in one
// place.
func TestChatArgv(t *testing.T) {
	s := &Stages{Tools: []string{"agent-tool serve"}, ChatArgs: []string{"--max-tokens", "10"}}
	for _, c := range []struct {
		name string
		o    Opts
		want []string
	}{
		{"a prompt", Opts{Prompt: "hi"}, []string{"--tools-cmd", "agent-tool serve", "--max-tokens", "10", "--message", "hi"}},
		{"model, thinking, sandbox", Opts{Prompt: "hi", Model: "p/m", Thinking: "high", Sandbox: "read-only"},
			[]string{"--model", "p/m", "--thinking", "high", "--sandbox", "read-only", "--tools-cmd", "agent-tool serve", "--max-tokens", "10", "--message", "hi"}},
		{"files", Opts{Prompt: "see", Files: []string{"a.go"}}, []string{"--tools-cmd", "agent-tool serve", "--max-tokens", "10", "--message", "see", "--", "@a.go"}},
		{"continue", Opts{Continue: true, Extra: []string{"--x"}}, []string{"--tools-cmd", "agent-tool serve", "--x", "--max-tokens", "10", "--continue"}},
		{"ahead: the prompt on stdin", Opts{Ahead: true, Model: "p/m"}, []string{"--model", "p/m", "--tools-cmd", "agent-tool serve", "--max-tokens", "10", "--", "-"}},
	} {
		if d := cmp.Diff(c.want, s.ChatArgv(c.o)); d != "" {
			t.Errorf("%s: (-want +got)\n%s", c.name, d)
		}
	}
}

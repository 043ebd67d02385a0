package subagent

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/prompt"
)

func TestAgentArgs(t *testing.T) {
	r := &Runner{Agents: []prompt.Agent{
		{Name: "explore", Description: "d", Tools: []string{"read", "grep"}, Model: "haiku", Prompt: "You explore."},
		{Name: "plain", Description: "d"},
	}}
	parent := []string{"read", "ls", "task"}
	for _, tc := range []struct {
		name   string
		args   Args
		parent []string // the parent's --tools
		want   []string
		err    string
	}{
		{"no agent", Args{Prompt: "p"}, nil, nil, ""},
		{"tools only", Args{Tools: []string{"read", "bash"}}, nil, []string{"--tools", "read,bash"}, ""},
		{"agent", Args{Agent: "explore"}, nil, []string{"--system-prompt", "You explore.", "--model", "haiku", "--tools", "read,grep"}, ""},
		{"the call's tools win", Args{Agent: "explore", Tools: []string{"ls"}}, nil, []string{"--system-prompt", "You explore.", "--model", "haiku", "--tools", "ls"}, ""},
		{"an agent without a body, model or tools", Args{Agent: "plain"}, nil, nil, ""},
		{"unknown", Args{Agent: "nope"}, nil, nil, `no agent "nope" (agents: explore, plain)`},
		{"the parent's tools by default", Args{}, parent, []string{"--tools", "read,ls,task"}, ""},
		{"within the parent's", Args{Tools: []string{"ls"}}, parent, []string{"--tools", "ls"}, ""},
		{"wider than the parent's", Args{Agent: "explore"}, parent, nil, `tool "grep" is not one of this agent's (read, ls, task)`},
	} {
		r.Tools = tc.parent
		got, _, err := r.agentArgs(tc.args)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if d := cmp.Diff(tc.want, got); err != nil || d != "" {
			t.Errorf("%s: %v (-want +got):\n%s", tc.name, err, d)
		}
	}
}

func TestResult(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       *progress
		stderr  string
		text    string
		isError bool
	}{
		{"answer", &progress{last: "Found it."}, "", "Found it.", false},
		{"aborted", &progress{last: "half", d: details{Stopped: "aborted", ExitCode: 130}}, "", "Sub-agent aborted. Its last message:\n\nhalf", true},
		{"budget", &progress{d: details{Stopped: "cost"}}, "", "Sub-agent stopped: over its cost budget.", true},
		{"failed with an error record", &progress{errText: "401 unauthorized", d: details{ExitCode: 1}}, "noise", "Sub-agent failed (exit status 1): 401 unauthorized", true},
		{"crashed", &progress{d: details{ExitCode: 130}}, "agent-chat: killed", "Sub-agent failed (exit status 130): agent-chat: killed", true},
	} {
		r := result(tc.p, tc.stderr)
		if r.Text != tc.text || r.IsError != tc.isError {
			t.Errorf("%s: %q %v, want %q %v", tc.name, r.Text, r.IsError, tc.text, tc.isError)
		}
	}
}

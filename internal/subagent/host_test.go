package subagent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHost(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Host
		err  bool
	}{
		{"box", Host{Dest: "box"}, false},
		{"me@build.example.com:/srv/src", Host{Dest: "me@build.example.com", Dir: "/srv/src"}, false},
		{"box:rel", Host{}, true},
		{"-oProxyCommand=x", Host{}, true},
		{"box;rm -rf", Host{}, true},
		{"", Host{}, true},
	} {
		got, err := ParseHost(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseHost(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

// The allow-list: a call names a host by its destination or its whole
// entry; a host without a directory works in the parent's.
func TestHostAllowed(t *testing.T) {
	r := &Runner{Dir: "/here", Hosts: []Host{{Dest: "box"}, {Dest: "me@build", Dir: "/srv"}}}
	for _, tc := range []struct {
		name string
		want Host
		err  string
	}{
		{"box", Host{Dest: "box", Dir: "/here"}, ""},
		{"me@build", Host{Dest: "me@build", Dir: "/srv"}, ""},
		{"me@build:/srv", Host{Dest: "me@build", Dir: "/srv"}, ""},
		{"me@build:/etc", Host{}, `host "me@build:/etc" is not allowed (hosts: box, me@build)`},
		{"evil", Host{}, `host "evil" is not allowed (hosts: box, me@build)`},
	} {
		got, err := r.host(tc.name)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v", tc.name, got, err)
		}
	}
}

// A remote's flags: --api-key goes to stdin, --task-host goes, the depth
// is 0; its variables are the keys, agentutils' own and NO_COLOR.
func TestRemote(t *testing.T) {
	r := &Runner{Session: []string{"/opt/bin/agent-session"}, KeyVars: []string{"FAKE_KEY"},
		Env: []string{"PATH=/bin", "HOME=/root", "FAKE_KEY=sk-1", "AGENT_MODEL=x", "AGENTUTILS_HOME=/h", "NO_COLOR=1", "SECRET_TOKEN=t"}}
	m, args := r.remote(Host{Dest: "box", Dir: "/srv"}, []string{"--model", "m", "--api-key", "sk-2", "--task-host", "box", "--max-task-depth", "1", "--tools", "read"},
		[]string{"AGENT_SUBAGENT_TYPE=general-purpose"})
	if d := cmp.Diff([]string{"--model", "m", "--max-task-depth", "0", "--tools", "read"}, args); d != "" {
		t.Errorf("command line flags (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"--api-key", "sk-2"}, m.Args); d != "" {
		t.Errorf("stdin flags (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"FAKE_KEY=sk-1", "AGENT_MODEL=x", "AGENTUTILS_HOME=/h", "NO_COLOR=1", "AGENT_SUBAGENT_TYPE=general-purpose"}, m.Env); d != "" {
		t.Errorf("variables (-want +got):\n%s", d)
	}
	if m.Dest != "box" || m.Dir != "/srv" || m.Runner != "/opt/bin/agent-session" || len(m.SSH) != 1 || m.SSH[0] != "ssh" {
		t.Errorf("remote: %+v", m)
	}
}

package subagent

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/internal/pipeline"
)

// Host is a machine a person allowed sub-agents to run on (task.hosts,
// agent-chat --task-host): an ssh destination (user@host, or a Host of
// ~/.ssh/config) and the working directory there ("": this one's path).
type Host struct {
	Dest, Dir string
}

// ParseHost reads a task.hosts entry: DEST or DEST:DIR, DIR absolute.
func ParseHost(s string) (Host, error) {
	dest, dir, _ := strings.Cut(s, ":")
	switch {
	case dest == "" || strings.HasPrefix(dest, "-") || strings.ContainsAny(dest, " \t\n'\"\\$`;|&<>()"):
		return Host{}, fmt.Errorf("task host %q: want an ssh destination (user@host or a name of ~/.ssh/config), optionally :DIR", s)
	case dir != "" && !filepath.IsAbs(dir):
		return Host{}, fmt.Errorf("task host %q: the directory must be absolute", s)
	}
	return Host{Dest: dest, Dir: dir}, nil
}

// ParseHosts reads every entry.
func ParseHosts(list []string) ([]Host, error) {
	var hs []Host
	for _, s := range list {
		h, err := ParseHost(s)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, nil
}

// host is the allowed host a call names (by its destination or its whole
// entry), or an error listing those allowed.
func (r *Runner) host(name string) (Host, error) {
	var names []string
	for _, h := range r.Hosts {
		if name == h.Dest || (h.Dir != "" && name == h.Dest+":"+h.Dir) {
			if h.Dir == "" {
				h.Dir = r.Dir
			}
			return h, nil
		}
		names = append(names, h.Dest)
	}
	if len(names) == 0 {
		return Host{}, fmt.Errorf("host %q is not allowed: no host is (a person allows one with task.hosts in config.toml or agent-chat --task-host)", name)
	}
	return Host{}, fmt.Errorf("host %q is not allowed (hosts: %s)", name, strings.Join(names, ", "))
}

// remoteVars are the variables a remote sub-agent's agent-chat gets from
// this one's environment (on ssh's stdin): the provider keys, agentutils'
// own (AGENT_*, AGENTUTILS_HOME, as agent-batch exports to its hosts) and
// NO_COLOR. Its other variables are the remote login's.
func (r *Runner) remoteVars(extra ...string) []string {
	var out []string
	for _, kv := range r.Env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENT_") || k == "AGENTUTILS_HOME" || k == "NO_COLOR" || r.isKeyVar(k) {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

func (r *Runner) isKeyVar(k string) bool {
	for _, v := range r.KeyVars {
		if v == k {
			return true
		}
	}
	return false
}

// remote is the pipeline's Remote for a host, and the agent-chat flags
// left for its command line: --api-key moves to stdin, --task-host goes
// (a remote sub-agent's hosts are its host's own to allow), and
// --max-task-depth is 0: a remote sub-agent has no task tool, since its
// own sub-agents' files would stay on its host, not beside its parent's.
func (r *Runner) remote(h Host, args, vars []string) (*pipeline.Remote, []string) {
	m := &pipeline.Remote{SSH: r.SSH, Dest: h.Dest, Dir: h.Dir, Runner: r.Session[0], Env: r.remoteVars(vars...)}
	var keep []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--api-key" && i+1 < len(args):
			m.Args = append(m.Args, args[i], args[i+1])
			i++
		case args[i] == "--task-host" && i+1 < len(args):
			i++
		case args[i] == "--max-task-depth" && i+1 < len(args):
			keep = append(keep, args[i], "0")
			i++
		default:
			keep = append(keep, args[i])
		}
	}
	if len(m.SSH) == 0 {
		m.SSH = []string{"ssh"}
	}
	return m, keep
}

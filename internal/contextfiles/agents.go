package contextfiles

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/lib/prompt"
)

// Agents finds the sub-agent definitions (lib/prompt.Agent): agents/*.md
// of .agentutils and .claude in the project's directories (the nearest
// first, up to the git root), then of the user's ($XDG_CONFIG_HOME/
// agentutils, ~/.claude). The first definition of a name wins; files that
// cannot be read as one are warnings.
func Agents(opt Options) (agents []prompt.Agent, warnings []string) {
	f := Found{}
	d := &discovery{opt: opt, found: &f, seen: map[string]bool{}}
	var roots []string
	for _, p := range reverse(projectDirs(opt.Cwd, GitRoot(opt.Cwd))) {
		roots = append(roots, filepath.Join(p, ".agentutils"), filepath.Join(p, ".claude"))
	}
	roots = append(roots, userDirs(opt)...)
	seen := map[string]bool{}
	for _, r := range roots {
		dir := filepath.Join(r, "agents")
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents { // sorted by name
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			doc, ok := d.read(p)
			if !ok {
				continue
			}
			a, err := prompt.NewAgent(strings.TrimSuffix(e.Name(), ".md"), p, doc)
			if err != nil {
				d.fmErr(p, err)
				continue
			}
			if !seen[a.Name] {
				seen[a.Name] = true
				agents = append(agents, a)
			}
		}
	}
	return agents, f.Warnings
}

// Package codemap builds the README's map of the code from the imports
// `go list` reports, so the map cannot drift from the code.
package codemap

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"sort"
	"strings"
)

const module = "github.com/agentutils/agentutils/"

// Build lists, one line per command under dir/cmd, the module's lib/ and
// internal/ packages the command imports directly, and then the packages
// those import in turn, each with the first sentence of its doc comment.
func Build(dir string) (string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}\t{{.Doc}}", "./cmd/...", "./lib/...", "./internal/...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list: %v", err)
	}
	imports, docs := map[string][]string{}, map[string]string{}
	var cmds, pkgs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) < 3 {
			continue
		}
		p := strings.TrimPrefix(f[0], module)
		for _, imp := range strings.Fields(f[1]) {
			if strings.HasPrefix(imp, module) {
				imports[p] = append(imports[p], strings.TrimPrefix(imp, module))
			}
		}
		docs[p] = f[2]
		if strings.HasPrefix(p, "cmd/") {
			cmds = append(cmds, p)
		} else {
			pkgs = append(pkgs, p)
		}
	}
	sort.Strings(cmds)
	sort.Strings(pkgs)
	var b strings.Builder
	b.WriteString("Each command and the packages of this module it imports (`go run ./scripts/codemap`\nwrites this list; a test keeps it equal to the imports):\n\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "- `%s` → %s\n", strings.TrimPrefix(c, "cmd/"), list(imports[c]))
	}
	b.WriteString("\nThe packages, and what they import of this module:\n\n")
	for _, p := range pkgs {
		line := fmt.Sprintf("- `%s`", p)
		if d := strings.TrimSuffix(docs[p], "."); d != "" {
			line += ": " + d
		}
		if len(imports[p]) > 0 {
			line += " → " + list(imports[p])
		}
		b.WriteString(line + "\n")
	}
	return b.String(), nil
}

func list(ps []string) string {
	if len(ps) == 0 {
		return "(none)"
	}
	sort.Strings(ps)
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = "`" + p + "`"
	}
	return strings.Join(q, ", ")
}

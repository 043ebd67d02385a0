package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// argsFor is an arguments object for a tool's input schema with every
// required property filled: an enum's first value, else the default, else
// a value of the type.
func argsFor(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type    any               `json:"type"`
			Enum    []json.RawMessage `json:"enum"`
			Default json.RawMessage   `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &s)
	args := map[string]json.RawMessage{}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case p.Default != nil:
			args[name] = p.Default
		case p.Type == "number" || p.Type == "integer":
			args[name] = json.RawMessage(`1`)
		case p.Type == "boolean":
			args[name] = json.RawMessage(`false`)
		case p.Type == "array":
			args[name] = json.RawMessage(`[]`)
		case p.Type == "object":
			args[name] = json.RawMessage(`{}`)
		default:
			args[name] = json.RawMessage(`"x"`)
		}
	}
	b, _ := json.Marshal(args)
	return string(b)
}

// overrides are the arguments of the tools whose defaults need the network
// or take long.
var overrides = map[string]string{
	"gzip-file-as-resource":          `{"data":"data:text/plain;base64,aGVsbG8gd29ybGQ=","name":"hello.gz"}`,
	"trigger-long-running-operation": `{"duration":1,"steps":2}`,
}

// callResult is the part of agent-mcp call's output the checks read.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// contentSummary counts a result's content parts by type: "image×1,text×2".
func contentSummary(r callResult) string {
	n := map[string]int{}
	for _, c := range r.Content {
		n[c.Type]++
	}
	var parts []string
	for t, k := range n {
		parts = append(parts, fmt.Sprintf("%s×%d", t, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// promptArg is one argument in a prompt's definition.
type promptArg struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

// promptArgs are NAME=VALUE for a prompt's required arguments, with the
// values server-everything's prompts accept.
func promptArgs(args []promptArg) []string {
	values := map[string]string{"department": "Engineering", "resourceType": "Text", "resourceId": "1"}
	var kv []string
	for _, a := range args {
		if !a.Required {
			continue
		}
		v, ok := values[a.Name]
		if !ok {
			v = "x"
		}
		kv = append(kv, a.Name+"="+v)
	}
	return kv
}

// subcommands are the names in the COMMANDS section of a --help text
// (the first name of each line, "help" left out).
func subcommands(help string) []string {
	var subs []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		switch {
		case l == "COMMANDS:":
			in = true
		case in && strings.TrimSpace(l) == "":
			return subs
		case in:
			f := strings.Fields(l)
			if name := strings.TrimSuffix(f[0], ","); name != "help" {
				subs = append(subs, name)
			}
		}
	}
	return subs
}

var exampleRE = regexp.MustCompile(`^ *(agent-mcp .*(everything|demo://).*)$`)

// examples are the example lines of a --help text that use the server
// named everything or a demo:// resource, without their comments.
func examples(help string) []string {
	var ex []string
	for _, l := range strings.Split(help, "\n") {
		if m := exampleRE.FindStringSubmatch(l); m != nil {
			line := m[1]
			if i := strings.Index(line, "#"); i >= 0 {
				line = strings.TrimRight(line[:i], " ")
			}
			ex = append(ex, line)
		}
	}
	return ex
}

var (
	totalRE  = regexp.MustCompile(`(?m)^Total: (.*)$`)
	failedRE = regexp.MustCompile(`(?m)^✗ ([^:]*):`)
	passedRE = regexp.MustCompile(`(?m)^✓ ([^:]*):`)
)

// conformance reads a run of the conformance suite against the baseline
// (scripts/testdata/mcp-conformance-baseline.yml: under a "SECTION:" line,
// one "  - NAME  # why" line per known failure): its last "Total: " line
// (total, "" when there is none), the failed scenarios the section does
// not list (unknown: regressions) and the listed ones that passed (fixed:
// to take off the baseline).
func conformance(log, baseline, section string) (total string, unknown, fixed []string) {
	if m := totalRE.FindAllStringSubmatch(log, -1); m != nil {
		total = m[len(m)-1][1]
	}
	known := map[string]bool{}
	cur := ""
	for _, l := range strings.Split(baseline, "\n") {
		if name, ok := strings.CutPrefix(l, "  - "); ok {
			if cur == section {
				name, _, _ = strings.Cut(name, "#")
				known[strings.TrimSpace(name)] = true
			}
		} else if h, ok := strings.CutSuffix(l, ":"); ok && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "#") {
			cur = h
		}
	}
	for _, m := range failedRE.FindAllStringSubmatch(log, -1) {
		if !known[m[1]] {
			unknown = append(unknown, m[1])
		}
	}
	for _, m := range passedRE.FindAllStringSubmatch(log, -1) {
		if known[m[1]] {
			fixed = append(fixed, m[1])
		}
	}
	return total, unknown, fixed
}

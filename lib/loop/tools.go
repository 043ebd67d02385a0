package loop

import (
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
)

// Source is one tool co-process and the tools it offered (its "tools"
// message). Name identifies it in errors: the --tools-cmd text.
type Source struct {
	Name  string
	Tools []event.ToolDef
}

// Tool is a merged tool: its definition and the index of its source.
type Tool struct {
	event.ToolDef
	Source int
}

// Toolset is the merged tool list of every co-process, in source order and
// then in each source's order (the order the model sees).
type Toolset struct {
	sources []Source
	tools   []Tool
	index   map[string]int
}

// Merge joins the tool lists of sources. A name offered twice, by two
// sources or by one, is an error that names both offers.
func Merge(sources []Source) (*Toolset, error) {
	ts := &Toolset{sources: append([]Source(nil), sources...), index: map[string]int{}}
	for si, s := range sources {
		for _, d := range s.Tools {
			if d.Name == "" {
				return nil, fmt.Errorf("tool source %q: a tool without a name", s.Name)
			}
			if j, dup := ts.index[d.Name]; dup {
				other := sources[ts.tools[j].Source].Name
				if other == s.Name {
					return nil, fmt.Errorf("tool %q is offered twice by %q", d.Name, s.Name)
				}
				return nil, fmt.Errorf("tool %q is offered by both %q and %q", d.Name, other, s.Name)
			}
			if d.Concurrency == "" {
				d.Concurrency = event.Shared
			}
			ts.index[d.Name] = len(ts.tools)
			ts.tools = append(ts.tools, Tool{ToolDef: d, Source: si})
		}
	}
	return ts, nil
}

// Lookup finds a tool by its exact name.
func (ts *Toolset) Lookup(name string) (Tool, bool) {
	if ts == nil {
		return Tool{}, false
	}
	i, ok := ts.index[name]
	if !ok {
		return Tool{}, false
	}
	return ts.tools[i], true
}

// Tools lists the merged tools in order.
func (ts *Toolset) Tools() []Tool {
	if ts == nil {
		return nil
	}
	return append([]Tool(nil), ts.tools...)
}

// Defs lists the merged definitions in order, for the model request.
func (ts *Toolset) Defs() []event.ToolDef {
	if ts == nil {
		return nil
	}
	out := make([]event.ToolDef, len(ts.tools))
	for i, t := range ts.tools {
		out[i] = t.ToolDef
	}
	return out
}

package hooks

import (
	"encoding/json"
	"path/filepath"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/mcptool"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// claudeName is Claude Code's name of our tool (its first alias), else
// the name itself (mcp__server__tool is the same in both).
func claudeName(tool string) string {
	if t, ok := tooldef.Lookup(tool); ok && len(t.Aliases) > 0 {
		return t.Aliases[0]
	}
	return tool
}

// claudeInput is args with, beside our names, Claude Code's names of the
// tool's arguments (tooldef's ClaudeArgs; paths made absolute against cwd).
func claudeInput(tool string, args json.RawMessage, cwd string) json.RawMessage {
	t, _ := tooldef.Lookup(tool)
	var m map[string]any
	if len(t.ClaudeArgs) == 0 || json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	for ours, theirs := range t.ClaudeArgs {
		val, ok := m[ours]
		if !ok {
			continue
		}
		if p, isStr := val.(string); isStr && isPath(t, ours) && cwd != "" && !filepath.IsAbs(p) && p != "" && p[0] != '~' {
			val = filepath.Join(cwd, p)
		}
		m[theirs] = val
	}
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}

func isPath(t tooldef.Tool, arg string) bool {
	for _, p := range t.Paths {
		if p.Arg == arg {
			return true
		}
	}
	return false
}

// ourInput is a hook's updated input by our names: a Claude Code name
// whose value the hook changed (from what was sent) sets ours; Claude
// Code's names are then dropped, so the arguments fit our schema.
func ourInput(claudeTool string, sent, updated json.RawMessage) json.RawMessage {
	t, ok := tooldef.Resolve(claudeTool)
	var u, s map[string]any
	if !ok || len(t.ClaudeArgs) == 0 || json.Unmarshal(updated, &u) != nil || u == nil {
		return updated
	}
	json.Unmarshal(sent, &s)
	for ours, theirs := range t.ClaudeArgs {
		val, has := u[theirs]
		if !has {
			continue
		}
		if _, hasOurs := u[ours]; !hasOurs || !jsonEqual(val, s[theirs]) {
			u[ours] = val
		}
		delete(u, theirs)
	}
	b, err := json.Marshal(u)
	if err != nil {
		return updated
	}
	return b
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// toolResponse is PostToolUse's tool_response: the result (content,
// details, isError) with the fields Claude Code's scripts read: success,
// filePath for the file tools, stdout for bash.
func toolResponse(in Input, r *event.Result, details json.RawMessage) json.RawMessage {
	resp := map[string]any{"content": r.Content, "details": details, "isError": r.IsError, "success": !r.IsError}
	var args map[string]any
	json.Unmarshal(claudeInput(in.ToolName, in.ToolInput, in.Cwd), &args)
	if p, ok := args["file_path"].(string); ok {
		resp["filePath"] = p
	}
	if t, _ := tooldef.Lookup(in.ToolName); t.Script != "" {
		resp["stdout"] = mcptool.JoinText(r.Content)
	}
	b, _ := json.Marshal(resp)
	return b
}

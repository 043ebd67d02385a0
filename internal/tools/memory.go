package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/internal/contextfiles"
	"github.com/agentutils/agentutils/lib/event"
)

// memoryTool writes a line to the context file every later session
// reads: the project's AGENTS.md or CLAUDE.md (whichever is in use), or
// the user's. It is offered only when enabled (Env.Memory).
func memoryTool() Tool {
	return Tool{
		Def: def("memory", "Remember a fact, preference or convention for later sessions: it is added as a line to the project's AGENTS.md (or CLAUDE.md, whichever is in use), or with scope user to the user's own, which every session reads at its start. Keep it to one short line; do not store secrets or what the code already says.",
			`{"type":"object","properties":{"text":{"type":"string","description":"one line to remember"},"scope":{"type":"string","enum":["project","user"],"description":"project (default): the repository's file; user: the user's file for every project"}},"required":["text"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct{ Text, Scope string }
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			text := strings.Join(strings.Fields(a.Text), " ")
			if text == "" {
				return event.ToolOutput{}, fmt.Errorf("text must not be empty")
			}
			if a.Scope != "" && a.Scope != "project" && a.Scope != "user" {
				return event.ToolOutput{}, fmt.Errorf("scope %q: project or user", a.Scope)
			}
			file := contextfiles.MemoryFile(contextfiles.DefaultOptions(env.Cwd, env.Getenv), a.Scope == "user")
			if file == "" {
				return event.ToolOutput{}, fmt.Errorf("There is no user directory to keep it in (HOME is not set).")
			}
			if a.Scope != "user" {
				// The project's file is a path in the workspace: --root
				// confines it as it confines write's.
				if _, _, _, err := env.at(file); err != nil {
					return event.ToolOutput{}, err
				}
			}
			if err := contextfiles.Remember(file, text); err != nil {
				return event.ToolOutput{}, fmt.Errorf("Cannot remember it in %s: %v", env.rel(file), err)
			}
			return event.ToolOutput{Content: []event.Content{event.Text(fmt.Sprintf("Remembered in %s: - %s", env.rel(file), text))},
				Details: details(map[string]any{"file": file})}, nil
		},
	}
}

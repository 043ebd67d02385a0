package mcpbridge

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/lib/mcptool"
)

// ToolDef is an MCP tool as agent-chat sees it (one line of `agent-mcp
// tools`): agent-tool's tool shape plus x_mcp.
type ToolDef struct {
	Name         string          `json:"name"`
	Label        string          `json:"label,omitempty"`
	Description  string          `json:"description"`
	Parameters   json.RawMessage `json:"parameters"`
	Concurrency  string          `json:"concurrency"`
	NonAbortable bool            `json:"nonAbortable"`
	XMCP         XMCP            `json:"x_mcp"`
}

// XMCP is where a tool comes from.
type XMCP struct {
	Server       string `json:"server"`
	Tool         string `json:"tool"`
	Title        string `json:"title,omitempty"`
	Annotations  any    `json:"annotations,omitempty"`
	OutputSchema any    `json:"outputSchema,omitempty"`
	// Icons are the tool's icons as listed (never fetched).
	Icons    []mcp.Icon `json:"icons,omitempty"`
	Deferred bool       `json:"deferred"`
}

// AgentTool converts an MCP tool of server for agent-chat, named in the
// naming form (mcptool.Name); deferred marks tools served from the cache.
func AgentTool(naming string, server string, t *mcp.Tool, deferred bool) (ToolDef, error) {
	name, err := mcptool.Name(naming, server, t.Name)
	if err != nil {
		return ToolDef{}, err
	}
	schema, _ := json.Marshal(t.InputSchema)
	desc := t.Description
	if desc == "" {
		desc = "MCP tool from " + server
	}
	label := server + "/" + t.Name
	if t.Title != "" {
		label = t.Title
	}
	x := XMCP{Server: server, Tool: t.Name, Title: t.Title, OutputSchema: t.OutputSchema, Icons: t.Icons, Deferred: deferred}
	if t.Annotations != nil {
		x.Annotations = t.Annotations
	}
	return ToolDef{
		Name: name, Label: label, Description: desc, Parameters: mcptool.CleanSchema(schema),
		Concurrency: "shared",
		XMCP:        x,
	}, nil
}

// ProgressText is a progress notification in words: "2/4 step".
func ProgressText(p *mcp.ProgressNotificationParams) string {
	text := fmt.Sprintf("%g", p.Progress)
	if p.Total > 0 {
		text += fmt.Sprintf("/%g", p.Total)
	}
	if p.Message != "" {
		text += " " + p.Message
	}
	return text
}

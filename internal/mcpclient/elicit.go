package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URLRequired is the text of a URLElicitationRequired error (-32042): the
// URLs the server needs the person to open, each with its message, for the
// person and the model alike; ok is false for any other error.
func URLRequired(err error) (text string, ok bool) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeURLElicitationRequired {
		return "", false
	}
	var data struct {
		Elicitations []mcp.ElicitParams `json:"elicitations"`
	}
	_ = json.Unmarshal(je.Data, &data)
	var b strings.Builder
	if !strings.Contains(je.Message, "-32042") {
		b.WriteString("MCP error -32042: ")
	}
	b.WriteString(je.Message)
	for _, e := range data.Elicitations {
		if e.URL == "" {
			continue
		}
		fmt.Fprintf(&b, "\nOpen %s", e.URL)
		if m := strings.TrimSpace(e.Message); m != "" {
			fmt.Fprintf(&b, " (%s)", m)
		}
	}
	b.WriteString("\nThen call the tool again.")
	return b.String(), true
}

// URLText is how a URL elicitation is shown to a person.
func URLText(server string, p *mcp.ElicitParams) string {
	s := fmt.Sprintf("MCP server %q asks you to open %s", server, p.URL)
	if m := strings.TrimSpace(p.Message); m != "" {
		s += ": " + m
	}
	return s
}

// elicitation sets the client's elicitation handling: a caller's handler
// gets form and URL requests (both advertised); without one, URL requests
// are shown with Dialer.Warn and accepted (the person opens the URL), the
// only mode advertised. Completion notifications are shown too.
func (s *Session) elicitation(o *mcp.ClientOptions) {
	name := s.Entry.Name
	if o.Capabilities.Elicitation == nil {
		o.Capabilities.Elicitation = &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}
		if o.ElicitationHandler != nil {
			o.Capabilities.Elicitation.Form = &mcp.FormElicitationCapabilities{}
		}
	}
	if o.ElicitationHandler == nil {
		o.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "client does not support elicitation in form mode (agent-mcp has no person to ask)"}
			}
			s.d.Warn(URLText(name, req.Params))
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
	}
	if o.ElicitationCompleteHandler == nil {
		o.ElicitationCompleteHandler = func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			s.d.Warn(fmt.Sprintf("MCP server %q: the URL elicitation %s is complete", name, req.Params.ElicitationID))
		}
	}
}

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
)

// Sampling: a server's sampling/createMessage request is answered by the
// model named with --sampling-model (or AGENT_MCP_SAMPLING_MODEL), through
// lib/llm with agent-chat's catalog, models.toml and key variables. Without
// one, agent-mcp does not offer sampling and declines such requests with a
// message that says how to enable it.

// samplingFlags are the flags of the commands that may be asked to sample.
func samplingFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "sampling-model", Usage: "answer servers' sampling requests (sampling/createMessage) with this model, `provider/id` as in agent-chat (default: $AGENT_MCP_SAMPLING_MODEL; none: decline them)"},
		&cli.StringFlag{Name: "models-file", Usage: "models.toml `FILE` for --sampling-model (default: $XDG_CONFIG_HOME/agentutils/models.toml)"},
		&cli.StringFlag{Name: "record", Usage: "record the sampling model's exchanges to a cassette `FILE` (formats/cassette)"},
		&cli.StringFlag{Name: "replay", Usage: "answer sampling requests from a cassette `FILE` instead of the network"},
	}
}

// sampler answers sampling requests with one model.
type sampler struct {
	client *provider.Client
	model  llm.Model
	opts   llm.Options
	warn   func(string)
	now    func() int64
	close  func()
	// ordered makes calls one at a time while a cassette is in use
	// (--record, --replay), so the cassette's order is the calls' order;
	// without one, a server's concurrent requests run concurrently.
	ordered sync.Mutex
}

// newSampler builds the sampler of the flags; nil when no model is named.
func newSampler(c *cli.Context, env *cmdEnv) (*sampler, error) {
	pattern := c.String("sampling-model")
	if pattern == "" {
		pattern = env.Getenv("AGENT_MCP_SAMPLING_MODEL")
	}
	if pattern == "" {
		if c.String("record") != "" || c.String("replay") != "" {
			return nil, exit.Errorf(exit.Usage, "--record and --replay are for sampling: they need --sampling-model")
		}
		return nil, nil
	}
	cat, err := provider.LoadCatalog(env.Abs(c.String("models-file")), env.Getenv)
	if err != nil {
		return nil, err
	}
	model, thinking, err := cat.Resolve(pattern)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "--sampling-model: %v", err)
	}
	s := &sampler{model: model, opts: llm.Options{Thinking: thinking}, close: func() {},
		warn: func(m string) { app.Warnf(c, "%s", m) }, now: func() int64 { return env.Now().UnixMilli() }}
	s.client = &provider.Client{HTTP: http.DefaultClient, Now: env.Now, Warn: s.warn}
	if c.String("replay") == "" {
		k, err := cat.ResolveKey(model, "", env.Getenv)
		if err != nil {
			return nil, exit.Errorf(exit.Usage, "--sampling-model: %v", err)
		}
		if k.Command != "" || k.Login != "" {
			return nil, exit.Errorf(exit.Usage, "--sampling-model: %s: key commands and logins are only supported by agent-chat", k.Source)
		}
		s.opts.APIKey = k.Value
		s.client.Secrets = []string{k.Value}
	}
	if s.close, err = s.client.UseCassettes(c.String("record"), c.String("replay"), env.Abs); err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return s, nil
}

// handler answers one server's sampling requests, tools included: the
// request's tools reach the model (toolChoice auto, required or none), its
// tool_use and tool_result blocks become the model's tool calls and
// results, and the model's tool calls come back as tool_use blocks
// (stopReason toolUse).
func (s *sampler) handler(server string) func(context.Context, *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	return func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
		p := req.Params
		lc, err := s.samplingContext(p)
		if err != nil {
			return nil, err
		}
		opts := s.opts
		if p.MaxTokens > 0 {
			opts.MaxTokens = int(p.MaxTokens)
			if s.model.MaxTokens > 0 && opts.MaxTokens > s.model.MaxTokens {
				opts.MaxTokens = s.model.MaxTokens
			}
		}
		if p.Temperature != 0 {
			t := p.Temperature
			opts.Temperature = &t
		}
		if p.ToolChoice != nil && len(lc.Tools) > 0 {
			opts.ToolChoice = map[string]string{"auto": "auto", "required": "any", "none": "none"}[p.ToolChoice.Mode]
		}
		final, err := s.stream(ctx, lc, opts)
		if err != nil {
			return nil, fmt.Errorf("sampling with %s: %v", s.model.Ref(), err)
		}
		if final.StopReason == llm.StopError || final.StopReason == llm.StopAborted {
			return nil, fmt.Errorf("sampling with %s failed: %s", s.model.Ref(), final.ErrorMessage)
		}
		tokens := 0
		if final.Usage != nil {
			tokens = final.Usage.TotalTokens
		}
		s.warn(fmt.Sprintf("%s: answered a sampling request with %s (%d tokens)", server, s.model.Ref(), tokens))
		stop := map[string]string{llm.StopStop: "endTurn", llm.StopLength: "maxTokens", llm.StopToolUse: "toolUse"}[final.StopReason]
		content := []mcp.Content{}
		if t := final.Text(); t != "" || len(final.ToolCalls()) == 0 {
			content = append(content, &mcp.TextContent{Text: t})
		}
		for _, c := range final.ToolCalls() {
			var input map[string]any
			_ = json.Unmarshal(c.Arguments, &input)
			content = append(content, &mcp.ToolUseContent{ID: c.ID, Name: c.Name, Input: input})
			stop = "toolUse"
		}
		return &mcp.CreateMessageWithToolsResult{Content: content, Model: s.model.ID, Role: "assistant", StopReason: stop}, nil
	}
}

// samplingContext is a sampling request as the model's context: its
// messages (a user message of tool_result blocks becomes tool results)
// and its tools.
func (s *sampler) samplingContext(p *mcp.CreateMessageWithToolsParams) (llm.Context, error) {
	lc := llm.Context{SystemPrompt: p.SystemPrompt}
	names := map[string]string{} // tool_use id -> tool name
	for i, m := range p.Messages {
		if m == nil {
			continue
		}
		msgs, err := s.samplingMessage(m, names)
		if err != nil {
			return lc, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("sampling: message %d: %v", i, err)}
		}
		lc.Messages = append(lc.Messages, msgs...)
	}
	if len(lc.Messages) == 0 {
		return lc, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling: no messages"}
	}
	for _, t := range p.Tools {
		if t == nil {
			continue
		}
		params, err := json.Marshal(t.InputSchema)
		if err != nil || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		lc.Tools = append(lc.Tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: params})
	}
	return lc, nil
}

// samplingMessage is one sampling message as the model's messages: the
// message itself, or the tool results it carries.
func (s *sampler) samplingMessage(m *mcp.SamplingMessageV2, names map[string]string) ([]llm.Message, error) {
	role := string(m.Role)
	if role != "user" && role != "assistant" {
		return nil, fmt.Errorf("role %q is neither user nor assistant", role)
	}
	var out []llm.Message
	msg := llm.Message{Role: role, Timestamp: s.now()}
	for _, c := range m.Content {
		if b, ok := mediaBlock(c); ok {
			msg.Content = append(msg.Content, b)
			continue
		}
		switch c := c.(type) {
		case *mcp.ToolUseContent:
			if role != "assistant" {
				return nil, fmt.Errorf("tool_use in a %s message", role)
			}
			args, _ := json.Marshal(c.Input)
			names[c.ID] = c.Name
			msg.Content = append(msg.Content, llm.ToolCallBlock(c.ID, c.Name, args))
		case *mcp.ToolResultContent:
			if role != "user" {
				return nil, fmt.Errorf("tool_result in a %s message", role)
			}
			r := llm.Message{Role: "toolResult", ToolCallID: c.ToolUseID, ToolName: names[c.ToolUseID], IsError: c.IsError, Timestamp: s.now()}
			for _, rc := range c.Content {
				if b, ok := mediaBlock(rc); ok {
					r.Content = append(r.Content, b)
				}
			}
			if len(r.Content) == 0 && c.StructuredContent != nil {
				b, _ := json.Marshal(c.StructuredContent)
				r.Content = append(r.Content, llm.TextBlock(string(b)))
			}
			out = append(out, r)
		default:
			return nil, fmt.Errorf("unsupported content %T", c)
		}
	}
	if len(msg.Content) == 0 {
		return out, nil // only tool results
	}
	if role == "assistant" {
		msg.API, msg.Provider, msg.Model, msg.StopReason = s.model.API, s.model.Provider, s.model.ID, llm.StopStop
		if len(msg.ToolCalls()) > 0 {
			msg.StopReason = llm.StopToolUse
		}
	}
	return append(out, msg), nil
}

// mediaBlock is a text, image or audio block as the model's content.
func mediaBlock(c mcp.Content) (llm.Content, bool) {
	switch c := c.(type) {
	case *mcp.TextContent:
		return llm.TextBlock(c.Text), true
	case *mcp.ImageContent:
		return llm.ImageBlock(base64.StdEncoding.EncodeToString(c.Data), c.MIMEType), true
	case *mcp.AudioContent:
		return llm.TextBlock("[Audio: " + c.MIMEType + "]"), true
	}
	return llm.Content{}, false
}

// stream runs one model call, in order with the others when a cassette
// records or replays them.
func (s *sampler) stream(ctx context.Context, lc llm.Context, opts llm.Options) (llm.Message, error) {
	if s.client.Record != nil || s.client.Replay != nil {
		s.ordered.Lock()
		defer s.ordered.Unlock()
	}
	return s.client.Stream(ctx, s.model, lc, opts, func(llm.Event) {})
}

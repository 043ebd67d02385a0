package main

import (
	"context"
	"encoding/base64"
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
		if k.Command != "" {
			return nil, exit.Errorf(exit.Usage, "--sampling-model: %s: key commands are only supported by agent-chat", k.Source)
		}
		s.opts.APIKey = k.Value
		s.client.Secrets = []string{k.Value}
	}
	if s.close, err = s.client.UseCassettes(c.String("record"), c.String("replay"), env.Abs); err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return s, nil
}

// handler answers one server's sampling requests.
func (s *sampler) handler(server string) func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		p := req.Params
		lc := llm.Context{SystemPrompt: p.SystemPrompt}
		for i, m := range p.Messages {
			if m == nil {
				continue
			}
			role := string(m.Role)
			if role != "user" && role != "assistant" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("sampling: message %d: role %q is neither user nor assistant", i, role)}
			}
			msg := llm.Message{Role: role, Timestamp: s.now()}
			switch c := m.Content.(type) {
			case *mcp.TextContent:
				msg.Content = []llm.Content{llm.TextBlock(c.Text)}
			case *mcp.ImageContent:
				msg.Content = []llm.Content{llm.ImageBlock(base64.StdEncoding.EncodeToString(c.Data), c.MIMEType)}
			case *mcp.AudioContent:
				msg.Content = []llm.Content{llm.TextBlock("[Audio: " + c.MIMEType + "]")}
			default:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("sampling: message %d: unsupported content %T", i, m.Content)}
			}
			if role == "assistant" {
				msg.API, msg.Provider, msg.Model, msg.StopReason = s.model.API, s.model.Provider, s.model.ID, llm.StopStop
			}
			lc.Messages = append(lc.Messages, msg)
		}
		if len(lc.Messages) == 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling: no messages"}
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
		return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: final.Text()}, Model: s.model.ID, Role: "assistant", StopReason: stop}, nil
	}
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

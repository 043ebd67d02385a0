package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcptool"
)

func resourcesCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "resources",
		Usage:     "list the resources (or resource templates) of a server",
		ArgsUsage: "SERVER",
		Description: "Prints one MCP resource (or, with --templates, resource template) per line as JSON.\n\n" +
			"Examples:\n\n    agent-mcp resources everything | jq -r .uri\n    agent-mcp resources --templates everything",
		Flags: commonFlags(&cli.BoolFlag{Name: "templates", Usage: "list resource templates instead"}),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exit.Errorf(exit.Usage, "resources: want one SERVER")
			}
			r, err := newRunner(c, env)
			if err != nil {
				return err
			}
			e, err := r.server(c.Args().First())
			if err != nil {
				return err
			}
			s, err := r.open(c.Context, e, nil)
			if err != nil {
				return err
			}
			defer s.close()
			return s.do(c.Context, func(cs *mcp.ClientSession) error {
				if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Resources == nil {
					return nil
				}
				lctx, cancel := s.listCtx(c.Context)
				defer cancel()
				if c.Bool("templates") {
					for t, err := range cs.ResourceTemplates(lctx, nil) {
						if err != nil {
							return timeoutErr(lctx, err, "resources/templates/list", r.connectTimeoutFor(e))
						}
						if err := writeJSON(r, t); err != nil {
							return err
						}
					}
					return nil
				}
				for res, err := range cs.Resources(lctx, nil) {
					if err != nil {
						return timeoutErr(lctx, err, "resources/list", r.connectTimeoutFor(e))
					}
					if err := writeJSON(r, res); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}

func readCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "read a resource",
		ArgsUsage: "URI",
		Description: "Reads URI (an mcp:// prefix is dropped) from --server, or from the first server that lists it " +
			"(or, failing that, the only enabled server). Prints the text contents, binary contents as a " +
			"placeholder; --json prints the MCP ReadResourceResult.\n\n" +
			"Examples:\n\n    agent-mcp read demo://resource/dynamic/text/1\n    agent-mcp read --server fs --json file:///etc/hostname",
		Flags: commonFlags(
			&cli.StringFlag{Name: "server", Usage: "the server to read from"},
			&cli.BoolFlag{Name: "json", Usage: "print the MCP result"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exit.Errorf(exit.Usage, "read: want one URI")
			}
			uri := strings.TrimPrefix(c.Args().First(), "mcp://")
			r, err := newRunner(c, env)
			if err != nil {
				return err
			}
			s, err := r.resourceServer(c.Context, c.String("server"), uri)
			if err != nil {
				return err
			}
			defer s.close()
			var res *mcp.ReadResourceResult
			err = s.do(c.Context, func(cs *mcp.ClientSession) error {
				lctx, cancel := s.listCtx(c.Context)
				defer cancel()
				var err error
				res, err = cs.ReadResource(lctx, &mcp.ReadResourceParams{URI: uri})
				return timeoutErr(lctx, err, "resources/read", r.connectTimeoutFor(s.e))
			})
			if err != nil {
				return &connErr{s.e.Name, "connection", fmt.Errorf("%s: read %s: %w", s.e.Name, uri, err)}
			}
			if c.Bool("json") {
				return writeJSON(r, res)
			}
			var parts []string
			for _, rc := range res.Contents {
				if rc.Blob != nil {
					parts = append(parts, mcptool.ResourceText(mcptool.ResourceBody{URI: rc.URI, MimeType: rc.MIMEType, Blob: base64.StdEncoding.EncodeToString(rc.Blob)}))
				} else {
					parts = append(parts, rc.Text)
				}
			}
			_, err = fmt.Fprintln(env.Stdout, strings.Join(parts, "\n---\n"))
			return err
		},
	}
}

// resourceServer picks the server to read uri from.
func (r *runner) resourceServer(ctx context.Context, name, uri string) (*session, error) {
	if name != "" {
		e, err := r.server(name)
		if err != nil {
			return nil, err
		}
		return r.open(ctx, e, nil)
	}
	es, _ := r.selected(nil)
	if len(es) == 0 {
		return nil, exit.Errorf(exit.Usage, "no servers configured")
	}
	var firstErr error
	for _, e := range es {
		s, err := r.open(ctx, e, nil)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		found := false
		lctx, cancel := s.listCtx(ctx)
		for res, err := range s.current().Resources(lctx, nil) {
			if err != nil {
				break
			}
			if res.URI == uri {
				found = true
				break
			}
		}
		cancel()
		if found || len(es) == 1 {
			return s, nil
		}
		s.close()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, exit.Errorf(exit.Usage, "no server lists resource %q (name one with --server)", uri)
}

func promptsCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:        "prompts",
		Usage:       "list the prompts of a server",
		ArgsUsage:   "SERVER",
		Description: "Prints one MCP prompt per line as JSON.\n\nExample:\n\n    agent-mcp prompts everything | jq -r .name",
		Flags:       commonFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exit.Errorf(exit.Usage, "prompts: want one SERVER")
			}
			r, err := newRunner(c, env)
			if err != nil {
				return err
			}
			e, err := r.server(c.Args().First())
			if err != nil {
				return err
			}
			s, err := r.open(c.Context, e, nil)
			if err != nil {
				return err
			}
			defer s.close()
			return s.do(c.Context, func(cs *mcp.ClientSession) error {
				if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Prompts == nil {
					return nil
				}
				lctx, cancel := s.listCtx(c.Context)
				defer cancel()
				for p, err := range cs.Prompts(lctx, nil) {
					if err != nil {
						return timeoutErr(lctx, err, "prompts/list", r.connectTimeoutFor(e))
					}
					if err := writeJSON(r, p); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}

func promptCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "prompt",
		Usage:     "get a prompt, rendered with arguments",
		ArgsUsage: "SERVER NAME [KEY=VALUE…]",
		Description: "Prints the text of the prompt's messages (text parts and embedded resource texts, joined with " +
			"blank lines); --json prints the MCP GetPromptResult.\n\n" +
			"Examples:\n\n    agent-mcp prompt everything simple-prompt\n    agent-mcp prompt everything args-prompt city=Paris --json",
		Flags: commonFlags(&cli.BoolFlag{Name: "json", Usage: "print the MCP result"}),
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return exit.Errorf(exit.Usage, "prompt: want SERVER NAME [KEY=VALUE…]")
			}
			args := map[string]string{}
			for _, kv := range c.Args().Slice()[2:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return exit.Errorf(exit.Usage, "prompt argument %q: want KEY=VALUE", kv)
				}
				args[k] = v
			}
			r, err := newRunner(c, env)
			if err != nil {
				return err
			}
			e, err := r.server(c.Args().First())
			if err != nil {
				return err
			}
			s, err := r.open(c.Context, e, nil)
			if err != nil {
				return err
			}
			defer s.close()
			var res *mcp.GetPromptResult
			p := &mcp.GetPromptParams{Name: c.Args().Get(1)}
			if len(args) > 0 {
				p.Arguments = args
			}
			err = s.do(c.Context, func(cs *mcp.ClientSession) error {
				lctx, cancel := s.listCtx(c.Context)
				defer cancel()
				var err error
				res, err = cs.GetPrompt(lctx, p)
				return timeoutErr(lctx, err, "prompts/get", r.connectTimeoutFor(e))
			})
			if err != nil {
				return &connErr{e.Name, "connection", fmt.Errorf("%s: prompt %s: %w", e.Name, p.Name, err)}
			}
			if c.Bool("json") {
				return writeJSON(r, res)
			}
			var parts []string
			for _, m := range res.Messages {
				b, _ := json.Marshal(m.Content)
				out, err := mcptool.Convert(e.Name, p.Name, []byte(`{"content":[`+string(b)+`]}`))
				if err != nil {
					continue
				}
				for _, cb := range out.Content {
					if cb.Type == "text" {
						parts = append(parts, cb.Text)
					}
				}
			}
			_, err = fmt.Fprintln(env.Stdout, strings.Join(parts, "\n\n"))
			return err
		},
	}
}

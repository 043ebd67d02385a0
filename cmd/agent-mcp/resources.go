package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/mcpclient"
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
		Flags: connectFlags(&cli.BoolFlag{Name: "templates", Usage: "list resource templates instead"}),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			return oneServer(c, env, c.Args().First(), func(_ *runner, s *session) error {
				has := func(caps *mcp.ServerCapabilities) bool { return caps.Resources != nil }
				if c.Bool("templates") {
					return listEach(c.Context, s, "resources/templates/list", has, func(ctx context.Context, cs *mcp.ClientSession) iter.Seq2[*mcp.ResourceTemplate, error] {
						return cs.ResourceTemplates(ctx, nil)
					})
				}
				return listEach(c.Context, s, "resources/list", has, func(ctx context.Context, cs *mcp.ClientSession) iter.Seq2[*mcp.Resource, error] {
					return cs.Resources(ctx, nil)
				})
			})
		},
	}
}

func readCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "read a resource",
		ArgsUsage: "URI",
		Description: "Reads URI (an mcp:// prefix is dropped) from --server, or from the first server that lists it or has a resource template it matches " +
			"(or, failing that, the only enabled server). Prints the text contents, binary contents as a " +
			"placeholder; --json prints the MCP ReadResourceResult.\n\n" +
			"Examples:\n\n    agent-mcp read demo://resource/dynamic/text/1\n    agent-mcp read --server fs --json file:///etc/hostname",
		Flags: connectFlags(
			&cli.StringFlag{Name: "server", Usage: "the server to read from"},
			&cli.BoolFlag{Name: "json", Usage: "print the MCP result"},
		),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
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
			defer s.Close()
			var res *mcp.ReadResourceResult
			err = s.Request(c.Context, "resources/read", func(ctx context.Context, cs *mcp.ClientSession) error {
				var err error
				res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				return err
			})
			if err != nil {
				return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "connection", Err: fmt.Errorf("%s: read %s: %w", s.Entry.Name, uri, err)}
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

// offers reports whether the server lists uri among its resources or has a
// resource template it matches.
func (s *session) offers(ctx context.Context, uri string) bool {
	lctx, cancel := s.ListCtx(ctx)
	defer cancel()
	for res, err := range s.current().Resources(lctx, nil) {
		if err != nil {
			break
		}
		if res.URI == uri {
			return true
		}
	}
	for t, err := range s.current().ResourceTemplates(lctx, nil) {
		if err != nil {
			break
		}
		if templateMatch(t.URITemplate, uri) {
			return true
		}
	}
	return false
}

var templateVar = regexp.MustCompile(`\\\{[^}]*\}`)

// templateMatch reports whether uri is an expansion of an RFC 6570 URI
// template: {var} stands for one path segment, {+var}, {/var} and {#var}
// for any text.
func templateMatch(tmpl, uri string) bool {
	re := templateVar.ReplaceAllStringFunc(regexp.QuoteMeta(tmpl), func(v string) string {
		if strings.HasPrefix(v, `\{\+`) || strings.HasPrefix(v, `\{/`) || strings.HasPrefix(v, `\{#`) {
			return ".*"
		}
		return "[^/?#]+"
	})
	ok, _ := regexp.MatchString("^"+re+"$", uri)
	return ok
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
		if len(es) == 1 || s.offers(ctx, uri) {
			return s, nil
		}
		s.Close()
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
		Flags:       connectFlags(),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			return oneServer(c, env, c.Args().First(), func(_ *runner, s *session) error {
				return listEach(c.Context, s, "prompts/list", func(caps *mcp.ServerCapabilities) bool { return caps.Prompts != nil },
					func(ctx context.Context, cs *mcp.ClientSession) iter.Seq2[*mcp.Prompt, error] {
						return cs.Prompts(ctx, nil)
					})
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
		Flags: connectFlags(&cli.BoolFlag{Name: "json", Usage: "print the MCP result"}),
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
			return oneServer(c, env, c.Args().First(), func(r *runner, s *session) error {
				p := &mcp.GetPromptParams{Name: c.Args().Get(1)}
				if len(args) > 0 {
					p.Arguments = args
				}
				var res *mcp.GetPromptResult
				err := s.Request(c.Context, "prompts/get", func(ctx context.Context, cs *mcp.ClientSession) error {
					var err error
					res, err = cs.GetPrompt(ctx, p)
					return err
				})
				if err != nil {
					return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "connection", Err: fmt.Errorf("%s: prompt %s: %w", s.Entry.Name, p.Name, err)}
				}
				if c.Bool("json") {
					return writeJSON(r, res)
				}
				_, err = fmt.Fprintln(env.Stdout, promptText(s.Entry.Name, p.Name, res))
				return err
			})
		},
	}
}

// promptText is the text of a prompt's messages: text parts and embedded
// resource texts, joined with blank lines.
func promptText(server, name string, res *mcp.GetPromptResult) string {
	var parts []string
	for _, m := range res.Messages {
		b, _ := json.Marshal(m.Content)
		out, err := mcptool.Convert(server, name, []byte(`{"content":[`+string(b)+`]}`))
		if err != nil {
			continue
		}
		for _, cb := range out.Content {
			if cb.Type == "text" {
				parts = append(parts, cb.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

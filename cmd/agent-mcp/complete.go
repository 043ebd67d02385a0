package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/lib/exit"
)

func completeCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "complete",
		Usage:     "ask a server to complete a prompt or resource-template argument",
		ArgsUsage: "SERVER (--prompt NAME | --resource URI-TEMPLATE) ARG [VALUE]",
		Description: "Sends completion/complete for the argument ARG of a prompt (--prompt) or of a resource template's " +
			"variable (--resource, the template as listed) with the partial VALUE (missing: empty), and prints the " +
			"values one per line; --json prints the MCP CompleteResult. --context KEY=VALUE gives arguments already " +
			"chosen (repeatable). A server that does not offer completions is an error (exit 2).\n\n" +
			"Examples:\n\n    agent-mcp complete everything --prompt completable-prompt department E\n" +
			"    agent-mcp complete everything --prompt completable-prompt name --context department=Sales\n" +
			"    agent-mcp complete everything --resource 'demo://resource/dynamic/text/{resourceId}' resourceId 1 --json",
		Flags: connectFlags(
			&cli.StringFlag{Name: "prompt", Usage: "complete an argument of the prompt `NAME`"},
			&cli.StringFlag{Name: "resource", Usage: "complete a variable of the resource template `URI-TEMPLATE`"},
			&cli.StringSliceFlag{Name: "context", Usage: "an argument already chosen, `KEY=VALUE` (repeatable)"},
			&cli.BoolFlag{Name: "json", Usage: "print the MCP result"},
		),
		Action: func(c *cli.Context) error {
			p, err := completeParams(c)
			if err != nil {
				return err
			}
			return oneServer(c, env, c.Args().First(), func(r *runner, s *session) error {
				if ir := s.current().InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Completions == nil {
					return exit.Errorf(exit.Usage, "server %q does not offer completions", s.Entry.Name)
				}
				var res *mcp.CompleteResult
				err := s.Request(c.Context, "completion/complete", func(ctx context.Context, cs *mcp.ClientSession) error {
					var err error
					res, err = cs.Complete(ctx, p)
					return err
				})
				if err != nil {
					return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "connection", Err: fmt.Errorf("%s: completion/complete: %w", s.Entry.Name, err)}
				}
				if c.Bool("json") {
					return writeJSON(r, res)
				}
				for _, v := range res.Completion.Values {
					if _, err := fmt.Fprintln(env.Stdout, v); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}

// completeParams checks the command line of `agent-mcp complete`.
func completeParams(c *cli.Context) (*mcp.CompleteParams, error) {
	if c.NArg() < 2 || c.NArg() > 3 {
		return nil, exit.Errorf(exit.Usage, "complete: want %s", c.Command.ArgsUsage)
	}
	p := &mcp.CompleteParams{Argument: mcp.CompleteParamsArgument{Name: c.Args().Get(1), Value: c.Args().Get(2)}}
	switch prompt, res := c.String("prompt"), c.String("resource"); {
	case (prompt == "") == (res == ""):
		return nil, exit.Errorf(exit.Usage, "complete: want one of --prompt NAME and --resource URI-TEMPLATE")
	case prompt != "":
		p.Ref = &mcp.CompleteReference{Type: "ref/prompt", Name: prompt}
	default:
		p.Ref = &mcp.CompleteReference{Type: "ref/resource", URI: res}
	}
	for _, kv := range c.StringSlice("context") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, exit.Errorf(exit.Usage, "--context %q: want KEY=VALUE", kv)
		}
		if p.Context == nil {
			p.Context = &mcp.CompleteContext{Arguments: map[string]string{}}
		}
		p.Context.Arguments[k] = v
	}
	return p, nil
}

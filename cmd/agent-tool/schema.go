package main

import (
	"encoding/json"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
)

func schemaCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the tool definitions as a tools message of the protocol",
		Description: `Prints one {"type":"tools","tools":[…]} line, the answer 'serve' gives to hello; agent-chat
--tools-json reads it.

Example:
   agent-tool schema --tools read,bash | jq -r '.tools[].name'`,
		Flags: []cli.Flag{toolsFlag, editModeFlag, memoryFlag},
		Action: func(c *cli.Context) error {
			ts, err := selected(c)
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			msg := &event.Tools{}
			for _, t := range ts {
				msg.Tools = append(msg.Tools, t.Def)
			}
			b, err := event.EncodeTool(msg)
			if err != nil {
				return err
			}
			_, err = c.App.Writer.Write(b)
			return err
		},
	}
}

func callCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "call",
		Usage:     "run one tool and print its result",
		ArgsUsage: "NAME [JSON|-]",
		Description: `Runs tool NAME with the JSON arguments (from the argument, or stdin with -) and prints the
result record ({"type":"result","content":[…],"details":…,"isError":…}). Exit 1 when the tool failed.

Examples:
   agent-tool call read '{"path":"main.go","offset":10,"limit":20}'
   echo '{"command":"go test ./..."}' | agent-tool call bash -`,
		Flags: append(callFlags(), memoryFlag),
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 || c.NArg() > 2 {
				return exit.Errorf(exit.Usage, "usage: agent-tool call NAME [JSON|-]")
			}
			ts, err := selected(c)
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			args := json.RawMessage("{}")
			switch a := c.Args().Get(1); a {
			case "":
			case "-":
				dec := json.NewDecoder(env.Stdin)
				if err := dec.Decode(&args); err != nil {
					return exit.Errorf(exit.Usage, "stdin: arguments are not JSON: %v", err)
				}
			default:
				if !json.Valid([]byte(a)) {
					return exit.Errorf(exit.Usage, "arguments are not JSON: %s", a)
				}
				args = json.RawMessage(a)
			}
			tenv, err := toolEnv(c, env)
			if err != nil {
				return err
			}
			defer tenv.Close()
			g, err := newGate(c, ts)
			if err != nil {
				return err
			}
			r := g.run(c.Context, ts, tenv, "", c.Args().First(), args, true, nil)
			g.wait() // async hooks: what they answer is warned
			b, _ := event.EncodeTool(&r)
			c.App.Writer.Write(b)
			if r.IsError {
				return exit.Silent(exit.Failure)
			}
			return nil
		},
	}
}

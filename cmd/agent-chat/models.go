package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/llm"
)

// listModels prints the catalog (filtered by the arguments): a table on a
// terminal, JSON lines otherwise.
func listModels(c *cli.Context, env *app.Env, cat *llm.Catalog) error {
	q := strings.ToLower(strings.Join(c.Args().Slice(), " "))
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	var tw *tabwriter.Writer
	if env.StdoutTTY {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "MODEL\tCONTEXT\tMAX OUT\tTHINKING\tIMAGES\t$ IN/OUT PER M\tKEY")
	}
	for _, m := range cat.Models {
		if q != "" && !strings.Contains(strings.ToLower(m.Ref()+" "+m.Name), q) {
			continue
		}
		_, kerr := cat.ResolveKey(m, c.String("api-key"), env.Getenv)
		if tw != nil {
			key := "yes"
			if kerr != nil {
				key = "-"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%v\t%g/%g\t%s\n", m.Ref(), m.ContextWindow, m.MaxTokens, m.Reasoning, m.Images(), m.Cost.Input, m.Cost.Output, key)
			continue
		}
		b, _ := json.Marshal(struct {
			llm.Model
			Ref    string `json:"ref"`
			HasKey bool   `json:"hasKey"`
		}{m, m.Ref(), kerr == nil})
		w.Write(append(b, '\n'))
	}
	if tw != nil {
		return tw.Flush()
	}
	return nil
}

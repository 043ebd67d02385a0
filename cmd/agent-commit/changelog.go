package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/commit"
	"github.com/agentutils/agentutils/lib/exit"
)

func changelogCommand(env *app.Env) *cli.Command {
	fileFlag := &cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "changelog `FILE`", Value: "CHANGELOG.md"}
	createFlag := &cli.BoolFlag{Name: "create-unreleased", Usage: "add a [Unreleased] section after the title when there is none"}
	return &cli.Command{
		Name:  "changelog",
		Usage: "read and edit the [Unreleased] section of a Keep a Changelog file",
		Description: "Edits happen in place: new items go under their existing ### heading, missing known headings " +
			"are inserted in canonical order, and every other line (unknown sections, * bullets, wrapped lines, " +
			"prose) is kept byte for byte. The file is replaced atomically.\n\n" +
			"Examples:\n\n" +
			"   agent-commit changelog targets\n" +
			"   agent-commit changelog show\n" +
			"   agent-commit changelog add --section Fixed 'Crash on empty input'\n" +
			"   echo '{\"entries\":{\"Added\":[\"Paging\"]}}' | agent-commit changelog apply -",
		Subcommands: []*cli.Command{
			{
				Name:  "targets",
				Usage: "list the CHANGELOG.md files the staged changes belong to, as JSON",
				Description: "For each staged file, the nearest tracked CHANGELOG.md at or above its directory, up to the " +
					"repository root; paths are repository-relative. These are the files agent-commit commit adds entries to. " +
					"Prints [] when there are none.",
				Action: func(c *cli.Context) error { return printTargets(c, env) },
			},
			{
				Name:  "show",
				Usage: "print the [Unreleased] section as JSON",
				Flags: []cli.Flag{fileFlag},
				Action: func(c *cli.Context) error {
					text, err := readChangelog(env, c.String("file"))
					if err != nil {
						return err
					}
					u, err := commit.ParseUnreleased(text)
					if err != nil {
						return exit.Errorf(exit.Failure, "%s: %v", c.String("file"), err)
					}
					b, _ := json.Marshal(u)
					fmt.Fprintf(env.Stdout, "%s\n", b)
					return nil
				},
			},
			{
				Name:      "add",
				Usage:     "add items to one section of [Unreleased]",
				ArgsUsage: "ITEM...",
				Flags: []cli.Flag{fileFlag, createFlag,
					&cli.StringFlag{Name: "section", Aliases: []string{"s"}, Usage: "section `NAME` (Added, Changed, Deprecated, Removed, Fixed, Security, …)", Required: true}},
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return exit.Errorf(exit.Usage, "add needs at least one ITEM")
					}
					return editChangelog(c, env, map[string][]string{c.String("section"): c.Args().Slice()}, nil)
				},
			},
			{
				Name:      "apply",
				Usage:     "merge entries and deletions from JSON into [Unreleased]",
				ArgsUsage: "ENTRIES.json|-",
				Description: "The JSON is {\"entries\":{\"Fixed\":[\"…\"]},\"deletions\":{\"Added\":[\"…\"]}} " +
					"(a bare {\"Fixed\":[…]} object is taken as entries).",
				Flags:  []cli.Flag{fileFlag, createFlag},
				Action: func(c *cli.Context) error { return applyChangelog(c, env) },
			},
		},
	}
}

// applyChangelog merges the entries and deletions of a JSON document.
func applyChangelog(c *cli.Context, env *app.Env) error {
	name, data, err := readInput(env, c.Args().First())
	if err != nil {
		return err
	}
	var doc struct {
		Entries   map[string][]string `json:"entries"`
		Deletions map[string][]string `json:"deletions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return exit.Errorf(exit.Usage, "%s: %v", name, err)
	}
	if doc.Entries == nil && doc.Deletions == nil {
		if err := json.Unmarshal(data, &doc.Entries); err != nil {
			return exit.Errorf(exit.Usage, "%s: want {\"entries\":{SECTION:[ITEM…]}}: %v", name, err)
		}
	}
	return editChangelog(c, env, doc.Entries, doc.Deletions)
}

// printTargets prints the changelogs the staged changes belong to.
func printTargets(c *cli.Context, env *app.Env) error {
	if c.NArg() > 0 {
		return exit.Errorf(exit.Usage, "targets takes no arguments")
	}
	if err := inRepo(c, env); err != nil {
		return err
	}
	targets, _, err := changelogTargets(c, env)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(targets)
	_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
	return err
}

func readChangelog(env *app.Env, name string) (string, error) {
	data, err := os.ReadFile(abs(env, name))
	if err != nil {
		return "", exit.Errorf(exit.Usage, "%v", err)
	}
	return string(data), nil
}

func editChangelog(c *cli.Context, env *app.Env, entries, deletions map[string][]string) error {
	name := c.String("file")
	text, err := readChangelog(env, name)
	if err != nil {
		return err
	}
	out, err := commit.Merge(text, entries, deletions, c.Bool("create-unreleased"))
	if errors.Is(err, commit.ErrNoUnreleased) {
		return exit.Errorf(exit.Failure, "%s: %v (use --create-unreleased)", name, err)
	}
	if err != nil {
		return err
	}
	if out == text {
		app.Warnf(c, "%s: unchanged: every item is there already, or nothing to remove", name)
		return nil
	}
	if err := atomicfile.Write(abs(env, name), []byte(out), 0o644); err != nil {
		return err
	}
	app.Warnf(c, "%s: %s", name, changed(entries, deletions))
	return nil
}

// changed says what an edit of [Unreleased] asked for, for stderr:
// "added 2 items to Fixed, removed 1 from Added".
func changed(entries, deletions map[string][]string) string {
	var parts []string
	for _, m := range []struct {
		items map[string][]string
		verb  string
	}{{entries, "added %d to %s"}, {deletions, "removed %d from %s"}} {
		for _, sec := range slices.Sorted(maps.Keys(m.items)) {
			if n := len(m.items[sec]); n > 0 {
				parts = append(parts, fmt.Sprintf(m.verb, n, sec))
			}
		}
	}
	return strings.Join(parts, ", ") + " in [Unreleased]"
}

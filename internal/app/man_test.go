package app

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestMan(t *testing.T) {
	a := &cli.App{
		Name:        "agent-x",
		Usage:       "a test command",
		Description: "Does x.\n.dot starts this line → arrow\n\nExamples:\n\n   agent-x run --fast a\\b\n   agent-x run -n 2\n\nAfter.",
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "say more"}},
		Commands: []*cli.Command{
			{Name: "run", Usage: "run it", ArgsUsage: "FILE", Description: "Runs FILE.",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "n", Value: 1, Usage: "`N` times"},
					&cli.StringSliceFlag{Name: "tag", Usage: "a `TAG`"},
					&cli.BoolFlag{Name: "secret", Hidden: true},
				},
				Subcommands: []*cli.Command{{Name: "deep", Usage: "go deeper"}}},
			{Name: "gone", Hidden: true},
			{Name: "man", Usage: "print the man page"},
		},
	}
	got := Man(a)
	for _, want := range []string{
		".TH AGENT\\-X 1\n",
		".SH NAME\nagent\\-x \\- a test command\n",
		".SH SYNOPSIS\n\\fBagent\\-x\\fR [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n",
		"\\&.dot starts this line \\[u2192] arrow\n",                                  // not a request; UTF-8 escaped
		".PP\n.EX\n   agent\\-x run \\-\\-fast a\\eb\n   agent\\-x run \\-n 2\n.EE\n", // examples kept as laid out
		".TP\n\\fB\\-\\-verbose, \\-v\\fR\nsay more\n",                                // no "(default: false)"
		".SS \"run\"\n\\fBagent\\-x run\\fR [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n.PP\nrun it.\n.PP\nRuns FILE.\n",
		".TP\n\\fB\\-n N\\fR\nN times (default: 1)\n", // urfave writes a one-letter name with one dash
		".TP\n\\fB\\-\\-tag TAG\\fR\na TAG (may be repeated)\n",
		".SS \"deep\"\n\\fBagent\\-x run deep\\fR\n",
		".SH EXIT STATUS\n.TP\n\\fB0\\fR\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("man page lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"secret", "gone", `.SS "man"`} {
		if strings.Contains(got, not) {
			t.Errorf("man page shows %q, which is hidden or common to every command", not)
		}
	}
	for i, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, ".") && !strings.HasPrefix(l, ".TH") && !strings.HasPrefix(l, ".S") &&
			!strings.HasPrefix(l, ".PP") && !strings.HasPrefix(l, ".TP") && !strings.HasPrefix(l, ".E") && l != ".nh" {
			t.Errorf("line %d is an unexpected request: %q", i+1, l)
		}
	}
}

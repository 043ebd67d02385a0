package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/lib/exit"
)

func testEnv(vars map[string]string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] },
		Now:    func() time.Time { return time.Unix(0, 0) },
	}, &out, &errb
}

func spec(env *Env) *cli.App {
	return &cli.App{
		Name:  "agent-x",
		Usage: "a test command",
		Commands: []*cli.Command{
			{Name: "ok", Action: func(c *cli.Context) error { _, err := c.App.Writer.Write([]byte("fine\n")); return err }},
			{Name: "fail", Action: func(c *cli.Context) error { return errors.New("it broke") }},
			{Name: "bad", Action: func(c *cli.Context) error { env.ErrorRecord = true; return exit.Errorf(exit.Usage, "line 3: not JSON") }},
			{Name: "flagged", Flags: []cli.Flag{&cli.IntFlag{Name: "n"}, &cli.BoolFlag{Name: "color"}}, Action: func(c *cli.Context) error { return nil }},
			{Name: "quiet", Action: func(c *cli.Context) error { return exit.Silent(exit.NoResult) }},
		},
	}
}

func TestRun(t *testing.T) {
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"ok"}, 0, "fine\n", ""},
		{[]string{"fail"}, 1, "", "agent-x: it broke\n"},
		{[]string{"bad"}, 2, `{"type":"error","code":2,"message":"line 3: not JSON"}` + "\n", "agent-x: line 3: not JSON\n"},
		{[]string{"flagged", "--nope"}, 2, "", "agent-x: unknown flag --nope (see 'agent-x flagged --help')\n"},
		{[]string{"flagged", "--colr"}, 2, "", "agent-x: unknown flag --colr (did you mean --color?) (see 'agent-x flagged --help')\n"},
		{[]string{"flagged", "-m"}, 2, "", "agent-x: unknown flag -m (see 'agent-x flagged --help')\n"},
		{[]string{"flaged"}, 2, "", `unknown command "flaged" (did you mean flagged?)`},
		{[]string{"--color", "--n", "3", "flagged"}, 0, "", ""}, // a command's flags before its name
		{[]string{"--n=3", "flagged", "--color"}, 0, "", ""},
		{[]string{"--nope", "flagged"}, 2, "", "agent-x: unknown flag --nope (see 'agent-x --help')\n"},
		{[]string{"flagged", "--n", "x"}, 2, "", "invalid value"},
		{[]string{"nosuch"}, 2, "", `unknown command "nosuch"`},
		{[]string{}, 2, "COMMANDS", "a command is required"},
		{[]string{"quiet"}, 1, "", ""},
		{[]string{"--generate-completion", "bash"}, 0, "complete -o bashdefault -o default -F _agent_x agent-x", ""},
		{[]string{"--generate-completion", "zsh"}, 0, "#compdef agent-x", ""},
		{[]string{"--generate-completion", "fish"}, 0, "complete -c agent-x", ""},
		{[]string{"--generate-completion", "tcsh"}, 2, "", "choose bash, zsh or fish"},
		{[]string{"--man"}, 0, ".SH EXIT STATUS", ""},
		{[]string{"completion", "bash"}, 2, "", `unknown command "completion"`}, // flags, not commands
		{[]string{"help", "nosuch"}, 2, "", "No help topic for 'nosuch'"},       // 3 is context overflow only
		{[]string{"ok", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"--version"}, 0, "agent-x version ", ""},
		{[]string{"-V"}, 0, "agent-x version ", ""},
	}
	for _, c := range cases {
		env, out, errb := testEnv(nil)
		code := Run(context.Background(), spec, env, append([]string{"agent-x"}, c.args...))
		if code != c.code {
			t.Errorf("%v: code %d, want %d (stderr %q)", c.args, code, c.code, errb.String())
		}
		if !strings.Contains(out.String(), c.stdout) || (c.stdout == "" && out.Len() != 0) {
			t.Errorf("%v: stdout %q, want %q", c.args, out.String(), c.stdout)
		}
		if !strings.Contains(errb.String(), c.stderr) || (c.stderr == "" && errb.Len() != 0) {
			t.Errorf("%v: stderr %q, want %q", c.args, errb.String(), c.stderr)
		}
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env, _, _ := testEnv(nil)
	s := func(*Env) *cli.App {
		return &cli.App{Name: "agent-x", Action: func(c *cli.Context) error { return c.Context.Err() }}
	}
	if code := Run(ctx, s, env, []string{"agent-x"}); code != exit.Interrupted {
		t.Errorf("code %d, want 130", code)
	}
}

// A command that has reported its own failure returns a silent error; on
// an interrupt it becomes 130 and stays silent (no "exit status 1").
func TestInterruptedSilent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env, _, errb := testEnv(nil)
	s := func(*Env) *cli.App {
		return &cli.App{Name: "agent-x", Action: func(c *cli.Context) error { return exit.Silent(exit.Failure) }}
	}
	if code := Run(ctx, s, env, []string{"agent-x"}); code != exit.Interrupted || errb.Len() != 0 {
		t.Errorf("code %d, stderr %q; want 130 and nothing", code, errb.String())
	}
}

func TestColor(t *testing.T) {
	cases := []struct {
		mode string
		tty  bool
		env  map[string]string
		want bool
	}{
		{"auto", true, nil, true},
		{"auto", false, nil, false},
		{"auto", true, map[string]string{"NO_COLOR": "1"}, false},
		{"auto", true, map[string]string{"TERM": "dumb"}, false},
		{"auto", false, map[string]string{"CLICOLOR_FORCE": "1"}, true},
		{"always", false, map[string]string{"NO_COLOR": "1"}, true},
		{"never", true, nil, false},
	}
	for _, c := range cases {
		env, _, _ := testEnv(c.env)
		if got := env.Color(c.mode, c.tty); got != c.want {
			t.Errorf("%+v: got %v", c, got)
		}
	}
}

func TestInterspersedFlags(t *testing.T) {
	a := &cli.App{Name: "x", Flags: []cli.Flag{&cli.StringFlag{Name: "model", Aliases: []string{"m"}}, &cli.BoolFlag{Name: "once", Aliases: []string{"o"}}},
		Commands: []*cli.Command{{Name: "append", Flags: []cli.Flag{&cli.BoolFlag{Name: "tee"}, &cli.StringFlag{Name: "parent"}}}}}
	for _, tt := range []struct{ in, want []string }{
		{[]string{"x", "append", "s.jsonl", "--tee"}, []string{"x", "append", "--tee", "--", "s.jsonl"}},
		{[]string{"x", "append", "s.jsonl", "--parent", "p1", "-"}, []string{"x", "append", "--parent=p1", "--", "s.jsonl", "-"}},
		{[]string{"x", "fix it", "--model", "m", "--once"}, []string{"x", "--model=m", "--once", "--", "fix it"}},
		{[]string{"x", "--model", "m", "fix"}, []string{"x", "--model=m", "--", "fix"}},
		{[]string{"x", "a", "--", "--tee"}, []string{"x", "a", "--", "--tee"}},
		{[]string{"x", "append", "s.jsonl"}, []string{"x", "append", "s.jsonl"}},
		{[]string{"x", "-mfoo", "hi"}, []string{"x", "-m=foo", "--", "hi"}},
		// rg's clusters: flags together, the value-taking one last
		{[]string{"x", "-om", "foo", "hi"}, []string{"x", "-o", "-m=foo", "--", "hi"}},
		{[]string{"x", "-om2"}, []string{"x", "-o", "-m=2"}},
		// a value that starts with '-' is a value
		{[]string{"x", "-m", "-o", "hi"}, []string{"x", "-m=-o", "--", "hi"}},
		{[]string{"x", "-zq"}, []string{"x", "-zq"}}, // not flags: left to the parser
	} {
		if got := interspersed(a, tt.in); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("interspersed(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Flags answer their names from a cached copy; lookups by name or alias,
// IsSet, values and the value-taking test behave as the library's own.
func TestCachedFlagNames(t *testing.T) {
	var got []string
	env, _, _ := testEnv(nil)
	code := Run(context.Background(), func(*Env) *cli.App {
		return &cli.App{Name: "x",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "ignore-case", Aliases: []string{"i"}}, &cli.StringFlag{Name: "model", Aliases: []string{"m"}},
				&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}}, &cli.StringSliceFlag{Name: "glob", Aliases: []string{"g"}},
				&cli.DurationFlag{Name: "timeout"}, &cli.Float64Flag{Name: "temperature"}},
			Action: func(c *cli.Context) error {
				for _, f := range c.App.Flags {
					if _, ok := f.(*cli.BoolFlag); ok && f.Names()[0] == "ignore-case" {
						t.Error("flags not wrapped")
					}
				}
				got = append(got, fmt.Sprintln(c.Bool("i"), c.IsSet("ignore-case"), c.String("model"), c.IsSet("m"), c.Int("n"),
					c.StringSlice("glob"), c.Duration("timeout"), c.IsSet("temperature"), TakesValue(c.App.Flags[0]), TakesValue(c.App.Flags[1])))
				return nil
			}}
	}, env, []string{"x", "-i", "-m", "opus", "--max-count=3", "-g", "*.go", "-g", "*.md", "--timeout", "2s"})
	want := "true true opus true 3 [*.go *.md] 2s false false true\n"
	if code != 0 || len(got) != 1 || got[0] != want {
		t.Fatalf("exit %d, got %q, want %q", code, got, want)
	}
}

// TestDashDashIsData: after "--" a word is data for the root action (a
// prompt "help"), not a subcommand; without "--" the subcommands still work.
func TestDashDashIsData(t *testing.T) {
	prompter := func(env *Env) *cli.App {
		return &cli.App{
			Name:      "agent-p",
			ArgsUsage: "[PROMPT...]",
			Flags:     []cli.Flag{&cli.StringFlag{Name: "model", Aliases: []string{"m"}}},
			Action: func(c *cli.Context) error {
				_, err := fmt.Fprintf(c.App.Writer, "prompt %q\n", c.Args().Slice())
				return err
			},
		}
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--", "help"}, `prompt ["help"]`},
		{[]string{"--model", "x", "--", "man"}, `prompt ["man"]`},
		{[]string{"-m", "x", "--", "completion"}, `prompt ["completion"]`},
		{[]string{"--model=x", "--", "h"}, `prompt ["h"]`},
		{[]string{"man"}, `prompt ["man"]`}, // a word, not the man page (issue #19)
		{[]string{"help", "me"}, `prompt ["help" "me"]`},
		{[]string{"--man"}, ".SH EXIT STATUS"},
	}
	for _, c := range cases {
		env, out, errb := testEnv(nil)
		if code := Run(context.Background(), prompter, env, append([]string{"agent-p"}, c.args...)); code != 0 {
			t.Errorf("%v: exit %d (%s)", c.args, code, errb)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: stdout %q, want %q", c.args, out.String(), c.want)
		}
	}
}

func TestPathFirst(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"HOME=/h", "PATH=/usr/bin:/bin"}, []string{"HOME=/h", "PATH=/usr/bin:/bin", "PATH=/opt/bin:/usr/bin:/bin"}},
		{[]string{"HOME=/h"}, []string{"HOME=/h", "PATH=/opt/bin"}},
		{[]string{"PATH="}, []string{"PATH=", "PATH=/opt/bin"}},
	} {
		if got := PathFirst(tc.in, "/opt/bin"); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("PathFirst(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

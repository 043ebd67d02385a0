package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

// optionsCase is one case of testdata/options.json: a command line, its
// environment and stdin, and either the options it gives (only the
// fields named, as dotted JSON paths: "Search.After") or the exit status
// and a part of the message.
type optionsCase struct {
	Args   []string          `json:"args"`
	Env    map[string]string `json:"env"`
	Stdin  *string           `json:"stdin"`
	Want   map[string]any    `json:"want"`
	Exit   int               `json:"exit"`
	Stderr string            `json:"stderr"`
}

// TestOptions runs the flags → options step in-process, as gojq tests its
// command line: a table of cases as data.
func TestOptions(t *testing.T) {
	data, err := os.ReadFile("testdata/options.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []optionsCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(strings.Join(c.Args, " "), func(t *testing.T) {
			got, code, stderr := parseCase(t, c)
			if code != c.Exit || !strings.Contains(stderr, c.Stderr) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, stderr, c.Exit, c.Stderr)
			}
			for k, want := range c.Want {
				w, _ := json.Marshal(want)
				g, _ := json.Marshal(got[k])
				if !bytes.Equal(w, g) {
					t.Errorf("%s = %s, want %s", k, g, w)
				}
			}
		})
	}
}

// parseCase runs agent-grep's application with an action that stops at
// the options, flattened to dotted paths.
func parseCase(t *testing.T, c optionsCase) (map[string]any, int, string) {
	var errb, out bytes.Buffer
	env := &app.Env{Stdout: &out, Stderr: &errb, Dir: t.TempDir(), StdinTTY: c.Stdin == nil,
		Stdin: strings.NewReader(""), Getenv: func(k string) string { return c.Env[k] }}
	if c.Stdin != nil {
		env.Stdin = strings.NewReader(*c.Stdin)
	}
	var o *options
	spec := func(env *app.Env) *cli.App {
		a := newApp(env)
		a.Action = func(cc *cli.Context) error {
			var err error
			o, err = parseOptions(cc, env)
			return err
		}
		return a
	}
	args := canonicalArgs(flags(), append([]string{"agent-grep"}, c.Args...)) // as main does
	code := app.Run(context.Background(), spec, env, args)
	flat := map[string]any{}
	if o != nil {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		flatten("", m, flat)
	}
	return flat, code, errb.String()
}

func flatten(prefix string, v any, out map[string]any) {
	m, ok := v.(map[string]any)
	if !ok {
		out[prefix] = v
		return
	}
	if prefix != "" {
		out[prefix] = v
		prefix += "."
	}
	for k, x := range m {
		flatten(prefix+k, x, out)
	}
}

// TestFlagNames: the start-up's own names of a flag are urfave/cli's.
func TestFlagNames(t *testing.T) {
	for _, f := range flags() {
		if got, want := flagNames(f), f.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("flagNames = %q, Names = %q", got, want)
		}
	}
}

package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/exit"
)

// The flags → options step, in-process: each case's arguments give these
// options, or this exit code and message.
func TestOptions(t *testing.T) {
	def := options{events: "none", settings: compact.Settings{ReserveTokens: 16384, KeepRecentTokens: 20000,
		ProtectTokens: compact.Defaults.ProtectTokens, MinimumSavings: compact.Defaults.MinimumSavings}}
	with := func(f func(*options)) options { o := def; f(&o); return o }
	cases := []struct {
		args []string
		want options
		code int
		msg  string
	}{
		{args: nil, want: def},
		{args: []string{"--events", "stderr"}, want: with(func(o *options) { o.events = "stderr" })},
		{args: []string{"--events", "none"}, want: def},
		{args: []string{"--events", "stdout"}, code: exit.Usage, msg: `--events "stdout": use stderr or none`},
		{args: []string{"--force", "--instructions", "keep the API", "--model", "a/b", "--model", "c/d"},
			want: with(func(o *options) { o.force, o.instructions, o.models = true, "keep the API", []string{"a/b", "c/d"} })},
		{args: []string{"--dry-run", "--no-prune", "--prune-only"}, want: with(func(o *options) { o.dryRun, o.noPrune, o.pruneOnly = true, true, true })},
		{args: []string{"--context-window", "1000", "--reserve-tokens", "10", "--keep-recent-tokens", "20"},
			want: with(func(o *options) { o.window, o.settings.ReserveTokens, o.settings.KeepRecentTokens = 1000, 10, 20 })},
		{args: []string{"--context-window", "-1"}, code: exit.Usage, msg: "--context-window -1: not a number of tokens"},
		{args: []string{"--keep-recent-tokens", "-5"}, code: exit.Usage, msg: "--keep-recent-tokens -5: not a number of tokens"},
		{args: []string{"--branch-summary", "--from", "a1"}, code: exit.Usage, msg: "--branch-summary needs --from OLD_LEAF and --to TARGET"},
		{args: []string{"--branch-summary", "--from", "a1", "--to", "root"},
			want: with(func(o *options) { o.branch, o.from, o.to = true, "a1", "root" })},
		{args: []string{"--summarizer-cmd", "cat", "--api-key", "k", "--models-file", "m.toml", "--record", "r.yaml", "--replay", "p.yaml"},
			want: with(func(o *options) {
				o.summarizerCmd, o.apiKey, o.modelsFile, o.record, o.replay = "cat", "k", "m.toml", "r.yaml", "p.yaml"
			})},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env := &app.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
			a := newApp(env)
			var got options
			var err error
			a.Action = func(c *cli.Context) error { got, err = parseOptions(c); return nil }
			a.ExitErrHandler = func(*cli.Context, error) {}
			if rerr := a.RunContext(context.Background(), append([]string{"agent-compact"}, tc.args...)); rerr != nil {
				t.Fatal(rerr)
			}
			if tc.code != 0 {
				if exit.Code(err) != tc.code || err.Error() != tc.msg {
					t.Fatalf("got %v (exit %d), want exit %d: %s", err, exit.Code(err), tc.code, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(options{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

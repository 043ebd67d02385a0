package main

import (
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
)

// The flags → Options step, in-process: each case is the command line and
// the environment, and either the Options wanted (only the fields a case
// names are compared, over the defaults) or the exit code and message.
func TestOptions(t *testing.T) {
	def := Options{Color: "auto", Args: []string{}, MaxTurns: 50, MaxTaskDepth: 2, MaxParallelTasks: 4, Retries: 3, RetryBase: 2 * time.Second,
		CacheRetention: "short", OutputFormat: "pi", Events: "compact", Throttle: defaultThrottle}
	with := func(f func(*Options)) Options { o := def; f(&o); return o }
	half := 0.5
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    Options
		code    int
		message string
	}{
		{name: "defaults", args: nil, want: def},
		{name: "prompt words and -m", args: []string{"-m", "yes, go on", "fix", "it"},
			want: with(func(o *Options) { o.Messages = []string{"yes, go on"}; o.Args = []string{"fix", "it"} })},
		{name: "model from the environment", env: map[string]string{"AGENT_MODEL": "openai/gpt-5.1"},
			want: with(func(o *Options) { o.Model = "openai/gpt-5.1" })},
		{name: "thinking and tools from the environment", env: map[string]string{"AGENT_THINKING": "high", "AGENT_TOOLS_CMD": "agent-tool serve --read-only"},
			want: with(func(o *Options) { o.Thinking, o.ToolsCmd = "high", []string{"agent-tool serve --read-only"} })},
		{name: "bad AGENT_THINKING", env: map[string]string{"AGENT_THINKING": "max"}, code: exit.Usage,
			message: `AGENT_THINKING: must be one of off, minimal, low, medium, high, xhigh, not "max"`},
		{name: "--model wins over the environment", args: []string{"--model", "fake/m"}, env: map[string]string{"AGENT_MODEL": "openai/gpt-5.1"},
			want: with(func(o *Options) { o.Model = "fake/m" })},
		{name: "tools commands kept whole", args: []string{"--tools-cmd", "agent-tool serve --tools read,bash", "--tools-cmd", "x"},
			want: with(func(o *Options) { o.ToolsCmd = []string{"agent-tool serve --tools read,bash", "x"} })},
		{name: "--once starts no tools", args: []string{"--once", "--tools-cmd", "x"}, want: with(func(o *Options) { o.Once = true })},
		{name: "--no-tools starts no tools", args: []string{"--no-tools", "--tools-cmd", "x"}, want: with(func(o *Options) { o.NoTools = true })},
		{name: "--tools-json starts no tools", args: []string{"--tools-json", "t.json", "--tools-cmd", "x"}, want: with(func(o *Options) { o.ToolsJSON = "t.json" })},
		{name: "retries and temperature", args: []string{"--retries", "0", "--retry-base-ms", "10", "--temperature", "0.5", "--max-turns", "1"},
			want: with(func(o *Options) { o.Retries, o.RetryBase, o.Temperature, o.MaxTurns = 0, 10*time.Millisecond, &half, 1 })},
		{name: "claude output", args: []string{"--output-format", "claude", "--events", "full"},
			want: with(func(o *Options) { o.OutputFormat, o.Events = "claude", "full" })},
		{name: "bad --events", args: []string{"--events", "some"}, code: exit.Usage, message: `--events must be compact, full or final, not "some"`},
		{name: "bad --cache-retention", args: []string{"--cache-retention", "forever"}, code: exit.Usage, message: `--cache-retention must be none, short or long, not "forever"`},
		{name: "record and replay", args: []string{"--record", "a", "--replay", "b"}, code: exit.Usage, message: "--record and --replay cannot be combined"},
		{name: "bad --output-format", args: []string{"--output-format", "json"}, code: exit.Usage, message: `--output-format must be pi or claude, not "json"`},
		{name: "--render checks nothing else", args: []string{"--render", "--events", "some"},
			want: with(func(o *Options) { o.Render, o.Events = true, "some" })},
		{name: "--list-models with a filter", args: []string{"--list-models", "sonnet"},
			want: with(func(o *Options) { o.ListModels, o.Args = true, []string{"sonnet"} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AGENT_MODEL", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var got Options
			var gotErr error
			home := t.TempDir() // AGENTUTILS_HOME: no config.toml unless a case writes one
			getenv := func(k string) string {
				if k == "AGENTUTILS_HOME" {
					return home
				}
				return tt.env[k]
			}
			env := &app.Env{Getenv: getenv, Dir: home, Stdout: io.Discard, Stderr: io.Discard}
			a := &cli.App{Name: "agent-chat", DisableSliceFlagSeparator: true, Flags: flags(), Writer: io.Discard, ErrWriter: io.Discard,
				Before:         func(c *cli.Context) error { return applyConfig(c, env) },
				ExitErrHandler: func(*cli.Context, error) {}, // the error is the result, not an exit
				Action:         func(c *cli.Context) error { got, gotErr = optionsFrom(c); return nil }}
			if err := a.Run(append([]string{"agent-chat"}, tt.args...)); err != nil {
				gotErr = err // config.toml and AGENT_ variables are read before the flags are checked
			}
			if tt.code != 0 {
				if gotErr == nil || exit.Code(gotErr) != tt.code || gotErr.Error() != tt.message {
					t.Fatalf("err = %v (code %d), want %q (code %d)", gotErr, exit.Code(gotErr), tt.message, tt.code)
				}
				return
			}
			if gotErr != nil {
				t.Fatal(gotErr)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(Options{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

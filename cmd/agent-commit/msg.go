package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/configfile"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/commit"
	"github.com/agentutils/agentutils/lib/config"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
)

func msgCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "msg",
		Usage: "print a commit message for the staged changes, written by the model",
		Description: "Reads the staged diff (git diff --cached; lock files are named but not shown, the diff is cut " +
			"at 120,000 characters), asks the model for the message as JSON, and checks the rendered message " +
			"with the lint rules (and the repository's commitlint config); a message that fails is sent back " +
			"with the problems, up to --attempts times. Never stages and never commits. Exit 1 when nothing " +
			"is staged or no valid message came back.\n\n" +
			"Examples:\n\n" +
			"   agent-commit msg\n" +
			"   agent-commit msg --context 'fixes the flaky CI job' --model anthropic/claude-haiku-4-5\n" +
			"   git commit -F <(agent-commit msg)\n" +
			"   agent-commit msg -n 3 | jq -r .message\n" +
			"   agent-commit msg --replay cassette.jsonl   # offline, from a recorded exchange",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `PATTERN` (default: config.toml's modelRoles.commit, fast or default role, else the catalog's default with a key)"},
			&cli.StringFlag{Name: "context", Aliases: []string{"c"}, Usage: "free `TEXT` from you, added to the prompt"},
			&cli.IntFlag{Name: "attempts", Usage: "model calls before giving up on an invalid message", Value: 3},
			&cli.StringFlag{Name: "replay", Usage: "answer model requests from cassette `FILE` (offline, no key needed)"},
			&cli.StringFlag{Name: "record", Usage: "record the model exchange to cassette `FILE`"},
			&cli.IntFlag{Name: "n", Usage: "write `N` candidates, one JSON line each ({\"candidate\",\"message\"})", Value: 1},
			&cli.BoolFlag{Name: "no-map-reduce", Usage: "always send the (cut) diff in one call, even for big changes"},
			&cli.IntFlag{Name: "concurrency", Usage: "parallel per-file calls in the map phase of a big change", Value: commit.MapReduceConcurrency},
			&cli.StringFlag{Name: "profile", Usage: "lint profile the message must pass: conventional or strict", Value: "conventional"},
			&cli.StringFlag{Name: "config", Usage: "plain-JSON commitlint config `FILE` (default: discovered in the repository root)"},
			&cli.StringFlag{Name: "models-file", Usage: "models.toml `FILE` (default: the config dir's)"},
		},
		Action: func(c *cli.Context) error { return runMsg(c, env) },
	}
}

func runMsg(c *cli.Context, env *app.Env) error {
	if c.NArg() > 0 {
		return exit.Errorf(exit.Usage, "msg takes no arguments")
	}
	n := c.Int("n")
	if n < 1 {
		return exit.Errorf(exit.Usage, "-n must be at least 1")
	}
	cfg, err := msgSetup(c, env)
	if err != nil {
		return err
	}
	i := 0
	return generateMessages(c, env, cfg, n, nil, func(a commit.Analysis) error {
		m := a.Render()
		i++
		if n == 1 {
			_, err := fmt.Fprintln(env.Stdout, m)
			return err
		}
		// Several candidates: one JSON line each, as they come.
		b, _ := json.Marshal(struct {
			Candidate int    `json:"candidate"`
			Message   string `json:"message"`
		}{i, m})
		_, err := fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	})
}

// msgSetup checks msg's flags, reads the lint configuration and checks
// that the command runs in a repository: what msg and commit refuse before
// they stage, change or ask anything.
func msgSetup(c *cli.Context, env *app.Env) (commit.Config, error) {
	if c.Int("attempts") < 1 {
		return nil, exit.Errorf(exit.Usage, "--attempts must be at least 1")
	}
	if c.String("record") != "" && c.String("replay") != "" {
		return nil, exit.Errorf(exit.Usage, "--record and --replay cannot be combined")
	}
	cfg, err := lintConfig(c, env)
	if err != nil {
		return nil, err
	}
	return cfg, inRepo(c, env)
}

// generateMessage asks the model for one message for the staged diff, with
// changelog entries for targets when there are any.
func generateMessage(c *cli.Context, env *app.Env, cfg commit.Config, targets []commit.ChangelogTarget) (commit.Analysis, error) {
	var msg commit.Analysis
	err := generateMessages(c, env, cfg, 1, targets, func(a commit.Analysis) error { msg = a; return nil })
	return msg, err
}

// generateMessages asks the model for n messages for the staged diff, each
// re-asked until it passes lint (and, with targets, carries valid changelog
// entries for them), and hands each to emit. msgSetup has run.
func generateMessages(c *cli.Context, env *app.Env, cfg commit.Config, n int, targets []commit.ChangelogTarget, emit func(commit.Analysis) error) error {
	files, _, err := stagedDiff(c.Context, env, false, "-M", "--no-ext-diff", "--ignore-submodules")
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return exit.Errorf(exit.Failure, "nothing staged (git add the changes first)")
	}
	numstat, err := git(c.Context, env, "diff", "--cached", "-M", "--numstat", "--ignore-submodules")
	if err != nil {
		return err
	}
	var scopes commit.ScopeHint
	scopes.Cands, scopes.Wide, scopes.Pattern = commit.Scopes(commit.ParseNumstat(numstat))

	client, model, opts, done, err := modelClient(c, env)
	if err != nil {
		return err
	}
	defer done()
	prompt := commit.MsgPrompt(files, scopes, c.String("context"))
	if mapped, big := commit.MapFiles(files); big && !c.Bool("no-map-reduce") {
		obs, err := mapPhase(c, env, client, model, opts, mapped)
		if err != nil {
			return err
		}
		prompt = commit.ReducePrompt(mapped, obs, scopes, c.String("context"))
	}
	if len(targets) > 0 {
		prompt += commit.ChangelogPrompt(targets)
	}
	lc := llm.Context{SystemPrompt: commit.MsgSystemPrompt,
		Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock(prompt)}, Timestamp: env.Now().UnixMilli()}}}
	base := lc.Messages
	for cand := 0; cand < n; cand++ {
		lc.Messages = base
		var last string
		ok := false
		for i := 0; i < c.Int("attempts"); i++ {
			reply, err := client.Stream(c.Context, model, lc, opts, func(llm.Event) {})
			if err != nil {
				return exit.Errorf(exit.Usage, "%v", err)
			}
			if reply.StopReason == llm.StopError || reply.StopReason == llm.StopAborted {
				return exit.Errorf(exit.Failure, "model: %s", reply.ErrorMessage)
			}
			text := reply.Text()
			a, perr := commit.ParseAnalysis(text)
			problems := ""
			if perr != nil {
				problems = perr.Error()
			} else {
				problems = a.Check(cfg)
				if len(targets) > 0 {
					problems = strings.TrimSpace(problems + "\n" + commit.CheckChangelog(a.Changelog, targets))
				}
			}
			if problems == "" {
				ok = true
				if err := emit(a); err != nil {
					return err
				}
				break
			}
			last = problems
			lc.Messages = append(lc.Messages, reply, llm.Message{Role: "user", Timestamp: env.Now().UnixMilli(),
				Content: []llm.Content{llm.TextBlock("That message does not pass the checks:\n" + problems + "\nAnswer again with the corrected JSON object only.")}})
		}
		if !ok {
			return exit.Errorf(exit.Failure, "no valid message after %d attempts; last problems: %s", c.Int("attempts"), strings.ReplaceAll(last, "\n", "; "))
		}
	}
	return nil
}

// mapPhase asks for observations on each file of a big change, at most
// --concurrency calls at a time, each tried up to MapAttempts times with a
// linear backoff. A file whose calls all fail gets no observation.
func mapPhase(c *cli.Context, env *app.Env, client *provider.Client, model llm.Model, opts llm.Options, files []commit.FileDiff) ([]string, error) {
	n := c.Int("concurrency")
	if n < 1 {
		return nil, exit.Errorf(exit.Usage, "--concurrency must be at least 1")
	}
	mapOpts := opts
	mapOpts.MaxTokens = 400
	obs := make([]string, len(files))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			lc := llm.Context{SystemPrompt: commit.MapSystemPrompt, Messages: []llm.Message{{Role: "user",
				Content: []llm.Content{llm.TextBlock(commit.MapPrompt(f))}, Timestamp: env.Now().UnixMilli()}}}
			for a := 1; a <= commit.MapAttempts; a++ {
				reply, err := client.Stream(c.Context, model, lc, mapOpts, func(llm.Event) {})
				if err == nil && reply.StopReason != llm.StopError && reply.StopReason != llm.StopAborted {
					obs[i] = reply.Text()
					return
				}
				if err != nil || c.Context.Err() != nil {
					break // a replay mismatch or an interrupt: retrying cannot help
				}
				select {
				case <-time.After(time.Duration(a) * time.Second):
				case <-c.Context.Done():
					return
				}
			}
			obs[i] = "(no observation: the model call failed)"
		}()
	}
	wg.Wait()
	if err := c.Context.Err(); err != nil {
		return nil, err
	}
	return obs, nil
}

// commitModel is the model pattern to use and where it comes from:
// --model, else config.toml's (or the variables') modelRoles.commit, then
// modelRoles.fast, then modelRoles.default (AGENT_MODEL), as the
// reference agent tries its roles; "" leaves the catalog's default.
func commitModel(c *cli.Context, env *app.Env) (pattern, where string, err error) {
	if p := c.String("model"); p != "" {
		return p, "--model", nil
	}
	cfg, err := configfile.Load(env.Dir, env.Getenv, nil)
	if err != nil {
		return "", "", exit.Wrap(exit.Usage, err)
	}
	for _, key := range []string{"modelRoles.commit", "modelRoles.fast", "modelRoles.default"} {
		if v := cfg.Get(key); v.Source != config.Default && v.String() != "" {
			if v.Where == "" {
				v.Where = key
			}
			return v.String(), v.Where, nil
		}
	}
	return "", "", nil
}

// modelClient resolves the model and key the way agent-chat does (same
// catalog, models.toml and key variables) and sets up --record/--replay.
func modelClient(c *cli.Context, env *app.Env) (*provider.Client, llm.Model, llm.Options, func(), error) {
	none := func() {}
	cat, err := provider.LoadCatalog(env.Abs(c.String("models-file")), env.Getenv) // agent-chat's loader
	if err != nil {
		return nil, llm.Model{}, llm.Options{}, none, err
	}
	var model llm.Model
	p, where, err := commitModel(c, env)
	if err != nil {
		return nil, model, llm.Options{}, none, err
	}
	if p != "" {
		if model, _, err = cat.Resolve(p); err != nil {
			return nil, model, llm.Options{}, none, exit.Errorf(exit.Usage, "%s: %v", where, err)
		}
	} else {
		m, ok := cat.Default(func(m llm.Model) bool {
			k, err := cat.ResolveKey(m, "", env.Getenv)
			return err == nil && k.Given()
		})
		if !ok {
			return nil, model, llm.Options{}, none, exit.Errorf(exit.Usage, "no model: pass --model provider/id or set a provider key such as ANTHROPIC_API_KEY")
		}
		model = m
	}
	opts := llm.Options{MaxTokens: 2400}
	if c.String("replay") == "" {
		k, err := cat.ResolveKey(model, "", env.Getenv)
		if err != nil {
			return nil, model, opts, none, exit.Wrap(exit.Usage, err)
		}
		if k.Command != "" || k.Login != "" {
			return nil, model, opts, none, exit.Errorf(exit.Usage, "%s: key commands and logins are only supported by agent-chat", k.Source)
		}
		opts.APIKey = k.Value
	}
	client := &provider.Client{HTTP: http.DefaultClient, Now: env.Now}
	if opts.APIKey != "" {
		client.Secrets = []string{opts.APIKey}
	}
	done, err := client.UseCassettes(c.String("record"), c.String("replay"), func(f string) string { return abs(env, f) })
	if err != nil {
		return nil, model, opts, none, exit.Wrap(exit.Usage, err)
	}
	return client, model, opts, done, nil
}

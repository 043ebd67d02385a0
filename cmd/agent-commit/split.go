package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/commit"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
)

func splitCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "split",
		Usage:     "make several atomic commits from the staged changes: the model plans them, or you give the plan",
		ArgsUsage: "[PLAN.json|-]",
		Description: "Without PLAN the model makes the plan (the reference's agentic split): it reads the captured staged " +
			"diff through read-only tools (git_overview, git_file_diff, git_hunk) and finishes with split_commit, whose " +
			"plan is checked (every staged file in one commit, hunk selectors in range, dependencies acyclic, every " +
			"message passing lint) and sent back with the problems until it is valid (up to 3 reminders, 16 turns). " +
			"The plan is {\"commits\":[{\"type\",\"scope\",\"summary\",\"details\",\"changes\":[{\"path\",\"kind\":" +
			"\"all\"|\"indices\"|\"lines\",…}],\"dependencies\":[0-based commit indexes]}]} (hunk indices are 1-based). " +
			"The staged diff is captured once (--binary --full-index), each commit's patch is cut from it and applied " +
			"to a private index in dependency order, so new files are not lost and unstaged edits never leak in; HEAD " +
			"moves only when every commit was made, and your index keeps whatever the plan left staged. A file goes " +
			"in one commit; staged lock files the plan omits join the commit that touches their manifest. " +
			"The commits are made with git commit-tree, so commit hooks do not run. --dry-run prints the plan as " +
			"JSON (the same shape, with each commit's message and patch, the order and the warnings), which split " +
			"PLAN.json accepts back. Exit 1 when nothing is staged or no valid plan came back.\n\n" +
			"Examples:\n\n" +
			"   agent-commit split --dry-run > plan.json     # the model's plan, nothing changes\n" +
			"   agent-commit split plan.json && git log -p\n" +
			"   agent-commit split --context 'keep the refactor apart from the fix'",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan as JSON; commit nothing"},
			&cli.StringFlag{Name: "profile", Usage: "lint profile the messages must pass: conventional or strict", Value: "conventional"},
			&cli.StringFlag{Name: "config", Usage: "plain-JSON commitlint config `FILE` (default: discovered in the repository root)"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `PATTERN` that plans (default: as msg's --model)"},
			&cli.StringFlag{Name: "context", Aliases: []string{"c"}, Usage: "free `TEXT` from you, added to the prompt"},
			&cli.StringFlag{Name: "replay", Usage: "answer model requests from cassette `FILE` (offline, no key needed)"},
			&cli.StringFlag{Name: "record", Usage: "record the model exchange to cassette `FILE`"},
			&cli.StringFlag{Name: "models-file", Usage: "models.toml `FILE` (default: the config dir's)"},
		},
		Action: func(c *cli.Context) error { return runSplit(c, env) },
	}
}

func runSplit(c *cli.Context, env *app.Env) error {
	if c.NArg() > 1 {
		return exit.Errorf(exit.Usage, "split takes at most one PLAN.json (or - for stdin)")
	}
	name := c.Args().First()
	given, err := givenSplitPlan(c, env, name)
	if err != nil {
		return err
	}
	cfg, err := lintConfig(c, env)
	if err != nil {
		return err
	}
	if err := inRepo(c, env); err != nil {
		return err
	}
	files, spool, err := stagedDiff(c.Context, env, true, "--binary", "--full-index", "--no-renames", "--no-ext-diff", "--ignore-submodules")
	if err != nil {
		return err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	if len(files) == 0 {
		return exit.Errorf(exit.Failure, "nothing staged (git add the changes first)")
	}
	var plan commit.SplitPlan
	if given != nil {
		plan = *given
	} else if plan, err = modelSplitPlan(c, env, files, cfg); err != nil {
		return err
	}
	run, err := commit.PlanSplit(plan, files, cfg)
	if err != nil {
		return exit.Errorf(exit.Failure, "invalid plan: %v", err)
	}
	for _, w := range run.Warnings {
		app.Warnf(c, "%s", w)
	}
	if c.Bool("dry-run") {
		return printSplitDryRun(env, run, spool, given != nil)
	}
	return applySplit(c.Context, env, run.Plan, run.Order, spool, run.Patches)
}

// maxShownPatch is the largest patch --dry-run prints (patch_bytes is always there).
const maxShownPatch = 1 << 20

// modelSplitPlan runs the planner: the model calls the read-only tools,
// answered from the captured diff, until split_commit returns valid; a model
// that stops without it is reminded up to SplitReminders times.
func modelSplitPlan(c *cli.Context, env *app.Env, files []commit.FileDiff, cfg commit.Config) (commit.SplitPlan, error) {
	client, model, opts, done, err := modelClient(c, env)
	if err != nil {
		return commit.SplitPlan{}, err
	}
	defer done()
	opts.MaxTokens = 8000 // a plan of many commits is long
	if model.MaxTokens > 0 && model.MaxTokens < opts.MaxTokens {
		opts.MaxTokens = model.MaxTokens
	}
	agent := &commit.SplitAgent{Files: files, Cfg: cfg}
	now := func() int64 { return env.Now().UnixMilli() }
	lc := llm.Context{SystemPrompt: commit.SplitSystemPrompt, Tools: commit.SplitTools(),
		Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock(agent.SplitUserPrompt(c.String("context")))}, Timestamp: now()}}}
	reminders, last := 0, ""
	for turn := 0; turn < commit.SplitAgentMaxTurns; turn++ {
		reply, err := client.Stream(c.Context, model, lc, opts, func(llm.Event) {})
		if err != nil {
			return commit.SplitPlan{}, exit.Errorf(exit.Usage, "%v", err)
		}
		if reply.StopReason == llm.StopError || reply.StopReason == llm.StopAborted {
			return commit.SplitPlan{}, exit.Errorf(exit.Failure, "model: %s", reply.ErrorMessage)
		}
		lc.Messages = append(lc.Messages, reply)
		calls := reply.ToolCalls()
		if len(calls) == 0 {
			if reminders == commit.SplitReminders {
				break
			}
			reminders++
			lc.Messages = append(lc.Messages, llm.Message{Role: "user", Timestamp: now(), Content: []llm.Content{llm.TextBlock(commit.SplitReminder(reminders))}})
			continue
		}
		for _, call := range calls {
			text, isErr := agent.Call(call.Name, call.Arguments)
			if call.Name == "split_commit" && agent.Plan == nil {
				last = text
			}
			lc.Messages = append(lc.Messages, llm.Message{Role: "toolResult", ToolCallID: call.ID, ToolName: call.Name,
				Content: []llm.Content{llm.TextBlock(text)}, IsError: isErr, Timestamp: now()})
		}
		if agent.Plan != nil {
			return *agent.Plan, nil
		}
	}
	if last != "" {
		return commit.SplitPlan{}, exit.Errorf(exit.Failure, "the model gave no valid split plan; its last one: %s", oneLine(last))
	}
	return commit.SplitPlan{}, exit.Errorf(exit.Failure, "the model gave no split plan (no split_commit call after %d reminders)", commit.SplitReminders)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// inRepo checks that the command runs inside a git work tree.
func inRepo(c *cli.Context, env *app.Env) error {
	out, err := git(c.Context, env, "rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(out) != "true" {
		return exit.Errorf(exit.Usage, "not a git repository (or inside .git): %s", env.Dir)
	}
	return nil
}

// applySplit makes the commits on a private index and moves HEAD once.
func applySplit(ctx context.Context, env *app.Env, plan commit.SplitPlan, order []int, diff io.ReaderAt, patches map[int][]commit.Span) error {
	tmp, err := os.CreateTemp("", "agent-commit-index-*")
	if err != nil {
		return err
	}
	tmp.Close()
	os.Remove(tmp.Name()) // git creates it
	defer os.Remove(tmp.Name())
	top, err := git(ctx, env, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	// At the top level: git apply run in a subdirectory skips the paths
	// outside it.
	root := strings.TrimSpace(top)
	run := func(stdin io.Reader, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = root
		cmd.Env = append(env.Environment(), "GIT_INDEX_FILE="+tmp.Name(), "AGENT_COMMIT_ACTIVE=1")
		cmd.Stdin = stdin
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(errb.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	parent, err := run(nil, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		parent = "" // an unborn branch
		if _, err := run(nil, "read-tree", "--empty"); err != nil {
			return exit.Wrap(exit.Failure, err)
		}
	} else if _, err := run(nil, "read-tree", parent); err != nil {
		return exit.Wrap(exit.Failure, err)
	}
	old := parent
	var made []string
	for _, i := range order {
		msg := plan.Commits[i].Render()
		if _, err := run(commit.SpanReader(diff, patches[i]), "apply", "--cached", "--binary", "-"); err != nil {
			return exit.Errorf(exit.Failure, "commit %d (%s): %v; nothing was committed", i, firstLine(msg), err)
		}
		tree, err := run(nil, "write-tree")
		if err != nil {
			return exit.Wrap(exit.Failure, err)
		}
		args := []string{"commit-tree", tree, "-F", "-"}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		if parent, err = run(strings.NewReader(msg+"\n"), args...); err != nil {
			return exit.Errorf(exit.Failure, "commit %d: %v; nothing was committed", i, err)
		}
		made = append(made, parent)
	}
	ref := []string{"update-ref", "-m", "agent-commit split", "HEAD", parent}
	if old != "" {
		ref = append(ref, old)
	}
	if _, err := git(ctx, env, ref...); err != nil {
		return exit.Errorf(exit.Failure, "HEAD moved while splitting: %v", err)
	}
	for k, i := range order {
		fmt.Fprintf(env.Stdout, "%s %s\n", made[k][:12], firstLine(plan.Commits[i].Render()))
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// givenSplitPlan reads the plan named on the command line (nil when none:
// the model makes it).
func givenSplitPlan(c *cli.Context, env *app.Env, name string) (*commit.SplitPlan, error) {
	if name == "" {
		if c.String("record") != "" && c.String("replay") != "" {
			return nil, exit.Errorf(exit.Usage, "--record and --replay cannot be combined")
		}
		return nil, nil
	}
	for _, f := range []string{"model", "context", "replay", "record", "models-file"} {
		if c.IsSet(f) {
			return nil, exit.Errorf(exit.Usage, "--%s is for a plan made by the model; %s is given", f, name)
		}
	}
	name, data, err := readInput(env, name)
	if err != nil {
		return nil, err
	}
	plan, err := commit.ParseSplitPlan(data)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "%s: %v", name, err)
	}
	return &plan, nil
}

// printSplitDryRun prints the plan, its commits' messages and patches as JSON.
func printSplitDryRun(env *app.Env, run commit.SplitRun, spool *os.File, fromFile bool) error {
	type step struct {
		commit.SplitCommit
		Message    string `json:"message"`
		Patch      string `json:"patch,omitempty"`
		PatchBytes int64  `json:"patch_bytes"`
	}
	out := struct {
		Source   string   `json:"source"`
		Commits  []step   `json:"commits"`
		Order    []int    `json:"order"`
		Warnings []string `json:"warnings"`
	}{Source: "model", Order: run.Order, Warnings: append([]string{}, run.Warnings...)}
	if fromFile {
		out.Source = "file"
	}
	for i, sc := range run.Plan.Commits {
		st := step{SplitCommit: sc, Message: sc.Render()}
		for _, sp := range run.Patches[i] {
			st.PatchBytes += sp.Len
		}
		if st.PatchBytes <= maxShownPatch {
			b, err := io.ReadAll(commit.SpanReader(spool, run.Patches[i]))
			if err != nil {
				return err
			}
			st.Patch = string(b)
		}
		out.Commits = append(out.Commits, st)
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	_, err := fmt.Fprintf(env.Stdout, "%s\n", b)
	return err
}

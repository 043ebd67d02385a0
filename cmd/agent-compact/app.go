package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:  "agent-compact",
		Usage: "compaction as a filter over a session stream",
		Description: `agent-compact reads the session stream ('agent-session open') on stdin and writes it on stdout.
With nothing to do the output equals the input byte for byte. Old tool output is pruned (the newest
40k tokens of it and read results are kept; pruning happens only when it saves 20k tokens): the
pruned records are written in place with the same id and "pending": true. When the context is
over the threshold (window - max(15% of window, --reserve-tokens)), when the last assistant message
is a context overflow of the current model, or with --force, the older part of the path is
summarized by the model and one new compaction record is appended with "pending": true; the
shared resolver then uses the summary plus the kept entries, and 'agent-session append' persists it.

With --branch-summary --from OLD --to TARGET (input: 'agent-session open --all') it prints only one
pending branch_summary record: the summary of the branch being left (OLD back to the common ancestor,
newest messages first within the window, tool results left out), for 'agent-session checkout
--summary-from -'. --instructions replaces the branch-summary prompt.

Exit codes: 0 passed through or compacted; 1 a forced or overflow compaction failed (stdout then
holds only an error record, so a pipeline stops); a failed threshold compaction warns and passes
the stream through.

Examples:
   agent-session open "$S" | agent-compact | agent-chat "go on" | agent-session append "$S" --tee
   agent-session open "$S" | agent-compact --force --instructions "keep the API decisions" | agent-session append "$S"
   agent-session open "$S" | agent-compact --dry-run --force | jq .
   agent-session open "$S" | agent-compact --model anthropic/claude-haiku-4-5 --model openai/gpt-5-mini | agent-chat "go on"
   agent-session open --all "$S" | agent-compact --branch-summary --from "$OLD" --to "$T" | agent-session checkout "$S" "$T" --summary-from -
   agent-compact --force --summarizer-cmd 'agent-chat --once --model google/gemini-2.5-flash --system-prompt "$AGENT_COMPACT_SYSTEM_PROMPT"' < s.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "compact now, whatever the threshold"},
			&cli.StringFlag{Name: "instructions", Usage: "`TEXT` the summary should focus on"},
			&cli.StringSliceFlag{Name: "settings", Usage: "Claude-Code-style settings `FILE` whose PreCompact hooks run before a summary is made (trigger manual with --force, else auto); repeatable"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan (tokens, cut point, what is summarized and kept) as JSON; call no model"},
			&cli.BoolFlag{Name: "no-prune", Usage: "do not prune old tool output"},
			&cli.BoolFlag{Name: "prune-only", Usage: "prune, never compact"},
			&cli.BoolFlag{Name: "branch-summary", Usage: "write the branch_summary record for leaving --from for --to (input: 'agent-session open --all')"},
			&cli.StringFlag{Name: "from", Usage: "the old leaf `ENTRY` of --branch-summary"},
			&cli.StringFlag{Name: "to", Usage: "the target `ENTRY` of --branch-summary (root for the root)"},
			&cli.StringFlag{Name: "events", Usage: "`WHERE` progress events go: stderr (compaction_start/compaction_end, formats/events) or none", Value: "none"},
			&cli.StringFlag{Name: "summarizer-cmd", Usage: "hand the summarization to shell `CMD` (a session stream with the prompt on its stdin, $AGENT_COMPACT_SYSTEM_PROMPT; agent events or plain text out)"},
			&cli.StringSliceFlag{Name: "model", Usage: "summarize with `PATTERN`; repeat for candidates tried in order (default: the stream's model)"},
			&cli.IntFlag{Name: "context-window", Usage: "the window in `TOKENS` (default: the model's)"},
			&cli.IntFlag{Name: "reserve-tokens", Value: 16384, Usage: "`TOKENS` reserved below the window"},
			&cli.IntFlag{Name: "keep-recent-tokens", Value: 20000, Usage: "`TOKENS` of recent conversation kept verbatim"},
			&cli.StringFlag{Name: "api-key", Usage: "API `KEY` for the model's provider"},
			&cli.StringFlag{Name: "models-file", Usage: "models.toml `FILE`"},
			&cli.StringFlag{Name: "record", Usage: "write the summarization exchange to cassette `FILE`"},
			&cli.StringFlag{Name: "replay", Usage: "answer the summarization from cassette `FILE` (offline)"},
		},
		Action: func(c *cli.Context) error { return run(c, env) },
	}
}

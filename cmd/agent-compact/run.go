package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/compact"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/session"
)

func run(c *cli.Context, env *app.Env) error {
	env.ErrorRecord = true
	// Read the whole stream: its lines (for pass-through) and its records.
	var lines [][]byte
	var path []session.Record
	var header *session.Header
	r := bufio.NewReaderSize(env.Stdin, 256<<10)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			t := bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(t)) > 0 {
				rec, perr := session.ParseRecord(t)
				if perr != nil {
					return exit.Errorf(exit.Usage, "stdin:%d: not a session record: %v", n, perr)
				}
				switch rec.Type {
				case "error":
					env.Stdout.Write(append(append([]byte(nil), t...), '\n'))
					return exit.Silent(exit.Failure)
				case "session":
					if header == nil {
						h, _ := session.ParseHeader(t)
						header = &h
					}
				default:
					path = append(path, rec)
				}
				lines = append(lines, append([]byte(nil), t...))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	settings := compact.Settings{ReserveTokens: c.Int("reserve-tokens"), KeepRecentTokens: c.Int("keep-recent-tokens"),
		ProtectTokens: compact.Defaults.ProtectTokens, MinimumSavings: compact.Defaults.MinimumSavings}
	sctx, err := session.BuildContext(path, nil)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	cat, err := loadCatalog(c, env)
	if err != nil {
		return err
	}
	pattern := c.String("model")
	if pattern == "" {
		pattern = sctx.Models["default"]
	}
	var model llm.Model
	if pattern != "" {
		if model, _, err = cat.Resolve(pattern); err != nil && (c.Bool("force") || c.String("replay") != "") {
			return exit.Wrap(exit.Usage, err)
		}
	}
	window := c.Int("context-window")
	if window == 0 {
		window = model.ContextWindow
	}

	// Overflow: the last assistant message failed because the context is too big.
	overflow := false
	if n := len(sctx.Messages); n > 0 {
		var last llm.Message
		if json.Unmarshal(sctx.Messages[n-1], &last) == nil && last.Role == "assistant" && last.StopReason == llm.StopError {
			overflow = llm.IsOverflow(last, window)
		}
	}
	force := c.Bool("force") || overflow

	// Pruning, unless forced or disabled.
	var pruned []compact.Pruned
	saved := 0
	if !c.Bool("no-prune") && !force {
		pruned, saved = compact.Prune(path, settings, env.Now().UnixMilli())
	}
	tokens := compact.ContextTokens(path) - saved
	compactNow := force || (!c.Bool("prune-only") && compact.OverThreshold(tokens, window, settings.ReserveTokens))

	if c.Bool("dry-run") {
		plan, ok := compact.Prepare(path, settings)
		out := map[string]any{"compact": compactNow && ok, "reason": reason(force, overflow, compactNow), "tokens": tokens,
			"contextWindow": window, "prunedEntries": len(pruned), "prunedTokens": saved}
		if ok {
			out["plan"] = plan
			out["estimatedTokensAfter"] = plan.KeptTokens
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		_, err := fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	}

	var rec []byte
	if compactNow {
		plan, ok := compact.Prepare(path, settings)
		if ok {
			rec, err = summarize(c, env, cat, model, header, path, plan)
			if err != nil {
				if force {
					return exit.Errorf(exit.Failure, "compaction failed: %v", err)
				}
				app.Warnf(c, "compaction failed (the stream passes through): %v", err)
				rec = nil
			}
		}
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	byIndex := map[int][]byte{}
	for _, p := range pruned {
		byIndex[p.Index] = p.Raw
	}
	ei := 0
	for _, l := range lines {
		if h, err := session.Peek(l); err == nil && h.Type != "session" {
			if repl, ok := byIndex[ei]; ok {
				l = repl
			}
			ei++
		}
		w.Write(l)
		w.WriteByte('\n')
	}
	if rec != nil {
		w.Write(rec)
		w.WriteByte('\n')
	}
	return nil
}

func reason(force, overflow, compactNow bool) string {
	switch {
	case overflow:
		return "overflow"
	case force:
		return "forced"
	case compactNow:
		return "threshold"
	}
	return ""
}

// summarize asks the model for the summary and builds the compaction record.
func summarize(c *cli.Context, env *app.Env, cat *llm.Catalog, model llm.Model, header *session.Header, path []session.Record, plan compact.Plan) ([]byte, error) {
	if model.ID == "" {
		return nil, fmt.Errorf("no model to summarize with: pass --model provider/id")
	}
	client := &provider.Client{HTTP: http.DefaultClient, Now: env.Now}
	opts := llm.Options{MaxTokens: c.Int("reserve-tokens") * 8 / 10, Thinking: "off"}
	if f := c.String("replay"); f != "" {
		data, err := os.ReadFile(absPath(env, f))
		if err != nil {
			return nil, err
		}
		if client.Replay, err = provider.ReadCassette(f, data); err != nil {
			return nil, err
		}
	} else {
		k, err := cat.ResolveKey(model, c.String("api-key"), env.Getenv)
		if err != nil {
			return nil, err
		}
		opts.APIKey = k.Value
	}
	if f := c.String("record"); f != "" {
		fh, err := os.Create(absPath(env, f))
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		client.Record = provider.NewRecorder(fh)
		client.Secrets = []string{opts.APIKey}
	}
	ask := func(prompt string) (string, error) {
		msgs := []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock(prompt)}, Timestamp: env.Now().UnixMilli()}}
		m, err := client.Stream(context.Background(), model, llm.Context{SystemPrompt: compact.SystemPrompt, Messages: msgs}, opts, func(llm.Event) {})
		if err != nil {
			return "", err
		}
		if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			return "", fmt.Errorf("Summarization failed: %s", m.ErrorMessage)
		}
		return strings.TrimSpace(m.Text()), nil
	}
	conv := func(msgs []json.RawMessage) string { return compact.Serialize(session.ConvertToLLM(msgs)) }
	var summary string
	var err error
	switch {
	case len(plan.Summarize) > 0:
		summary, err = ask(compact.HistoryPrompt(conv(plan.Summarize), plan.PreviousSummary, c.String("instructions")))
	case plan.PreviousSummary != "":
		summary = plan.PreviousSummary
	default:
		summary = compact.NoHistory
	}
	if err != nil {
		return nil, err
	}
	if plan.SplitTurn && len(plan.TurnPrefix) > 0 {
		prefix, err := ask(compact.TurnPrefixPrompt(conv(plan.TurnPrefix)))
		if err != nil {
			return nil, err
		}
		summary = compact.MergeSplit(summary, prefix)
	}
	read, mod := plan.Files.Lists()
	summary = compact.UpsertFileLists(summary, read, mod)
	parent := ""
	if n := len(path); n > 0 {
		parent = path[n-1].ID
	}
	id := session.NewEntryID(rand.Reader, func(string) bool { return false })
	if read == nil {
		read = []string{}
	}
	if mod == nil {
		mod = []string{}
	}
	return json.Marshal(struct {
		Type             string `json:"type"`
		ID               string `json:"id"`
		ParentID         string `json:"parentId"`
		Timestamp        string `json:"timestamp"`
		Summary          string `json:"summary"`
		FirstKeptEntryID string `json:"firstKeptEntryId"`
		TokensBefore     int    `json:"tokensBefore"`
		Details          any    `json:"details"`
		Pending          bool   `json:"pending"`
	}{"compaction", id, parent, session.FormatTime(env.Now()), summary, plan.FirstKeptEntryID, plan.TokensBefore,
		map[string][]string{"readFiles": read, "modifiedFiles": mod}, true})
}

func absPath(env *app.Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

func loadCatalog(c *cli.Context, env *app.Env) (*llm.Catalog, error) {
	path := c.String("models-file")
	explicit := path != ""
	if !explicit {
		path = filepath.Join(dirs.Resolve(env.Getenv).Config, "models.toml")
	} else {
		path = absPath(env, path)
	}
	data, err := os.ReadFile(path)
	if err != nil && (explicit || !os.IsNotExist(err)) {
		return nil, exit.Wrap(exit.Usage, err)
	}
	cat, err := llm.LoadCatalog(data, path, env.Getenv)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return cat, nil
}

package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// opencode keeps a session in its storage directory
// (~/.local/share/opencode/storage): session/<project>/<session id>.json
// (the session's info), message/<session id>/<message id>.json (each
// message's info) and part/<message id>/<part id>.json (its parts: text,
// reasoning, tool calls with their state and output, step-start and
// step-finish around each model response, with its tokens and cost).
// `opencode export` prints the same as one document: {info, messages:
// [{info, parts}]}. An OpencodeSession is either, read by the caller.

// OpencodeSession is an opencode session: its info and its messages in
// order, each with its parts in order.
type OpencodeSession struct {
	Info     json.RawMessage   `json:"info"`
	Messages []OpencodeMessage `json:"messages"`
}

// OpencodeMessage is a message's info and parts.
type OpencodeMessage struct {
	Info  json.RawMessage   `json:"info"`
	Parts []json.RawMessage `json:"parts"`
}

// IsOpencode tells an opencode export ({info, messages}) or a session info
// file of its storage ({id, projectID, directory, time}) by its bytes; it
// returns which ("export" or "storage") or "".
func IsOpencode(data []byte) string {
	var v struct {
		Info      *struct{ ID string } `json:"info"`
		Messages  json.RawMessage      `json:"messages"`
		ID        string               `json:"id"`
		ProjectID *string              `json:"projectID"`
		Directory *string              `json:"directory"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &v) != nil {
		return ""
	}
	switch {
	case v.Info != nil && v.Info.ID != "" && len(v.Messages) > 0:
		return "export"
	case v.ID != "" && v.ProjectID != nil && v.Directory != nil:
		return "storage"
	}
	return ""
}

type opencodeInfo struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID"`
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
}

type opencodeTokens struct {
	Input     int `json:"input"`
	Output    int `json:"output"`
	Reasoning int `json:"reasoning"`
	Cache     struct {
		Read  int `json:"read"`
		Write int `json:"write"`
	} `json:"cache"`
}

type opencodeMessageInfo struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	ModelID    string `json:"modelID"`
	ProviderID string `json:"providerID"`
	Model      struct {
		ModelID    string `json:"modelID"`
		ProviderID string `json:"providerID"`
	} `json:"model"`
	Summary json.RawMessage `json:"summary"`
	Time    struct {
		Created int64 `json:"created"`
	} `json:"time"`
	Cost   float64         `json:"cost"`
	Tokens *opencodeTokens `json:"tokens"`
	Finish string          `json:"finish"`
	Error  *struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
}

type opencodePart struct {
	ID       string            `json:"id"`
	Type     string            `json:"type"`
	Text     string            `json:"text"`
	Ignored  bool              `json:"ignored"`
	Mime     string            `json:"mime"`
	Filename string            `json:"filename"`
	URL      string            `json:"url"`
	CallID   string            `json:"callID"`
	Tool     string            `json:"tool"`
	Prompt   string            `json:"prompt"`
	Reason   string            `json:"reason"`
	Cost     float64           `json:"cost"`
	Tokens   *opencodeTokens   `json:"tokens"`
	Metadata json.RawMessage   `json:"metadata"`
	State    opencodeToolState `json:"state"`
}

type opencodeToolState struct {
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input"`
	Output      string          `json:"output"`
	Error       string          `json:"error"`
	Attachments []struct {
		Mime     string `json:"mime"`
		URL      string `json:"url"`
		Filename string `json:"filename"`
	} `json:"attachments"`
	Time struct {
		Start     int64 `json:"start"`
		End       int64 `json:"end"`
		Compacted int64 `json:"compacted"`
	} `json:"time"`
}

// Why opencode's parts are not imported.
const (
	whyStep       = "the bounds of a model response (its tokens and cost are read from step-finish)"
	whyOcSnapshot = "opencode's file snapshots for its undo"
	whyRetry      = "a failed request opencode retried"
)

// FromOpencode converts an opencode session. Each model response of an
// assistant message (the parts between step-start and step-finish) becomes
// an assistant message with the usage of its step-finish, followed by the
// results of its tool calls, as opencode sends them to the model.
func FromOpencode(s OpencodeSession, opt Options) (Result, error) {
	var res Result
	var acc accounts
	var info opencodeInfo
	if err := json.Unmarshal(s.Info, &info); err != nil {
		return res, fmt.Errorf("session info: %v", err)
	}
	b := newBuilder(opt)
	for i, m := range s.Messages {
		n := i + 1
		var mi opencodeMessageInfo
		if err := json.Unmarshal(m.Info, &mi); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) { // a field of an unexpected type: read what is there
				res.Problems = append(res.Problems, Problem{n, fmt.Errorf("message %d: %v", n, err)})
				continue
			}
		}
		var parts []opencodePart
		for j, raw := range m.Parts {
			var p opencodePart
			if err := json.Unmarshal(raw, &p); err != nil {
				var te *json.UnmarshalTypeError
				if !errors.As(err, &te) {
					res.Problems = append(res.Problems, Problem{n, fmt.Errorf("message %s part %d: %v", mi.ID, j+1, err)})
					continue
				}
			}
			parts = append(parts, p)
		}
		switch mi.Role {
		case "user":
			opencodeUser(b, mi, parts, m.Parts, n, &acc)
		case "assistant":
			opencodeAssistant(b, mi, parts, n, &acc)
		default:
			acc.kept("message/"+mi.Role, n)
			b.custom(ocTime(mi.Time.Created, opt.Now), "opencode-message", m.Info, b.after(b.last))
		}
	}
	if b.messages == 0 {
		return res, errors.New("no messages found in the session")
	}
	h := header(info.ID, time.UnixMilli(info.Time.Created).UTC().Format(time.RFC3339Nano), info.Directory, opt)
	h.Title = info.Title
	res.Sessions = []Session{{Header: h, Entries: b.done()}}
	res.Custom, res.Skipped = sorted(acc.custom), sorted(acc.skipped)
	return res, nil
}

func ocTime(ms int64, now time.Time) string {
	if ms == 0 {
		return isoOr("", now)
	}
	return isoOr(time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), now)
}

// opencodeUser converts a user message: its text and media parts, and the
// text opencode sends for a compaction or a subtask part.
func opencodeUser(b *builder, mi opencodeMessageInfo, parts []opencodePart, raws []json.RawMessage, n int, acc *accounts) {
	ts := ocTime(mi.Time.Created, b.opt.Now)
	var content []any
	for i, p := range parts {
		switch p.Type {
		case "text":
			if p.Ignored {
				acc.skip("user part text (ignored)", "text opencode does not send to the model", n)
				continue
			}
			content = append(content, text(p.Text))
		case "file":
			if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
				acc.skip("user part file "+p.Mime, "sent as the text part opencode adds beside it", n)
				continue
			}
			mime, data := dataURL(p.URL)
			if !strings.HasPrefix(mime, "image/") {
				acc.skip("user part file "+p.Mime, "no counterpart in a session", n)
				content = append(content, text("[file not imported: "+orName(p.Filename, p.URL)+" ("+p.Mime+")]"))
				continue
			}
			content = append(content, image(mime, data, p.URL))
		case "compaction":
			acc.kept("user part compaction", n)
			b.custom(ts, "opencode-compaction", raws[i], b.after(b.last))
			content = append(content, text("What did we do so far?"))
		case "subtask":
			acc.kept("user part subtask", n)
			b.custom(ts, "opencode-subtask", raws[i], b.after(b.last))
			content = append(content, text("The following tool was executed by the user"))
		default:
			acc.skip("user part "+p.Type, "no counterpart in a session", n)
		}
	}
	if len(content) == 0 {
		acc.skip("user (no content)", "an empty message", n)
		return
	}
	ms := mi.Time.Created
	b.add(ts, map[string]any{"type": "message", "message": map[string]any{"role": "user", "content": content, "timestamp": ms}}, b.after(b.last))
}

func orName(name, url string) string {
	if name != "" {
		return name
	}
	if len(url) > 80 {
		return url[:80] + "…"
	}
	return url
}

// opencodeAssistant converts an assistant message: one assistant message
// per model response, each followed by its tool results.
func opencodeAssistant(b *builder, mi opencodeMessageInfo, parts []opencodePart, n int, acc *accounts) {
	ts := ocTime(mi.Time.Created, b.opt.Now)
	model, provider := mi.ModelID, mi.ProviderID
	if model == "" {
		model, provider = mi.Model.ModelID, mi.Model.ProviderID
	}
	var steps [][]opencodePart
	var cur []opencodePart
	stepped := false
	for _, p := range parts {
		if p.Type == "step-start" {
			stepped = true
			acc.skip("step-start", whyStep, n)
			if len(cur) > 0 {
				steps = append(steps, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, p)
	}
	if len(cur) > 0 {
		steps = append(steps, cur)
	}
	summary := string(mi.Summary) == "true"
	for si, step := range steps {
		var content []any
		var calls []opencodePart
		usage, stop, cost := zeroUsage(), "stop", 0.0
		if !stepped && mi.Tokens != nil {
			usage, cost = ocUsage(*mi.Tokens), mi.Cost
			stop = ocStop(mi.Finish)
		}
		for _, p := range step {
			switch p.Type {
			case "text":
				content = append(content, text(p.Text))
			case "reasoning":
				content = append(content, map[string]any{"type": "thinking", "thinking": p.Text, "thinkingSignature": ocSignature(p.Metadata)})
			case "tool":
				content = append(content, map[string]any{"type": "toolCall", "id": p.CallID, "name": p.Tool, "arguments": objectOr(p.State.Input)})
				calls = append(calls, p)
			case "step-finish":
				acc.skip("step-finish", whyStep, n)
				if p.Tokens != nil {
					usage = ocUsage(*p.Tokens)
				}
				cost, stop = p.Cost, ocStop(p.Reason)
			case "snapshot", "patch":
				acc.skip(p.Type, whyOcSnapshot, n)
			case "retry":
				acc.skip(p.Type, whyRetry, n)
			default:
				acc.skip("assistant part "+p.Type, "no counterpart in a session", n)
			}
		}
		if len(content) == 0 {
			acc.skip("assistant step (no content)", "a model response that wrote nothing (its usage is not counted)", n)
			continue
		}
		if len(calls) > 0 && stop == "stop" {
			stop = "toolUse"
		}
		u := usage
		u["cost"] = map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}
		msg := map[string]any{"role": "assistant", "content": content, "api": ocAPI(provider), "provider": provider,
			"model": model, "stopReason": stop, "usage": u, "timestamp": mi.Time.Created}
		if mi.ID != "" {
			msg["responseId"] = fmt.Sprintf("%s#%d", mi.ID, si) // lib/usage counts a response once
		}
		if e := mi.Error; e != nil && si == len(steps)-1 {
			msg["stopReason"] = "error"
			if e.Name == "MessageAbortedError" {
				msg["stopReason"] = "aborted"
			}
			msg["errorMessage"] = strings.TrimSpace(e.Name + ": " + e.Data.Message)
		}
		last := b.addAssistant(ts, msg, b.after(b.last))
		for _, c := range calls {
			out, isErr := ocResult(c.State)
			last = b.addResult(ocTime(c.State.Time.End, b.opt.Now), c.CallID, out, isErr, last)
		}
		if summary && si == len(steps)-1 {
			b.add(ts, map[string]any{"type": "compaction", "summary": firstText(content), "firstKeptEntryId": "", "tokensBefore": 0}, last)
		}
	}
	if len(steps) == 0 {
		acc.skip("assistant (no parts)", "a response that wrote nothing", n)
	}
}

// ocResult is a tool part's result as opencode sends it to the model.
func ocResult(st opencodeToolState) ([]any, bool) {
	switch st.Status {
	case "completed":
		out := st.Output
		if st.Time.Compacted != 0 {
			out = "[Old tool result content cleared]"
		}
		content := []any{text(out)}
		if st.Time.Compacted == 0 {
			for _, a := range st.Attachments {
				if mime, data := dataURL(a.URL); strings.HasPrefix(mime, "image/") {
					content = append(content, image(mime, data, a.URL))
				}
			}
		}
		return content, false
	case "error":
		return []any{text(st.Error)}, true
	}
	return []any{text("[Tool execution was interrupted]")}, true
}

func ocUsage(t opencodeTokens) map[string]any {
	out := t.Output + t.Reasoning // reasoning is billed as output, on top of it
	return map[string]any{"input": t.Input, "output": out, "cacheRead": t.Cache.Read, "cacheWrite": t.Cache.Write,
		"totalTokens": t.Input + out + t.Cache.Read + t.Cache.Write, "cost": zeroUsage()["cost"]}
}

func ocStop(reason string) string {
	switch reason {
	case "tool-calls":
		return "toolUse"
	case "length":
		return "length"
	case "error":
		return "error"
	}
	return "stop"
}

// ocAPI is the wire API of an opencode provider id, as pi names it.
func ocAPI(provider string) string {
	switch provider {
	case "anthropic":
		return "anthropic-messages"
	case "openai":
		return "openai-responses"
	case "google":
		return "google-generative-ai"
	}
	return "openai-completions"
}

// ocSignature is an Anthropic reasoning part's signature, the only one a
// session's thinking block can carry back.
func ocSignature(meta json.RawMessage) string {
	var m struct {
		Anthropic struct {
			Signature string `json:"signature"`
		} `json:"anthropic"`
	}
	json.Unmarshal(meta, &m)
	return m.Anthropic.Signature
}

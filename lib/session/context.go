package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Context is what the model sees of a session at a leaf (the reference's
// SessionContext): the messages, and the state folded over the path.
type Context struct {
	Messages          []json.RawMessage `json:"messages"` // AgentMessages
	ThinkingLevel     string            `json:"thinkingLevel"`
	Models            map[string]string `json:"models"` // role → "provider/id"
	InjectedTtsrRules []string          `json:"injectedTtsrRules"`
	Mode              string            `json:"mode"`
	ModeData          json.RawMessage   `json:"modeData,omitempty"`
	// Header is the stream's header when BuildStream saw one.
	Header *Header `json:"-"`
}

// BuildContext resolves entries (file or stream order) at a leaf: leaf nil
// means the last entry; a leaf pointing to "" means an empty context; an
// unknown leaf is an error. Records marked pending replace the earlier
// record with the same id (agent-compact's pruned results) or are appended
// in place (its compaction). Assistant messages marked "retried" are
// dropped: they were failed attempts agent-chat sent again.
func BuildContext(entries []Record, leaf *string) (Context, error) {
	ctx := Context{ThinkingLevel: "off", Models: map[string]string{}, InjectedTtsrRules: []string{}, Mode: "none", Messages: []json.RawMessage{}}
	if len(entries) == 0 {
		return ctx, nil
	}
	id := ""
	if leaf != nil {
		if *leaf == "" { // the reference's null leaf: a reset, the next entry a new root
			return ctx, nil
		}
		id = *leaf
	}
	// path holds indexes into entries (the records are not copied).
	path, ok := ContextPath(len(entries), func(i int) *Record { return &entries[i] }, id)
	if !ok {
		return ctx, fmt.Errorf("leaf %q is not an entry of the session", id)
	}
	ctx.Messages = make([]json.RawMessage, 0, len(path))
	compaction := -1
	seenRule := map[string]bool{}
	// msgs[k] is the AgentMessage of path[k] when it is a message entry,
	// found in the same pass that reads its model: each message is skimmed
	// once, which matters for a long history.
	msgs := make([]json.RawMessage, len(path))
	var models ModelFold
	for k, i := range path {
		switch e := &entries[i]; e.Type {
		case "thinking_level_change":
			if l, _ := StrVal(MemberVals(e.Raw, "thinkingLevel")[0]); l != "" {
				ctx.ThinkingLevel = l
			}
		case "model_change":
			models.ModelChange(e.Raw)
		case "message":
			mi := messageInfo(*e)
			msgs[k] = mi.msg
			if mi.assistant {
				models.Assistant(mi.provider, mi.model)
			}
		case "compaction":
			compaction = k
		case "ttsr_injection":
			for _, rv := range elements(MemberVals(e.Raw, "injectedRules")[0]) {
				r, _ := StrVal(rv)
				if !seenRule[r] {
					seenRule[r] = true
					ctx.InjectedTtsrRules = append(ctx.InjectedTtsrRules, r)
				}
			}
		case "mode_change":
			v := MemberVals(e.Raw, "mode", "data")
			if mode, _ := StrVal(v[0]); mode != "" {
				ctx.Mode, ctx.ModeData = mode, v[1]
			}
		}
	}
	ctx.Models = models.Models()
	emit := func(k int) {
		m := msgs[k] // a message entry's, read above
		if e := &entries[path[k]]; e.Type != "message" {
			m = MessageOf(*e)
		}
		if m != nil {
			ctx.Messages = append(ctx.Messages, m)
		}
	}
	if compaction < 0 {
		for k := range path {
			emit(k)
		}
		return ctx, nil
	}
	c := entries[path[compaction]]
	cv := MemberVals(c.Raw, "summary", "shortSummary", "firstKeptEntryId", "tokensBefore")
	summary, _ := StrVal(cv[0])
	short, _ := StrVal(cv[1])
	firstKept, _ := StrVal(cv[2])
	ctx.Messages = append(ctx.Messages, mustJSON(struct {
		Role         string          `json:"role"`
		Summary      string          `json:"summary"`
		ShortSummary string          `json:"shortSummary,omitempty"`
		TokensBefore json.RawMessage `json:"tokensBefore"`
		Timestamp    int64           `json:"timestamp"`
	}{"compactionSummary", summary, short, orZero(cv[3]), millis(c.Timestamp)}))
	keeping := false
	for k, i := range path[:compaction] {
		if entries[i].ID == firstKept {
			keeping = true
		}
		if keeping {
			emit(k)
		}
	}
	for k := compaction + 1; k < len(path); k++ {
		emit(k)
	}
	return ctx, nil
}

// MemberVals is the raw value of each key (at most four) of the JSON
// object obj at its last occurrence, as encoding/json reads it (nil for a
// missing key), found in one walk. obj must be JSON already checked (a
// record's bytes or part of them, as ParseRecord checked them): it is not
// checked again.
func MemberVals(obj []byte, keys ...string) [4][]byte {
	var out [4][]byte // an array, not a slice: nothing to allocate per record
	WalkMembers(obj, func(k, v []byte) {
		for i, key := range keys {
			if string(k) == key {
				out[i] = v
			}
		}
	})
	return out
}

func orZero(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("0")
	}
	return b
}

// ContextPath is the path BuildContext resolves over n entries (file or
// stream order) read through rec, at leaf ("" = the last entry), as the
// entries' indexes, root first: a pending record with the id of an earlier
// one stands in that one's place (agent-compact's pruned results; a new
// one stays where it is), then Path walks up from leaf. ok is false when
// leaf is not an entry's id.
func ContextPath(n int, rec func(i int) *Record, leaf string) (path []int, ok bool) {
	order := pendingOrder(n, rec)
	if order == nil {
		return pathIndexes(n, rec, leaf)
	}
	path, ok = pathIndexes(len(order), func(k int) *Record { return rec(order[k]) }, leaf)
	for k, p := range path {
		path[k] = order[p]
	}
	return path, ok
}

// pendingOrder is the entries' order once pending records are folded in:
// one with the id of an earlier record replaces it in place, a new one
// stays where it is. It is nil when no record is pending (every entry, in
// order).
func pendingOrder(n int, rec func(i int) *Record) []int {
	has := false
	for i := range n {
		if rec(i).Pending {
			has = true
			break
		}
	}
	if !has {
		return nil
	}
	out := make([]int, 0, n)
	pos := make(map[string]int, n)
	for i := range n {
		e := rec(i)
		if p, ok := pos[e.ID]; ok && e.Pending {
			out[p] = i
			continue
		}
		if e.ID != "" {
			pos[e.ID] = len(out)
		}
		out = append(out, i)
	}
	return out
}

// ModelFold folds the models over a path as BuildContext does, for a
// caller that walks a path itself (agent-compact), so that the two never
// disagree: a model_change sets its role's model (no role: "default"),
// and an assistant message that names its provider and model (non-empty
// strings) sets "default"; for "default" the later of the two wins. The
// zero value is an empty fold.
type ModelFold struct {
	models map[string]string
	// provider and model are the JSON values of the last assistant message
	// that named them, when no default model_change follows it: made
	// strings once, at the end.
	provider, model []byte
}

// ModelChangeOf reads a model_change entry (its record's bytes): the
// model as "provider/id" and its role ("default" when absent). pi's
// shape ("provider", "modelId": what we write) and the reference's
// ("model", "role"; what agent-chat wrote before) are both read; model is ""
// when the entry names neither.
func ModelChangeOf(raw []byte) (model, role string) {
	var v struct {
		Model, Role, Provider, ModelID string
	}
	json.Unmarshal(raw, &v)
	if v.Model == "" && v.Provider != "" && v.ModelID != "" {
		v.Model = v.Provider + "/" + v.ModelID
	}
	if v.Role == "" {
		v.Role = "default"
	}
	return v.Model, v.Role
}

// ModelChange folds a model_change entry (its record's bytes, read by
// ModelChangeOf) for its role.
func (f *ModelFold) ModelChange(raw []byte) {
	model, role := ModelChangeOf(raw)
	if model == "" {
		return
	}
	if role == "default" {
		f.provider, f.model = nil, nil
	}
	if f.models == nil {
		f.models = map[string]string{}
	}
	f.models[role] = model
}

// Assistant folds an assistant message's "provider" and "model" members
// (raw JSON values, nil when absent): both non-empty strings name the
// default model.
func (f *ModelFold) Assistant(provider, model []byte) {
	if nonEmptyStr(provider) && nonEmptyStr(model) {
		f.provider, f.model = provider, model
	}
}

// Default is the folded "default" model ("" when none).
func (f *ModelFold) Default() string {
	if f.provider != nil {
		p, _ := StrVal(f.provider)
		m, _ := StrVal(f.model)
		if p != "" && m != "" {
			return p + "/" + m
		}
	}
	return f.models["default"]
}

// Models is the folded models, role → "provider/id" (never nil).
func (f *ModelFold) Models() map[string]string {
	out := make(map[string]string, len(f.models)+1)
	for role, m := range f.models {
		out[role] = m
	}
	if d := f.Default(); d != "" {
		out["default"] = d
	}
	return out
}

// msgInfo is what BuildContext reads of a message entry: the AgentMessage
// it contributes (nil for none) and the fields of it that set state.
type msgInfo struct {
	msg       json.RawMessage
	assistant bool
	// provider and model are the JSON values, made strings only for the
	// message that sets the context's model.
	provider, model []byte
}

// messageInfo reads a message entry in one skim of its message. Assistant
// messages marked "retried" contribute nothing: they were failed attempts
// agent-chat sent again.
func messageInfo(e Record) msgInfo {
	m := MemberVals(e.Raw, "message")[0]
	if len(m) == 0 || m[0] != '{' {
		return msgInfo{}
	}
	v := MemberVals(m, "role", "provider", "model", "retried")
	mi := msgInfo{msg: m, provider: v[1], model: v[2]}
	mi.assistant = isStr(v[0], "assistant")
	if string(v[3]) == "true" && mi.assistant {
		mi.msg = nil
	}
	return mi
}

// isStr reports whether the JSON value v is the string s, without making
// a string of v when it has no escapes.
func isStr(v []byte, s string) bool {
	if in, ok := plainStr(v); ok {
		return string(in) == s
	}
	t, ok := StrVal(v)
	return ok && t == s
}

// nonEmptyStr reports whether the JSON value v is a non-empty string.
func nonEmptyStr(v []byte) bool { return len(v) > 2 && v[0] == '"' }

// MessageOf is the AgentMessage an entry contributes to the context (a
// message entry's message, a custom_message as a custom message, a
// branch_summary as a branchSummary message), or nil.
func MessageOf(e Record) json.RawMessage {
	switch e.Type {
	case "message":
		return messageInfo(e).msg
	case "custom_message":
		v, _ := ParseMsg(e.Raw) // a custom_message has a custom message's members
		return mustJSON(struct {
			Role       string          `json:"role"`
			CustomType string          `json:"customType"`
			Content    json.RawMessage `json:"content"`
			Display    bool            `json:"display"`
			Details    json.RawMessage `json:"details,omitempty"`
			Timestamp  int64           `json:"timestamp"`
		}{"custom", v.CustomType, orEmptyString(v.Content), string(v.Display) != "false", v.Details, millis(e.Timestamp)})
	case "branch_summary":
		v := MemberVals(e.Raw, "summary", "fromId")
		summary, _ := StrVal(v[0])
		from, _ := StrVal(v[1])
		if summary == "" {
			return nil
		}
		return mustJSON(struct {
			Role      string `json:"role"`
			Summary   string `json:"summary"`
			FromID    string `json:"fromId"`
			Timestamp int64  `json:"timestamp"`
		}{"branchSummary", summary, from, millis(e.Timestamp)})
	}
	return nil
}

func orEmptyString(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage(`""`)
	}
	return b
}

// millis converts an entry timestamp to Unix milliseconds (0 if unparsable).
func millis(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// The context templates of the session-only roles, pi 0.73's
// (COMPACTION_SUMMARY_PREFIX/SUFFIX, BRANCH_SUMMARY_PREFIX/SUFFIX in its
// messages.ts), byte for byte: the branch summary has no newline before
// its closing tag.
const (
	compactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSuffix = "\n</summary>"
	branchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSuffix     = "</summary>"
)

// ConvertToLLM turns AgentMessages into the model's messages (roles user,
// assistant, toolResult; pi's LLM Message JSON), as the reference's
// convertToLlm: pruned tool results collapse to their text, bash and python
// executions and custom, summary and file-mention messages become user
// messages with the reference's wrappers, other roles are dropped.
func ConvertToLLM(msgs []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(msgs))
	user := func(ts json.RawMessage, blocks ...any) {
		out = append(out, mustJSON(struct {
			Role      string          `json:"role"`
			Content   []any           `json:"content"`
			Timestamp json.RawMessage `json:"timestamp"`
		}{"user", blocks, orZero(ts)}))
	}
	type textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	text := func(s string) textBlock { return textBlock{"text", s} }
	for _, raw := range msgs {
		// The model's own roles pass as they are; only the others are decoded.
		v := MemberVals(raw, "role", "prunedAt")
		switch {
		case isStr(v[0], "user"), isStr(v[0], "assistant"):
			out = append(out, raw)
			continue
		case isStr(v[0], "toolResult"):
			if p := v[1]; len(p) == 0 || string(p) == "null" {
				out = append(out, raw)
				continue
			}
		}
		// Declared here, after the fast path: it escapes to json.Unmarshal,
		// and so costs an allocation for each message it is declared for.
		var m struct {
			Role               string          `json:"role"`
			Timestamp          json.RawMessage `json:"timestamp"`
			Content            json.RawMessage `json:"content"`
			PrunedAt           json.RawMessage `json:"prunedAt"`
			Command            string          `json:"command"`
			Code               string          `json:"code"`
			Output             string          `json:"output"`
			ExitCode           *int            `json:"exitCode"`
			Cancelled          bool            `json:"cancelled"`
			Truncated          bool            `json:"truncated"`
			FullOutputPath     string          `json:"fullOutputPath"`
			ExcludeFromContext bool            `json:"excludeFromContext"`
			Meta               *outputMeta     `json:"meta"`
			Summary            string          `json:"summary"`
			Files              []struct {
				Path    string          `json:"path"`
				Content string          `json:"content"`
				Image   json.RawMessage `json:"image"`
			} `json:"files"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		switch m.Role {
		case "user", "assistant":
			out = append(out, raw)
		case "toolResult":
			if len(m.PrunedAt) == 0 || string(m.PrunedAt) == "null" {
				out = append(out, raw)
				continue
			}
			o, err := ParseObject(raw)
			if err != nil {
				continue
			}
			var blocks []struct{ Type, Text string }
			json.Unmarshal(m.Content, &blocks)
			var b strings.Builder
			for _, bl := range blocks {
				if bl.Type == "text" {
					b.WriteString(bl.Text)
				}
			}
			t := b.String()
			if t == "" {
				t = "[Output truncated]"
			}
			o.Set("content", mustJSON([]any{text(t)}))
			out = append(out, o.Bytes())
		case "bashExecution", "pythonExecution":
			if m.ExcludeFromContext {
				continue
			}
			var b strings.Builder
			if m.Role == "bashExecution" {
				fmt.Fprintf(&b, "Ran `%s`\n", m.Command)
				writeRun(&b, m.Output, m.Cancelled, m.ExitCode, "", "command cancelled", "Command exited with code")
				if m.Truncated && m.FullOutputPath != "" { // pi's notice
					fmt.Fprintf(&b, "\n\n[Output truncated. Full output: %s]", m.FullOutputPath)
				}
			} else {
				fmt.Fprintf(&b, "Ran Python:\n```python\n%s\n```\n", m.Code)
				writeRun(&b, m.Output, m.Cancelled, m.ExitCode, "Output:\n", "execution cancelled", "Execution failed with code")
			}
			b.WriteString(m.Meta.notice())
			user(m.Timestamp, text(b.String()))
		case "custom", "hookMessage":
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				user(m.Timestamp, text(s))
				continue
			}
			var blocks []json.RawMessage
			json.Unmarshal(m.Content, &blocks)
			anys := make([]any, len(blocks))
			for i, bl := range blocks {
				anys[i] = bl
			}
			user(m.Timestamp, anys...)
		case "branchSummary":
			user(m.Timestamp, text(branchPrefix+m.Summary+branchSuffix))
		case "compactionSummary":
			user(m.Timestamp, text(compactionPrefix+m.Summary+compactionSuffix))
		case "fileMention":
			var parts []string
			var images []any
			for _, f := range m.Files {
				if f.Content == "" {
					parts = append(parts, fmt.Sprintf("<file path=%q>\n</file>", f.Path))
				} else {
					parts = append(parts, fmt.Sprintf("<file path=%q>\n%s\n</file>", f.Path, f.Content))
				}
				if len(f.Image) > 0 && string(f.Image) != "null" {
					images = append(images, f.Image)
				}
			}
			user(m.Timestamp, append([]any{text("<system-reminder>\n" + strings.Join(parts, "\n\n") + "\n</system-reminder>")}, images...)...)
		}
	}
	return out
}

type outputMeta struct {
	Truncation *struct {
		TruncatedBy string `json:"truncatedBy"`
		TotalLines  int    `json:"totalLines"`
		OutputLines int    `json:"outputLines"`
		MaxBytes    int    `json:"maxBytes"`
		ShownRange  *struct {
			Start int `json:"start"`
			End   int `json:"end"`
		} `json:"shownRange"`
		ArtifactID string `json:"artifactId"`
		NextOffset int    `json:"nextOffset"`
	} `json:"truncation"`
}

// notice is the reference's formatOutputNotice for the truncation part.
func (m *outputMeta) notice() string {
	if m == nil || m.Truncation == nil {
		return ""
	}
	t := m.Truncation
	var s string
	if t.ShownRange != nil {
		s = fmt.Sprintf("Showing lines %d-%d of %d", t.ShownRange.Start, t.ShownRange.End, t.TotalLines)
	} else {
		s = fmt.Sprintf("Showing %d of %d lines", t.OutputLines, t.TotalLines)
	}
	if t.TruncatedBy == "bytes" && t.MaxBytes > 0 {
		s += fmt.Sprintf(" (%dKB limit)", t.MaxBytes/1024)
	}
	if t.NextOffset > 0 {
		s += fmt.Sprintf(". Use offset=%d to continue", t.NextOffset)
	}
	if t.ArtifactID != "" {
		s += ". Full: artifact://" + t.ArtifactID
	}
	return "\n\n[" + s + "]"
}

// writeRun words the result of a bash or Python execution as pi does: its
// output fenced (after head), then the cancellation or the failing exit code.
func writeRun(b *strings.Builder, output string, cancelled bool, exitCode *int, head, cancelledNote, failed string) {
	if output != "" {
		fmt.Fprintf(b, "%s```\n%s\n```", head, output)
	} else {
		b.WriteString("(no output)")
	}
	if cancelled {
		fmt.Fprintf(b, "\n\n(%s)", cancelledNote)
	} else if exitCode != nil && *exitCode != 0 {
		fmt.Fprintf(b, "\n\n%s %d", failed, *exitCode)
	}
}

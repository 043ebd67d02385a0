package compact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/session"
)

// Pruned is a tool result whose output pruning replaced: the entry to
// emit in place of the original (same id, "pending": true).
type Pruned struct {
	Index int    // in the path
	Raw   []byte // the new entry
}

// Prune replaces the output of old tool results (§4.4): walking from the
// newest, the first ProtectTokens of tool output and the protected tools
// are kept; the rest is pruned when that saves at least MinimumSavings.
// Only the context that will be sent is walked (what EstimateContext
// counts: the latest compaction's kept entries and everything after it):
// tool results the compaction already summarised are not sent, and
// pruning them would save nothing (the reference walks the whole branch).
// now is the prunedAt stamp (Unix ms). It returns the changed entries and
// the tokens saved (never negative).
func Prune(path []Entry, s Settings, now int64) ([]Pruned, int) {
	cands := pruneCands(path, s, 0, 0)
	saved := 0
	for _, c := range cands {
		saved += pruneSaves(c.tokens)
	}
	if len(cands) == 0 || saved < s.MinimumSavings {
		return nil, 0
	}
	return prunedOf(path, cands, now), saved
}

// pruneCand is a tool result of the path that pruning replaces.
type pruneCand struct{ i, tokens int }

// pruneCands are Prune's candidates, newest first; the entries before
// path[at] have extra tokens more of tool output after them (Gone's).
func pruneCands(path []Entry, s Settings, at, extra int) []pruneCand {
	var cands []pruneCand
	acc := 0
	c, kept, _ := lastCompaction(path)
	lo := 0
	if c >= 0 {
		lo = c + 1
		if kept >= 0 {
			lo = kept
		}
	}
	for i := len(path) - 1; i >= lo; i-- {
		if i == at-1 {
			acc += extra
		}
		e := path[i]
		if i == c {
			continue // the compaction itself; its kept entries come before it
		}
		if e.Type != "message" || e.Role != "toolResult" {
			continue
		}
		t := e.Tokens
		if e.info.pruned {
			acc += t
			continue
		}
		if acc < s.ProtectTokens || protected(e.info.toolName) {
			acc += t
			continue
		}
		cands = append(cands, pruneCand{i, t})
		acc += t
	}
	return cands
}

// pruneNotice is what a pruned tool result of tokens says instead.
func pruneNotice(tokens int) string { return fmt.Sprintf("[Output truncated - %d tokens]", tokens) }

// prunedOf are the new entries of the candidates, in path order.
func prunedOf(path []Entry, cands []pruneCand, now int64) []Pruned {
	var out []Pruned
	for _, c := range cands {
		if raw := PruneEntry(path[c.i].Raw, c.tokens, now); raw != nil {
			out = append(out, Pruned{Index: c.i, Raw: raw})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Index < out[b].Index })
	return out
}

// PruneEntry is the entry to emit in place of the tool result raw whose
// output of tokens pruning replaces at now (Unix ms); nil when raw is not
// an entry with a message object.
func PruneEntry(raw []byte, tokens int, now int64) []byte {
	o, err := session.ParseObject(raw)
	if err != nil {
		return nil
	}
	msgRaw, _ := o.Get("message")
	mo, err := session.ParseObject(msgRaw)
	if err != nil {
		return nil
	}
	text, _ := json.Marshal([]map[string]string{{"type": "text", "text": pruneNotice(tokens)}})
	mo.Set("content", text)
	mo.Set("prunedAt", json.RawMessage(fmt.Sprint(now)))
	o.Set("message", mo.Bytes())
	o.Set("pending", json.RawMessage("true"))
	return o.Bytes()
}

// ContextAfterPrune is the threshold test's count once saved tokens are
// pruned: ContextTokens less saved, floored at 0 (the reference's floor:
// an estimate of what is saved can exceed the usage it is taken from).
func ContextAfterPrune(path []Entry, saved int) int {
	return max(0, ContextTokens(path)-saved)
}

// FileOps are the files the summarised part read and changed.
type FileOps struct {
	Read, Written, Edited map[string]bool
}

// NewFileOps starts from a previous compaction's details (its modified
// files count as edited).
func NewFileOps(prevDetails json.RawMessage) FileOps {
	f := FileOps{Read: map[string]bool{}, Written: map[string]bool{}, Edited: map[string]bool{}}
	var d struct{ ReadFiles, ModifiedFiles []string }
	json.Unmarshal(prevDetails, &d)
	for _, p := range d.ReadFiles {
		f.Read[p] = true
	}
	for _, p := range d.ModifiedFiles {
		f.Edited[p] = true
	}
	return f
}

// Add records the read/write/edit tool calls of assistant messages. It
// skims the messages: only the tool calls' names and paths are decoded.
func (f FileOps) Add(msgs []json.RawMessage) {
	for _, raw := range msgs {
		if !bytes.Contains(raw, []byte(`"toolCall"`)) {
			continue // no tool call: nothing to read
		}
		if m := skimMessage(raw, false); m.role == "assistant" {
			f.add(m.files)
		}
	}
}

func (f FileOps) add(ops []fileOp) {
	for _, op := range ops {
		switch op.op {
		case "read":
			f.Read[op.path] = true
		case "write":
			f.Written[op.path] = true
		case "edit":
			f.Edited[op.path] = true
		}
	}
}

// Lists are the sorted read-only and modified files.
func (f FileOps) Lists() (read, modified []string) {
	mod := map[string]bool{}
	for p := range f.Edited {
		mod[p] = true
	}
	for p := range f.Written {
		mod[p] = true
	}
	for p := range mod {
		modified = append(modified, p)
	}
	for p := range f.Read {
		if !mod[p] {
			read = append(read, p)
		}
	}
	sort.Strings(read)
	sort.Strings(modified)
	return read, modified
}

// UpsertFileLists replaces the <read-files>/<modified-files> blocks of a
// summary with the current lists (each capped at 20 lines).
func UpsertFileLists(summary string, read, modified []string) string {
	for _, tag := range []string{"read-files", "modified-files"} {
		for {
			i := strings.Index(summary, "<"+tag+">")
			if i < 0 {
				break
			}
			j := strings.Index(summary[i:], "</"+tag+">")
			if j < 0 {
				break
			}
			summary = summary[:i] + strings.TrimLeft(summary[i+j+len(tag)+3:], " \t\r\n")
		}
	}
	summary = strings.TrimRight(summary, " \t\r\n")
	block := func(tag string, ps []string) string {
		if len(ps) == 0 {
			return ""
		}
		shown := ps
		more := ""
		if len(ps) > 20 {
			shown, more = ps[:20], fmt.Sprintf("\n… (%d more files omitted)", len(ps)-20)
		}
		return "<" + tag + ">\n" + strings.Join(shown, "\n") + more + "\n</" + tag + ">"
	}
	var blocks []string
	for _, b := range []string{block("read-files", read), block("modified-files", modified)} {
		if b != "" {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		return summary
	}
	return summary + "\n\n" + strings.Join(blocks, "\n")
}

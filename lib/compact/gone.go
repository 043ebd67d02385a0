package compact

import (
	"bytes"
	"encoding/json"
	"math"
)

// Gone is what the decisions read of entries a streaming reader let go of
// although they are still in the context to be sent: on a stream that is
// one chain, entries after the newest compaction (all of a path never
// compacted) that came more than a window's worth of bytes ago. Their
// lines pass through unchanged unless pruning replaces them, so the reader
// keeps only the entries the path's folds still read (Carry, in stream
// order), the newest message (LastAssistant), the newest usage that counts
// (LastUsage), the sum of the token estimates (EstimateContext), and the
// tool results pruning may replace, by their line. The decisions over the
// path Path makes, through Gone's methods, are those over the whole path
// (the command's tests compare them).
type Gone struct {
	Carry []Entry // copies with bytes of their own, in stream order
	N     int     // entries let go of
	// Cands are the tool results let go of that Prune replaces, oldest
	// first (nil until it does).
	Cands    []ToolOut
	cands    []ToolOut // those with ProtectTokens of tool output after them
	waiting  []ToolOut // those with less yet
	toolSum  int       // the tool-result tokens let go of
	tokens   int       // Tokens of every entry let go of
	lastMsg  *Entry
	cut      bool // a compaction came after lastMsg
	usage    int  // the newest usage LastUsage takes (0: none)
	settings Settings
}

// ToolOut is a tool result let go of that pruning may replace.
type ToolOut struct {
	Line   int // the reader's line
	Tokens int
	after  int // Gone.toolSum when it was let go of
}

// NewGone is an empty Gone deciding with s.
func NewGone(s Settings) *Gone { return &Gone{settings: s} }

// Add lets go of entries, on the reader's lines. Entries come in stream
// order, all after the newest compaction of the path, and every entry
// still held after them comes later. Only the entries kept are copied:
// of the assistant messages, the newest that names its model, the newest
// whose usage counts, the newest message.
func (g *Gone) Add(entries []Entry, lines []int) {
	for i, e := range entries {
		g.N++
		g.tokens += e.Tokens
		if e.Type == "message" && e.Role == "toolResult" {
			g.toolSum += e.Tokens
			if !e.info.pruned && !protected(e.info.toolName) {
				g.waiting = append(g.waiting, ToolOut{Line: lines[i], Tokens: e.Tokens, after: g.toolSum})
			}
			g.settle(0)
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Type == "compaction" {
			g.lastMsg, g.cut = nil, true
			break
		}
		if e.Message != nil {
			g.lastMsg, g.cut = &Entry{Message: bytes.Clone(e.Message), Role: e.Role}, false
			break
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; countsUsage(e) {
			var u usage
			if json.Unmarshal(e.info.usage, &u) == nil && u.context() > 0 {
				g.usage = u.context()
				break
			}
		}
	}
	keep, _ := carryIndexes(len(entries), func(i int) string { return entries[i].Type }, func(i int) (Entry, error) { return entries[i], nil })
	for _, i := range keep {
		g.Carry = Carry(g.Carry, entries[i].clone())
	}
}

// settle moves the waiting tool results with at least ProtectTokens of
// tool output after them (held: the held entries') to Cands.
func (g *Gone) settle(held int) {
	k := 0
	for k < len(g.waiting) && g.toolSum-g.waiting[k].after+held >= g.settings.ProtectTokens {
		k++
	}
	g.cands = append(g.cands, g.waiting[:k]...)
	g.waiting = g.waiting[k:]
}

// Path is the path the decisions read: head (the entries held before
// those let go of: the carried ones and the newest compaction's), Carry,
// then tail (the entries held after them), and where tail starts in it.
func (g *Gone) Path(head, tail []Entry) ([]Entry, int) {
	out := make([]Entry, 0, len(head)+len(g.Carry)+len(tail))
	out = append(append(append(out, head...), g.Carry...), tail...)
	return out, len(out) - len(tail)
}

// ContextTokens is ContextTokens of the whole path (path and tail from Path).
func (g *Gone) ContextTokens(path []Entry, tail int) int {
	if u, ok := LastUsage(path[tail:]); ok {
		return u.context()
	}
	if g.usage > 0 {
		return g.usage
	}
	if u, ok := LastUsage(path[:tail]); ok {
		return u.context()
	}
	rest := g.tokens
	for _, c := range g.Carry {
		rest -= c.Tokens
	}
	return EstimateContext(path) + rest
}

// ContextAfterPrune is ContextAfterPrune of the whole path (path and tail
// from Path).
func (g *Gone) ContextAfterPrune(path []Entry, tail, saved int) int {
	if g.N == 0 {
		return ContextAfterPrune(path, saved)
	}
	return max(0, g.ContextTokens(path, tail)-saved)
}

// LastAssistant is LastAssistant of the whole path (path and tail from Path).
func (g *Gone) LastAssistant(path []Entry, tail int) json.RawMessage {
	for i := len(path) - 1; i >= tail; i-- {
		if path[i].Type == "compaction" || path[i].Message != nil {
			return LastAssistant(path[i:])
		}
	}
	if g.N == 0 {
		return LastAssistant(path[:tail])
	}
	if g.lastMsg == nil || g.cut {
		return nil
	}
	return LastAssistant([]Entry{*g.lastMsg})
}

// Prune is Prune of the whole path (path and tail from Path): the held
// entries it replaces (indexes into path) and the tokens saved; the tool
// results let go of that it replaces are then Cands (PruneEntry makes
// each one's new line).
func (g *Gone) Prune(path []Entry, tail int, now int64) ([]Pruned, int) {
	if g.N == 0 {
		return Prune(path, g.settings, now)
	}
	held := pruneCands(path, g.settings, tail, g.toolSum)
	out := 0 // the tool output held after the entries let go of
	for _, e := range path[tail:] {
		if e.Type == "message" && e.Role == "toolResult" {
			out += e.Tokens
		}
	}
	g.settle(out)
	saved := 0
	for _, c := range held {
		saved += pruneSaves(c.tokens)
	}
	for _, c := range g.cands {
		saved += pruneSaves(c.Tokens)
	}
	if len(held)+len(g.cands) == 0 || saved < g.settings.MinimumSavings {
		return nil, 0
	}
	g.Cands = g.cands
	return prunedOf(path, held, now), saved
}

// pruneSaves is what pruning a tool result of tokens saves.
func pruneSaves(tokens int) int {
	return max(0, tokens-int(math.Ceil(float64(len(pruneNotice(tokens)))/4)))
}

// Reset empties g (a compaction whose kept part is held took the place of
// what it let go of).
func (g *Gone) Reset() { *g = Gone{settings: g.settings} }

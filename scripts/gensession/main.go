// Command gensession writes a synthetic session file for benchmarks: a v3
// header and N entries forming one chain (with a few side branches), about
// SIZE bytes per entry, realistic message shapes.
//
//	go run ./scripts/gensession -n 1000000 -size 1000 > big.jsonl
//
// With -pi the session is shaped as pi writes a long one: bash tool calls
// with matching result ids, each assistant's usage the size of its context,
// and a compaction (summary, firstKeptEntryId ~20k tokens back) whenever
// the context passes 90k tokens (-compact-at), so pruning and compaction have work to do.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 1000, "number of entries")
	size := flag.Int("size", 1000, "approximate bytes per entry")
	pi := flag.Bool("pi", false, "pi's shape: bash calls with matching ids, usage, a compaction past -compact-at tokens")
	compactAt := flag.Int("compact-at", 90000, "with -pi, compact when the context passes this many tokens (0: never)")
	spread := flag.Bool("spread", false, "message sizes spread log-uniformly over 0.1-4 KB (mean ~1 KB) instead of -size each")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	rng := rand.New(rand.NewSource(42))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"0123456789abcdef","timestamp":"%s","cwd":"/bench/project"}`+"\n", t0.Format("2006-01-02T15:04:05.000Z"))
	words := strings.Fields("the quick brown fox jumps over lazy dog func main return error nil string byte slice map test file path line")
	text := func(k int) string {
		var b strings.Builder
		for b.Len() < k {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	// sz is the size of the next message: -size, or with -spread drawn
	// log-uniformly from 100 to 4000 bytes.
	sz := func() int {
		if !*spread {
			return *size
		}
		return 220 + int(100*math.Exp(rng.Float64()*math.Log(40))) // 220: the message's envelope
	}
	parent := ""
	tool, callID := "read", "call_x"
	if *pi {
		tool = "bash"
	}
	type kept struct {
		id     string
		tokens int
		user   bool
	}
	var ctx []kept // the entries in context since the last compaction
	ctxTokens := 0
	for i := 0; i < *n; i++ {
		id := fmt.Sprintf("%08x", i*2654435761%(1<<32)) // unique for i < 2^32
		ts := t0.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
		var msg any
		size := sz()
		switch i % 3 {
		case 0:
			msg = map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text(size - 200)}}, "timestamp": i}
		case 1:
			msg = map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": text(max(size-450, 40))},
				map[string]any{"type": "toolCall", "id": "call_" + id, "name": tool, "arguments": map[string]any{"path": "src/main.go"}}},
				"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
				"usage": map[string]any{"input": 100, "output": 50, "cacheRead": 0, "cacheWrite": 0, "totalTokens": usage(*pi, ctxTokens),
					"cost": map[string]any{"input": 0.0003, "output": 0.00075, "cacheRead": 0, "cacheWrite": 0, "total": 0.00105}},
				"stopReason": "toolUse", "timestamp": i}
		default:
			msg = map[string]any{"role": "toolResult", "toolCallId": callID, "toolName": tool,
				"content": []any{map[string]any{"type": "text", "text": text(size - 220)}}, "isError": false, "timestamp": i}
		}
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		b, _ := json.Marshal(msg)
		// The base members first, in the order pi writes them.
		fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":%s}`+"\n", id, p, ts, b)
		// every 1000 entries a dead-end side branch, so the path is not the whole file
		if i%1000 == 999 {
			side := fmt.Sprintf("s%07x", i)
			fmt.Fprintf(w, `{"type":"custom","id":"%s","parentId":"%s","timestamp":"%s","customType":"bench","data":{"i":%d}}`+"\n", side, id, ts, i)
		}
		parent = id
		if !*pi {
			continue
		}
		if i%3 == 1 {
			callID = "call_" + id
		}
		t := len(b) / 4
		ctx = append(ctx, kept{id, t, i%3 == 0})
		ctxTokens += t
		if *compactAt > 0 && ctxTokens > *compactAt && i%3 == 2 { // after a tool result, as pi compacts at a turn's end
			// keep ~20k tokens, cut at a user message
			k, acc := len(ctx)-1, 0
			for ; k > 0 && (acc < 20000 || !ctx[k].user); k-- {
				acc += ctx[k].tokens
			}
			cid := fmt.Sprintf("c%07x", i)
			summary := text(2000)
			fmt.Fprintf(w, `{"type":"compaction","id":"%s","parentId":"%s","timestamp":"%s","summary":%q,"firstKeptEntryId":"%s","tokensBefore":%d}`+"\n",
				cid, id, ts, summary, ctx[k].id, ctxTokens)
			parent = cid
			ctx = append([]kept{{cid, len(summary) / 4, false}}, ctx[k:]...)
			ctxTokens = 0
			for _, e := range ctx {
				ctxTokens += e.tokens
			}
		}
	}
}

// usage is an assistant's totalTokens: a fixed 150, or with -pi the
// context it was sent.
func usage(pi bool, ctx int) int {
	if pi {
		return ctx + 150
	}
	return 150
}

package llm

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// deltaStream is an Anthropic answer of n text deltas, thinking and a
// tool call in as many pieces.
func deltaStream(n int) ([]SSE, string) {
	var evs []SSE
	add := func(typ, data string) { evs = append(evs, SSE{Event: typ, Data: []byte(data)}) }
	add("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`)
	add("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`)
	add("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm "}}`)
	add("content_block_stop", `{"type":"content_block_stop","index":0}`)
	add("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	var text strings.Builder
	for i := 0; i < n; i++ {
		w := fmt.Sprintf("w%d ", i)
		text.WriteString(w)
		add("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":%q}}`, w))
	}
	add("content_block_stop", `{"type":"content_block_stop","index":1}`)
	add("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"read","input":{}}}`)
	for _, p := range []string{`{"pa`, `th":`, `"a.go"}`} {
		add("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":%q}}`, p))
	}
	add("content_block_stop", `{"type":"content_block_stop","index":2}`)
	add("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`)
	add("message_stop", `{"type":"message_stop"}`)
	return evs, text.String()
}

// A long answer builds the message it says, and every partial message
// holds the text up to its delta, whatever came after it (the texts
// share their bytes, which only grow).
func TestStreamDeltas(t *testing.T) {
	evs, text := deltaStream(500)
	codec, _ := CodecFor(AnthropicMessages)
	dec := codec.Decoder(Model{ID: "m", API: AnthropicMessages}, 1)
	var all []Event
	for _, e := range evs {
		all = append(all, dec.Feed(e)...)
	}
	all = append(all, dec.End(nil)...)
	final := all[len(all)-1].Message
	if final == nil || final.Text() != text || final.Content[0].Thinking != "hmm " || string(final.Content[2].Arguments) != `{"path":"a.go"}` {
		t.Fatalf("final message: %+v", final)
	}
	sofar := ""
	for _, e := range all {
		if e.Type == "text_delta" {
			sofar += e.Delta
			if got := e.Partial.Content[1].Text; got != sofar {
				t.Fatalf("a partial message holds %q…, want %q…", got[:min(len(got), 20)], sofar[:min(len(sofar), 20)])
			}
		}
	}
}

// Building the text of n deltas allocates in proportion to n, not n²:
// 3000 deltas of a 20 KB text allocated 28 MB when each delta copied
// the text.
func TestStreamDeltasLinear(t *testing.T) {
	evs, _ := deltaStream(3000)
	codec, _ := CodecFor(AnthropicMessages)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	dec := codec.Decoder(Model{ID: "m", API: AnthropicMessages}, 1)
	for _, e := range evs {
		dec.Feed(e)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
		t.Errorf("3000 deltas allocated %d MB", n>>20)
	}
}

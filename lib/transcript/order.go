package transcript

import (
	"bytes"
	"encoding/json"
	"sort"
)

// keyRank orders members as pi writes them, so converted sessions read like
// native ones; members not listed follow in name order.
var keyRank = map[string]int{}

func init() {
	for i, k := range []string{"type", "customType", "id", "parentId", "timestamp", "message", "role", "content",
		"text", "thinking", "thinkingSignature", "name", "arguments", "data", "mimeType", "display",
		"api", "provider", "model", "usage", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "total",
		"stopReason", "toolCallId", "toolName", "isError"} {
		keyRank[k] = i + 1
	}
}

// marshalOrdered renders maps with their keys in keyRank order.
func marshalOrdered(v any) []byte {
	var b bytes.Buffer
	writeOrdered(&b, v)
	return b.Bytes()
}

func writeOrdered(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			ri, rj := keyRank[keys[i]], keyRank[keys[j]]
			if ri == 0 {
				ri = 1 << 20
			}
			if rj == 0 {
				rj = 1 << 20
			}
			if ri != rj {
				return ri < rj
			}
			return keys[i] < keys[j]
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeOrdered(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeOrdered(b, e)
		}
		b.WriteByte(']')
	default:
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		enc.Encode(x)
		b.Truncate(b.Len() - 1)
	}
}

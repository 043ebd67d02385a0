package transcript

import (
	"strings"

	"github.com/agentutils/agentutils/lib/jsonw"
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

// rankOrder orders keys by keyRank, the unranked after them by name.
func rankOrder(a, b string) int {
	ra, rb := keyRank[a], keyRank[b]
	if ra == 0 {
		ra = 1 << 20
	}
	if rb == 0 {
		rb = 1 << 20
	}
	if ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// marshalOrdered renders maps with their keys in keyRank order (a nil
// slice or map as empty).
func marshalOrdered(v any) []byte {
	b, _ := jsonw.Append(nil, v, jsonw.Options{Order: rankOrder, NilEmpty: true})
	return b
}

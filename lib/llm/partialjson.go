package llm

import (
	"bytes"
	"encoding/json"
)

// ParsePartialJSON parses the arguments of a tool call while they stream: a
// complete document parses as it is; a prefix is repaired (an open string is
// closed, a dangling key, ':' or ',' or partial literal dropped, brackets
// closed) and parsed. What cannot be repaired gives an empty object, as the
// reference agent does while streaming. The result is always a JSON object.
func ParsePartialJSON(s string) json.RawMessage {
	b := bytes.TrimSpace([]byte(s))
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(b) && b[0] == '{' {
		return json.RawMessage(b)
	}
	if r := repairJSON(b); r != nil && json.Valid(r) && r[0] == '{' {
		return json.RawMessage(r)
	}
	return json.RawMessage("{}")
}

// repairJSON closes a JSON prefix. It walks the bytes once, tracking the
// string/escape state and the bracket stack, remembers the last point where
// the document could be cut cleanly, and closes the brackets open there.
func repairJSON(b []byte) []byte {
	var stack []byte // '{' or '['
	inString, escaped := false, false
	// cut: the length of the prefix that ends at a complete value or an
	// opening bracket; stackAt: the brackets open at that point.
	cut := -1
	var stackAt []byte
	// inKey tracks whether the string being read is an object key.
	expectKey := false
	keyOpen := false
	mark := func(n int) {
		cut = n
		stackAt = append(stackAt[:0], stack...)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if !keyOpen {
					mark(i + 1)
				}
				keyOpen = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			keyOpen = expectKey
		case '{':
			stack = append(stack, '{')
			expectKey = true
			mark(i + 1)
		case '[':
			stack = append(stack, '[')
			expectKey = false
			mark(i + 1)
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
			mark(i + 1)
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case ':':
			expectKey = false
		case ' ', '\t', '\n', '\r':
		default:
			// numbers and literals: cut after a complete token only
			j := i
			for j < len(b) && bytes.IndexByte([]byte(" \t\r\n,]}"), b[j]) < 0 {
				j++
			}
			tok := b[i:j]
			if j < len(b) && json.Valid(tok) {
				mark(j)
			} else if j == len(b) && json.Valid(tok) && !isPrefixOfLiteral(tok) {
				mark(j)
			}
			i = j - 1
		}
	}
	if inString && !keyOpen {
		// An unterminated value string: keep what came, close it.
		out := append([]byte(nil), b...)
		if escaped {
			out = out[:len(out)-1]
		}
		out = append(out, '"')
		return closeStack(out, stack)
	}
	if cut < 0 {
		return nil
	}
	out := append([]byte(nil), b[:cut]...)
	return closeStack(trimDangling(out), stackAt)
}

// isPrefixOfLiteral reports a number, which may still grow ("12" of "123").
func isPrefixOfLiteral(tok []byte) bool {
	return tok[0] == '-' || tok[0] >= '0' && tok[0] <= '9'
}

// trimDangling drops a trailing "key": pair without value or a trailing comma.
func trimDangling(b []byte) []byte {
	t := bytes.TrimRight(b, " \t\r\n")
	if len(t) > 0 && t[len(t)-1] == ',' {
		return t[:len(t)-1]
	}
	return t
}

func closeStack(b []byte, stack []byte) []byte {
	b = trimDangling(b)
	// A key with no value: `{"a":1,"b"` → drop `,"b"`.
	if len(stack) > 0 && stack[len(stack)-1] == '{' && len(b) > 0 && b[len(b)-1] == '"' {
		if i := lastKeyStart(b); i >= 0 {
			b = trimDangling(b[:i])
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == '{' {
			b = append(b, '}')
		} else {
			b = append(b, ']')
		}
	}
	return b
}

// lastKeyStart finds where a trailing bare key string starts when it follows
// '{' or ',' (so it is a key with no ':' after it).
func lastKeyStart(b []byte) int {
	// walk back over the string
	j := len(b) - 2
	for j >= 0 {
		if b[j] == '"' {
			k := j - 1
			n := 0
			for k >= 0 && b[k] == '\\' {
				n++
				k--
			}
			if n%2 == 0 {
				break
			}
		}
		j--
	}
	if j < 0 {
		return -1
	}
	k := j - 1
	for k >= 0 && (b[k] == ' ' || b[k] == '\n' || b[k] == '\t' || b[k] == '\r') {
		k--
	}
	if k >= 0 && (b[k] == '{' || b[k] == ',') {
		return j
	}
	return -1
}

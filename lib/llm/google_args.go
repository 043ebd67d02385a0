package llm

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Gemini 3 and Vertex stream a function call's arguments
// (streamFunctionCallArguments): the call's first part has its name and
// willContinue, the next ones partialArgs, each a value at a JSON path
// ($.a.b[0].c) — a string in pieces while the argument's willContinue
// holds —, and a part without willContinue ends the call.

type partialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue"`
	NumberValue  json.RawMessage `json:"numberValue"`
	BoolValue    *bool           `json:"boolValue"`
	NullValue    json.RawMessage `json:"nullValue"`
	WillContinue bool            `json:"willContinue"`
}

// partialArgs are a streamed call's arguments so far.
type partialArgs struct {
	root map[string]any
}

// add sets the value of a at its path; a string is appended to the
// string already there.
func (p *partialArgs) add(a partialArg) {
	if p.root == nil {
		p.root = map[string]any{}
	}
	var v any
	switch {
	case a.StringValue != nil:
		v = *a.StringValue
	case len(a.NumberValue) > 0:
		v = json.Number(a.NumberValue)
	case a.BoolValue != nil:
		v = *a.BoolValue
	default:
		v = nil
	}
	steps := jsonPath(a.JSONPath)
	if len(steps) == 0 {
		return
	}
	var cur any = p.root
	for i, st := range steps {
		var get func() any
		var put func(any)
		switch c := cur.(type) {
		case map[string]any:
			if st.index >= 0 {
				return
			}
			get, put = func() any { return c[st.key] }, func(x any) { c[st.key] = x }
		case *[]any: // by pointer: growing it is seen by its parent
			if st.index < 0 {
				return
			}
			for len(*c) <= st.index {
				*c = append(*c, nil)
			}
			get, put = func() any { return (*c)[st.index] }, func(x any) { (*c)[st.index] = x }
		default:
			return
		}
		if i == len(steps)-1 {
			if s, ok := v.(string); ok {
				if o, ok := get().(string); ok {
					v = o + s
				}
			}
			put(v)
			return
		}
		next := get()
		if next == nil {
			if steps[i+1].index >= 0 {
				next = &[]any{}
			} else {
				next = map[string]any{}
			}
			put(next)
		}
		cur = next
	}
}

// json is the arguments as a JSON object.
func (p *partialArgs) json() json.RawMessage {
	if p == nil || p.root == nil {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(plain(p.root))
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// plain is v with the arrays held by pointer as values.
func plain(v any) any {
	switch c := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = plain(x)
		}
		return out
	case *[]any:
		out := make([]any, len(*c))
		for i, x := range *c {
			out[i] = plain(x)
		}
		return out
	}
	return v
}

type pathStep struct {
	key   string
	index int // -1 for a key
}

// jsonPath splits $.a.b[0].c into its steps; nil for a path it does not
// read.
func jsonPath(p string) []pathStep {
	if !strings.HasPrefix(p, "$") {
		return nil
	}
	p = p[1:]
	var out []pathStep
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
			n := strings.IndexAny(p, ".[")
			if n < 0 {
				n = len(p)
			}
			if n == 0 {
				return nil
			}
			out = append(out, pathStep{key: p[:n], index: -1})
			p = p[n:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil
			}
			in := p[1:end]
			if k, err := strconv.Unquote(in); err == nil && len(in) > 0 && in[0] == '"' {
				out = append(out, pathStep{key: k, index: -1})
			} else if i, err := strconv.Atoi(in); err == nil && i >= 0 && i < 1<<16 {
				out = append(out, pathStep{index: i})
			} else {
				return nil
			}
			p = p[end+1:]
		default:
			return nil
		}
	}
	return out
}

package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentutils/agentutils/lib/event"
)

// maxCoercions is how many times a failed validation is retried after
// replacing string values that hold JSON of the expected type (the
// reference agent's 5 passes: models often send "[1,2]", "true" or "42").
const maxCoercions = 5

// Validator checks tool-call arguments against each tool's JSON Schema.
type Validator struct {
	schemas map[string]*schema
}

// NewValidator compiles the parameter schemas of tools. A schema that does
// not compile is an error naming the tool; a tool without parameters
// accepts any object.
func NewValidator(tools []event.ToolDef) (*Validator, error) {
	v := &Validator{schemas: map[string]*schema{}}
	for _, t := range tools {
		if len(bytes.TrimSpace(t.Parameters)) == 0 || string(bytes.TrimSpace(t.Parameters)) == "null" {
			continue
		}
		s, err := compileSchema(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		v.schemas[t.Name] = s
	}
	return v, nil
}

// ValidationError is a tool call whose arguments do not match the schema;
// its text is the tool result the model sees.
type ValidationError struct {
	Tool      string
	Problems  []string // "path: message", sorted
	Arguments json.RawMessage
}

// Bounds on what a validation error quotes, so that a pathological
// argument (5,000 levels deep) gives a short result, not megabytes.
const (
	maxQuote    = 4 << 10 // bytes of the received arguments
	maxProblem  = 500     // bytes of one problem
	maxProblems = 20
)

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Validation failed for tool %q:\n", e.Tool)
	for i, p := range e.Problems {
		if i == maxProblems {
			fmt.Fprintf(&b, "  (%d more problems)\n", len(e.Problems)-i)
			break
		}
		b.WriteString("  - " + cut(p, maxProblem) + "\n")
	}
	b.WriteString("\nReceived arguments:\n")
	var pretty bytes.Buffer
	if len(e.Arguments) <= maxQuote && json.Indent(&pretty, e.Arguments, "", "  ") == nil {
		b.WriteString(cut(pretty.String(), maxQuote))
	} else {
		b.WriteString(cut(string(e.Arguments), maxQuote))
	}
	return b.String()
}

// cut is s, or its first n bytes (whole characters) and how much was left.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:k], len(s)-k)
}

// Validate checks args (missing or null means {}) against the schema of
// tool name and returns the arguments to send: args itself, or a coerced
// copy. A failure is a *ValidationError.
func (v *Validator) Validate(name string, args json.RawMessage) (json.RawMessage, error) {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = json.RawMessage("{}")
	}
	inst, err := decodeJSON(args)
	if err != nil {
		return nil, &ValidationError{Tool: name, Problems: []string{"root: arguments are not valid JSON"}, Arguments: args}
	}
	s, ok := v.schemas[name]
	if !ok {
		return args, nil
	}
	coerced := false
	for pass := 0; ; pass++ {
		leaves, _ := s.validate(inst, nil, 0)
		if len(leaves) == 0 {
			if !coerced {
				return args, nil
			}
			return json.Marshal(inst)
		}
		if pass < maxCoercions {
			changed := false
			for _, l := range leaves {
				if l.kind == "type" {
					if nv, ok := coerce(inst, l.loc, l.want); ok {
						inst, changed = nv, true
					}
				}
			}
			if changed {
				coerced = true
				continue
			}
		}
		return nil, &ValidationError{Tool: name, Problems: problems(leaves), Arguments: args}
	}
}

// problems renders failed keywords in the reference agent's (AJV's) words:
// "path: must be string", "path: must have required property 'x'".
func problems(leaves []schemaError) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, l := range leaves {
		path := strings.Join(l.loc, "/")
		at := path
		if at == "" {
			at = "root"
		}
		switch l.kind {
		case "required":
			for _, m := range l.want {
				p := path
				if p == "" {
					p = m
				}
				add(fmt.Sprintf("%s: must have required property '%s'", p, m))
			}
		case "type":
			add(fmt.Sprintf("%s: must be %s", at, strings.Join(l.want, ",")))
		case "enum":
			add(at + ": must be equal to one of the allowed values")
		case "const":
			add(at + ": must be equal to constant")
		case "additionalProperties":
			for _, p := range l.want {
				add(fmt.Sprintf("%s: must NOT have additional property '%s'", at, p))
			}
		case "unevaluatedProperties":
			add(fmt.Sprintf("%s: must NOT have unevaluated property '%s'", at, l.want[0]))
		case "unevaluatedItems":
			add(fmt.Sprintf("%s: must NOT have more than %s items", at, l.arg))
		case "dependentRequired":
			add(fmt.Sprintf("%s: must have property '%s' when property '%s' is present", at, l.want[0], l.want[1]))
		case "minimum":
			add(fmt.Sprintf("%s: must be >= %s", at, l.arg))
		case "maximum":
			add(fmt.Sprintf("%s: must be <= %s", at, l.arg))
		case "exclusiveMinimum":
			add(fmt.Sprintf("%s: must be > %s", at, l.arg))
		case "exclusiveMaximum":
			add(fmt.Sprintf("%s: must be < %s", at, l.arg))
		case "multipleOf":
			add(fmt.Sprintf("%s: must be multiple of %s", at, l.arg))
		case "minLength":
			add(fmt.Sprintf("%s: must NOT have fewer than %s characters", at, l.arg))
		case "maxLength":
			add(fmt.Sprintf("%s: must NOT have more than %s characters", at, l.arg))
		case "minItems":
			add(fmt.Sprintf("%s: must NOT have fewer than %s items", at, l.arg))
		case "maxItems":
			add(fmt.Sprintf("%s: must NOT have more than %s items", at, l.arg))
		case "minProperties":
			add(fmt.Sprintf("%s: must NOT have fewer than %s properties", at, l.arg))
		case "maxProperties":
			add(fmt.Sprintf("%s: must NOT have more than %s properties", at, l.arg))
		case "pattern":
			add(fmt.Sprintf("%s: must match pattern \"%s\"", at, l.arg))
		default: // the message is in arg
			add(at + ": " + l.arg)
		}
	}
	sort.Strings(out)
	return out
}

// coerce replaces the value at loc in inst when it is a string holding JSON
// of one of the wanted types, and returns the new instance.
func coerce(inst any, loc []string, want []string) (any, bool) {
	if len(loc) == 0 {
		s, ok := inst.(string)
		if !ok {
			return inst, false
		}
		nv, err := decodeJSON([]byte(s))
		if err != nil || !typeMatches(jsonType(nv), want) {
			return inst, false
		}
		return nv, true
	}
	switch c := inst.(type) {
	case map[string]any:
		child, ok := c[loc[0]]
		if !ok {
			return inst, false
		}
		nv, ok := coerce(child, loc[1:], want)
		if ok {
			c[loc[0]] = nv
		}
		return inst, ok
	case []any:
		i, err := strconv.Atoi(loc[0])
		if err != nil || i < 0 || i >= len(c) {
			return inst, false
		}
		nv, ok := coerce(c[i], loc[1:], want)
		if ok {
			c[i] = nv
		}
		return inst, ok
	}
	return inst, false
}

// Schema is one compiled schema, for checking a whole document (agent-chat
// --json-schema checks the final answer with it).
type Schema struct{ s *schema }

// Compile compiles a JSON Schema document.
func Compile(doc []byte) (*Schema, error) {
	s, err := compileSchema(doc)
	if err != nil {
		return nil, err
	}
	return &Schema{s: s}, nil
}

// Check validates doc exactly (no coercion): the problems in the words of
// Validate's errors, none when doc is valid; an error when doc is not JSON.
func (s *Schema) Check(doc []byte) ([]string, error) {
	inst, err := decodeJSON(doc)
	if err != nil {
		return nil, err
	}
	leaves, _ := s.s.validate(inst, nil, 0)
	if len(leaves) == 0 {
		return nil, nil
	}
	return problems(leaves), nil
}

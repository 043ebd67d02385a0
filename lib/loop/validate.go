package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// maxCoercions is how many times a failed validation is retried after
// replacing string values that hold JSON of the expected type (the
// reference agent's 5 passes: models often send "[1,2]", "true" or "42").
const maxCoercions = 5

// Validator checks tool-call arguments against each tool's JSON Schema.
type Validator struct {
	schemas map[string]*jsonschema.Schema
}

// NewValidator compiles the parameter schemas of tools. A schema that does
// not compile is an error naming the tool; a tool without parameters
// accepts any object.
func NewValidator(tools []Tool) (*Validator, error) {
	v := &Validator{schemas: map[string]*jsonschema.Schema{}}
	for _, t := range tools {
		if len(bytes.TrimSpace(t.Parameters)) == 0 || string(bytes.TrimSpace(t.Parameters)) == "null" {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.Parameters))
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(noLoader{}) // a tool schema may not fetch anything
		url := "tool:///" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		v.schemas[t.Name] = s
	}
	return v, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote schema %s not allowed", url)
}

// ValidationError is a tool call whose arguments do not match the schema;
// its text is the tool result the model sees.
type ValidationError struct {
	Tool      string
	Problems  []string // "path: message", sorted
	Arguments json.RawMessage
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Validation failed for tool %q:\n", e.Tool)
	for _, p := range e.Problems {
		b.WriteString("  - " + p + "\n")
	}
	b.WriteString("\nReceived arguments:\n")
	var pretty bytes.Buffer
	if json.Indent(&pretty, e.Arguments, "", "  ") == nil {
		b.Write(pretty.Bytes())
	} else {
		b.Write(e.Arguments)
	}
	return b.String()
}

// Validate checks args (missing or null means {}) against the schema of
// tool name and returns the arguments to send: args itself, or a coerced
// copy. A failure is a *ValidationError.
func (v *Validator) Validate(name string, args json.RawMessage) (json.RawMessage, error) {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, &ValidationError{Tool: name, Problems: []string{"root: arguments are not valid JSON"}, Arguments: args}
	}
	s, ok := v.schemas[name]
	if !ok {
		return args, nil
	}
	coerced := false
	for pass := 0; ; pass++ {
		err := s.Validate(inst)
		if err == nil {
			if !coerced {
				return args, nil
			}
			return json.Marshal(inst)
		}
		ve, ok := err.(*jsonschema.ValidationError)
		if !ok {
			return nil, &ValidationError{Tool: name, Problems: []string{"root: " + err.Error()}, Arguments: args}
		}
		leaves := leafErrors(ve)
		if pass < maxCoercions {
			changed := false
			for _, l := range leaves {
				if tk, ok := l.ErrorKind.(*kind.Type); ok {
					var nv any
					if nv, ok = coerce(inst, l.InstanceLocation, tk.Want); ok {
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

func leafErrors(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}

var printer = message.NewPrinter(language.English)

// problems renders leaf errors in the reference agent's (AJV's) words:
// "path: must be string", "path: must have required property 'x'".
func problems(leaves []*jsonschema.ValidationError) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, l := range leaves {
		path := strings.Join(l.InstanceLocation, "/")
		at := func(p string) string {
			if p == "" {
				return "root"
			}
			return p
		}
		switch k := l.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				p := path
				if p == "" {
					p = m
				}
				add(fmt.Sprintf("%s: must have required property '%s'", p, m))
			}
		case *kind.Type:
			add(fmt.Sprintf("%s: must be %s", at(path), strings.Join(k.Want, ",")))
		case *kind.Enum:
			add(fmt.Sprintf("%s: must be equal to one of the allowed values", at(path)))
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				add(fmt.Sprintf("%s: must NOT have additional property '%s'", at(path), p))
			}
		case *kind.Minimum:
			add(fmt.Sprintf("%s: must be >= %s", at(path), k.Want.RatString()))
		case *kind.Maximum:
			add(fmt.Sprintf("%s: must be <= %s", at(path), k.Want.RatString()))
		case *kind.MinLength:
			add(fmt.Sprintf("%s: must NOT have fewer than %d characters", at(path), k.Want))
		case *kind.MaxLength:
			add(fmt.Sprintf("%s: must NOT have more than %d characters", at(path), k.Want))
		case *kind.MinItems:
			add(fmt.Sprintf("%s: must NOT have fewer than %d items", at(path), k.Want))
		case *kind.MaxItems:
			add(fmt.Sprintf("%s: must NOT have more than %d items", at(path), k.Want))
		case *kind.Pattern:
			add(fmt.Sprintf("%s: must match pattern \"%s\"", at(path), k.Want))
		default:
			add(fmt.Sprintf("%s: %s", at(path), l.ErrorKind.LocalizedString(printer)))
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
		nv, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil || !typeIn(nv, want) {
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
		var i int
		if _, err := fmt.Sscanf(loc[0], "%d", &i); err != nil || i < 0 || i >= len(c) {
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

func typeIn(v any, want []string) bool {
	var t string
	switch x := v.(type) {
	case nil:
		t = "null"
	case bool:
		t = "boolean"
	case json.Number:
		t = "number"
		if _, err := x.Int64(); err == nil {
			for _, w := range want {
				if w == "integer" {
					return true
				}
			}
		}
	case string:
		t = "string"
	case []any:
		t = "array"
	case map[string]any:
		t = "object"
	}
	for _, w := range want {
		if w == t || (w == "number" && t == "integer") {
			return true
		}
	}
	return false
}

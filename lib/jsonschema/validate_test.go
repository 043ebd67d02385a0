package jsonschema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

const editSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "limit": {"type": "integer", "minimum": 1},
    "lines": {"type": "array", "items": {"type": "integer"}},
    "all": {"type": "boolean"},
    "opts": {"type": "object", "properties": {"depth": {"type": "number"}}, "required": ["depth"]},
    "mode": {"enum": ["a", "b"]}
  },
  "required": ["path"],
  "additionalProperties": false
}`

func validator(t testing.TB) *Validator {
	t.Helper()
	v, err := NewValidator([]event.ToolDef{
		{Name: "edit", Parameters: json.RawMessage(editSchema), Concurrency: "shared"},
		{Name: "free", Concurrency: "shared"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidate(t *testing.T) {
	v := validator(t)
	tests := []struct {
		name, tool, args string
		want             string // the arguments sent, or the error text
		wantErr          bool
	}{
		{name: "ok unchanged", tool: "edit", args: `{"path": "a.go",  "limit": 3}`, want: `{"path": "a.go",  "limit": 3}`},
		{name: "no schema", tool: "free", args: `{"x":1}`, want: `{"x":1}`},
		{name: "null args", tool: "free", args: `null`, want: `{}`},
		{name: "integer from string", tool: "edit", args: `{"path":"a","limit":"42"}`, want: `{"limit":42,"path":"a"}`},
		// what validation calls an integer (5.0, 1e2: integral values) is
		// also what a string is coerced to
		{name: "integral number from string", tool: "edit", args: `{"path":"a","limit":"5.0","lines":["1e2"]}`, want: `{"limit":5.0,"lines":[1e2],"path":"a"}`},
		{name: "array and boolean from strings", tool: "edit", args: `{"path":"a","lines":"[1,2]","all":"true"}`, want: `{"all":true,"lines":[1,2],"path":"a"}`},
		{name: "nested coercions", tool: "edit", args: `{"path":"a","lines":["1",2],"opts":"{\"depth\":\"2.5\"}"}`, want: `{"lines":[1,2],"opts":{"depth":2.5},"path":"a"}`},
		{
			name: "missing required", tool: "edit", args: `{}`, wantErr: true,
			want: "Validation failed for tool \"edit\":\n  - path: must have required property 'path'\n\nReceived arguments:\n{}",
		},
		{
			name: "not coercible", tool: "edit", args: `{"path":"a","limit":"many"}`, wantErr: true,
			want: "Validation failed for tool \"edit\":\n  - limit: must be integer\n\nReceived arguments:\n{\n  \"path\": \"a\",\n  \"limit\": \"many\"\n}",
		},
		{
			name: "several problems sorted", tool: "edit", args: `{"path":1,"mode":"c","extra":true,"limit":0,"opts":{}}`, wantErr: true,
			want: "Validation failed for tool \"edit\":\n" +
				"  - limit: must be >= 1\n" +
				"  - mode: must be equal to one of the allowed values\n" +
				"  - opts: must have required property 'depth'\n" +
				"  - path: must be string\n" +
				"  - root: must NOT have additional property 'extra'\n" +
				"\nReceived arguments:\n{\n  \"path\": 1,\n  \"mode\": \"c\",\n  \"extra\": true,\n  \"limit\": 0,\n  \"opts\": {}\n}",
		},
		{
			name: "not json", tool: "edit", args: `{"path":`, wantErr: true,
			want: "Validation failed for tool \"edit\":\n  - root: arguments are not valid JSON\n\nReceived arguments:\n{\"path\":",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Validate(tt.tool, json.RawMessage(tt.args))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("no error; got %s", got)
				}
				if err.Error() != tt.want {
					t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestNewValidatorBadSchema(t *testing.T) {
	for _, params := range []string{`{"type": 5}`, `{"$ref": "http://example.com/s.json"}`, `{`} {
		_, err := NewValidator([]event.ToolDef{{Name: "bad", Parameters: json.RawMessage(params)}})
		if err == nil || !strings.HasPrefix(err.Error(), `tool "bad": parameters: `) {
			t.Errorf("%s: err = %v", params, err)
		}
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(`{"path":"a","limit":"42","lines":"[1]"}`)
	f.Add(`{"opts":"{\"depth\":\"1\"}"}`)
	f.Add(`[]`)
	v := validator(f)
	f.Fuzz(func(t *testing.T, args string) {
		out, err := v.Validate("edit", json.RawMessage(args))
		if err == nil && !json.Valid(out) {
			t.Fatalf("valid result is not JSON: %s", out)
		}
	})
}

// A 5,000-deep argument gives a bounded error, not its indented echo (47 MB
// before).
func TestValidationErrorIsBounded(t *testing.T) {
	v, err := NewValidator([]event.ToolDef{{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	deep := `{"a":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`
	_, err = v.Validate("t", json.RawMessage(deep))
	if err == nil {
		t.Fatal("want a validation error")
	}
	if n := len(err.Error()); n > 16<<10 {
		t.Errorf("validation error of %d bytes", n)
	}
}

func TestSchemaCheck(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["n"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		doc  string
		want []string
		bad  bool // not JSON
	}{
		{`{"n":1,"tags":["a"]}`, nil, false},
		{`{"n":"1"}`, []string{"n: must be integer"}, false}, // no coercion
		{`{"tags":[1],"x":0}`, []string{"n: must have required property 'n'", "root: must NOT have additional property 'x'", "tags/0: must be string"}, false},
		{`{"n":`, nil, true},
	} {
		got, err := s.Check([]byte(tc.doc))
		if (err != nil) != tc.bad {
			t.Errorf("%s: error %v", tc.doc, err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: %s", tc.doc, d)
		}
	}
	if _, err := Compile([]byte(`{"type":`)); err == nil {
		t.Error("a schema that is not JSON compiled")
	}
}

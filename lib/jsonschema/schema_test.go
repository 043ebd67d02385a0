package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// The validator is checked against santhosh-tekuri/jsonschema (a complete
// draft 2020-12 implementation, used here only as the test oracle): same
// verdict for every schema and instance of the corpus below.

var diffSchemas = []string{
	editSchema,
	`true`, `false`, `{}`,
	`{"type":["string","null"]}`,
	`{"type":"integer","minimum":1,"maximum":10,"multipleOf":2}`,
	`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5}`,
	`{"type":"string","minLength":2,"maxLength":3,"pattern":"^[a-zé]+$"}`,
	`{"enum":[1,"a",null,{"x":[1,2]}]}`,
	`{"const":{"a":1.0}}`,
	`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3,"uniqueItems":true}`,
	`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`,
	`{"type":"array","contains":{"type":"string"},"minContains":2,"maxContains":3}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x_":{"type":"integer"}},"additionalProperties":{"type":"boolean"}}`,
	`{"type":"object","minProperties":1,"maxProperties":2,"propertyNames":{"maxLength":3}}`,
	`{"type":"object","dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}}}`,
	`{"anyOf":[{"type":"integer"},{"type":"string","minLength":3}]}`,
	`{"oneOf":[{"type":"integer"},{"type":"number","minimum":2}]}`,
	`{"allOf":[{"required":["a"]},{"properties":{"a":{"type":"string"}}}]}`,
	`{"not":{"type":"string"}}`,
	`{"if":{"properties":{"kind":{"const":"file"}}},"then":{"required":["path"]},"else":{"required":["url"]}}`,
	`{"$defs":{"pos":{"type":"integer","minimum":0}},"type":"object","properties":{"n":{"$ref":"#/$defs/pos"},"m":{"$ref":"#/$defs/pos"}}}`,
	`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}},"required":["v"]}},"$ref":"#/$defs/node"}`,
	`{"$defs":{"a":{"$anchor":"name","type":"string"}},"properties":{"x":{"$ref":"#name"}}}`,
	`{"properties":{"default":{"$anchor":"d","type":"string"},"enum":{"$id":"https://example.com/e.json","type":"integer"},"b":{"$ref":"#d"},"x":{"$ref":"https://example.com/e.json"}}}`,
	`{"$id":"https://example.com/tool.json","$defs":{"s":{"type":"string"}},"properties":{"x":{"$ref":"https://example.com/tool.json#/$defs/s"}}}`,
	`{"properties":{"a":{"type":"string"}},"unevaluatedProperties":false}`,
	`{"allOf":[{"properties":{"a":true}}],"properties":{"b":true},"unevaluatedProperties":false}`,
	`{"anyOf":[{"properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"b":true}}],"unevaluatedProperties":false}`,
	`{"prefixItems":[true],"unevaluatedItems":{"type":"string"}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/s","type":"integer"}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}],"additionalItems":false}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
	`{"$schema":"http://json-schema.org/draft-04/schema#","type":"number","minimum":1,"exclusiveMinimum":true}`,
	`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array","items":{"type":"object","required":["c"]}}}}}}`,
}

var diffInstances = []string{
	`null`, `true`, `false`, `0`, `1`, `1.0`, `2`, `2.5`, `4`, `11`, `-1`, `1e2`,
	`""`, `"a"`, `"ab"`, `"abc"`, `"abcd"`, `"éé"`, `"A1"`, `"file"`,
	`[]`, `[1]`, `[1,1]`, `[1,2,3,4]`, `["a",1]`, `["a",1,2]`, `["a","b"]`, `["a","b","c","d"]`, `[1,"x"]`, `[{"c":1},{}]`,
	`{}`, `{"a":"x"}`, `{"a":1}`, `{"a":1.0}`, `{"b":1}`, `{"a":"x","b":true}`, `{"x_1":2}`, `{"x_1":"s"}`, `{"zz":true}`, `{"zz":1}`,
	`{"abcd":1}`, `{"a":1,"b":2,"c":3}`, `{"c":1}`, `{"c":1,"d":2}`, `{"kind":"file"}`, `{"kind":"file","path":"p"}`, `{"url":"u"}`,
	`{"n":1,"m":-1}`, `{"v":1,"next":{"v":2}}`, `{"v":1,"next":{"v":"x"}}`, `{"x":"s"}`, `{"x":5}`,
	`{"path":"a"}`, `{"path":"a","limit":0}`, `{"path":"a","mode":"c"}`, `{"path":"a","opts":{}}`, `{"path":1,"extra":1}`,
	`{"a":{"b":[{"c":1},{"d":1}]}}`, `{"x":[1,2]}`,
	// numbers beyond float64, spelled in several ways (big.Rat still holds them)
	`-0`, `0e5`, `10e-1`, `0.02e2`, `1.5e1`, `1e400`, `-1e400`, `1e-400`, `-1e-400`, `2e-1`, `1.5000000000000000000001`,
	`[1e400,1e+400]`, `[10e399,1e400]`, `{"a":1e-400}`,
}

func oracle(doc string) (*santhosh.Schema, error) {
	d, err := santhosh.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource("tool:///t.json", d); err != nil {
		return nil, err
	}
	return c.Compile("tool:///t.json")
}

func TestSchemaMatchesOracle(t *testing.T) {
	for i, doc := range diffSchemas {
		want, err := oracle(doc)
		if err != nil {
			t.Fatalf("schema %d: oracle: %v", i, err)
		}
		got, err := compileSchema([]byte(doc))
		if err != nil {
			t.Fatalf("schema %d %s: %v", i, doc, err)
		}
		for _, in := range diffInstances {
			inst, _ := decodeJSON([]byte(in))
			errs, _ := got.validate(inst, nil, 0)
			oinst, _ := santhosh.UnmarshalJSON(strings.NewReader(in))
			if ok, wantOK := len(errs) == 0, want.Validate(oinst) == nil; ok != wantOK {
				t.Errorf("schema %s, instance %s: valid=%v, oracle says %v (%v)", doc, in, ok, wantOK, problems(errs))
			}
		}
	}
}

func TestSchemaCompileErrors(t *testing.T) {
	for _, doc := range []string{
		`5`, `"x"`, `{"type":5}`, `{"type":"int"}`, `{"type":["string",1]}`, `{"properties":[]}`, `{"properties":{"a":5}}`,
		`{"required":"a"}`, `{"required":[1]}`, `{"enum":{}}`, `{"minimum":"1"}`, `{"minLength":-1}`, `{"minLength":1.5}`,
		`{"pattern":"("}`, `{"patternProperties":{"(":{}}}`, `{"anyOf":[]}`, `{"allOf":{}}`, `{"not":5}`, `{"multipleOf":0}`,
		`{"uniqueItems":"yes"}`, `{"$ref":"http://example.com/s.json"}`, `{"$ref":"#/$defs/missing"}`, `{"$ref":"#nowhere"}`,
		`{"$ref":5}`, `{"items":5}`, `{"dependentRequired":{"a":[1]}}`, `{`, `{} {}`,
	} {
		if _, err := compileSchema([]byte(doc)); err == nil {
			t.Errorf("%s: compiled", doc)
		}
	}
}

func TestSchemaRecursionBounded(t *testing.T) {
	s, err := compileSchema([]byte(`{"$ref":"#"}`))
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := s.validate(map[string]any{}, nil, 0); len(errs) == 0 {
		t.Fatal("a schema that refers to itself forever should fail, not loop")
	}
}

func TestProblemsWording(t *testing.T) {
	cases := []struct{ schema, inst, want string }{
		{`{"const":1}`, `2`, "root: must be equal to constant"},
		{`{"exclusiveMinimum":0}`, `0`, "root: must be > 0"},
		{`{"exclusiveMaximum":1.5}`, `2`, "root: must be < 1.5"},
		{`{"multipleOf":3}`, `4`, "root: must be multiple of 3"},
		{`{"minProperties":1}`, `{}`, "root: must NOT have fewer than 1 properties"},
		{`{"uniqueItems":true}`, `[1,1]`, "root: must NOT have duplicate items (items ## 1 and 0 are identical)"},
		{`{"not":{}}`, `1`, "root: must NOT be valid"},
		{`{"oneOf":[{},{}]}`, `1`, "root: must match exactly one schema in oneOf"},
		{`{"properties":{"a":{"pattern":"^x"}}}`, `{"a":"y"}`, `a: must match pattern "^x"`},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, "root: must have property 'b' when property 'a' is present"},
		{`{"unevaluatedProperties":false}`, `{"a":1}`, "root: must NOT have unevaluated property 'a'"},
		{`{"contains":{"type":"string"}}`, `[1]`, "root: must contain at least 1 valid item(s)"},
		{`{"properties":{"a":false}}`, `{"a":1}`, "a: boolean schema is false"},
	}
	for _, c := range cases {
		s, err := compileSchema([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		inst, _ := decodeJSON([]byte(c.inst))
		errs, _ := s.validate(inst, nil, 0)
		if got := strings.Join(problems(errs), "\n"); got != c.want {
			t.Errorf("%s on %s: %q, want %q", c.schema, c.inst, got, c.want)
		}
	}
}

// FuzzSchemaOracle compares verdicts on fuzzed instances for every corpus
// schema.
func FuzzSchemaOracle(f *testing.F) {
	for _, in := range diffInstances {
		f.Add(in)
	}
	type pair struct {
		ours   *schema
		oracle *santhosh.Schema
	}
	var ps []pair
	for _, doc := range diffSchemas {
		o, err := oracle(doc)
		if err != nil {
			f.Fatal(err)
		}
		s, err := compileSchema([]byte(doc))
		if err != nil {
			f.Fatal(err)
		}
		ps = append(ps, pair{s, o})
	}
	f.Fuzz(func(t *testing.T, in string) {
		inst, err := decodeJSON([]byte(in))
		oinst, oerr := santhosh.UnmarshalJSON(strings.NewReader(in))
		if (err == nil) != (oerr == nil) {
			t.Fatalf("decode %q: %v vs oracle %v", in, err, oerr)
		}
		if err != nil || !json.Valid([]byte(in)) || bytes.Contains([]byte(in), []byte(`\u0000`)) {
			return
		}
		for i, p := range ps {
			errs, _ := p.ours.validate(inst, nil, 0)
			wantOK, judged := oracleValid(p.oracle, oinst)
			if !judged {
				t.Skipf("the oracle panics on %s", in)
			}
			if ok := len(errs) == 0; ok != wantOK {
				t.Fatalf("%s", fmt.Sprintf("schema %s, instance %s: valid=%v, oracle %v", diffSchemas[i], in, ok, wantOK))
			}
		}
	})
}

// oracleValid is the oracle's verdict; judged is false when it panics
// instead (jsonschema v6.0.3 does on a number big.Rat cannot hold, such as
// 1e777777772), so the fuzzer goes on looking for our mistakes.
func oracleValid(s *santhosh.Schema, inst any) (valid, judged bool) {
	defer func() {
		if recover() != nil {
			valid, judged = false, false
		}
	}()
	return s.Validate(inst) == nil, true
}

// TestSchemaHugeExponents: numbers with exponents beyond what big.Rat (and
// so the oracle) accepts are compared exactly: as ±infinity or ±0 in
// magnitude against any bound, and exact among themselves.
func TestSchemaHugeExponents(t *testing.T) {
	cases := []struct {
		schema, inst string
		want         string // the problems, "" when valid
	}{
		{`{"minimum":1,"maximum":10}`, `1e9999999`, "root: must be <= 10"},
		{`{"minimum":1,"maximum":10}`, `-1e9999999`, "root: must be >= 1"},
		{`{"minimum":1,"maximum":10}`, `1e-9999999`, "root: must be >= 1"},
		{`{"minimum":1,"maximum":10}`, `5e99999999999999999999`, "root: must be <= 10"},
		{`{"exclusiveMinimum":0}`, `1e-9999999`, ""},
		{`{"exclusiveMinimum":0}`, `-1e-9999999`, "root: must be > 0"},
		{`{"exclusiveMinimum":0}`, `0e9999999`, "root: must be > 0"},
		{`{"exclusiveMaximum":0}`, `-1E+9999999`, ""},
		{`{"exclusiveMaximum":1e-999999}`, `1e-9999999`, ""},
		{`{"exclusiveMaximum":1e-999999}`, `1e-999999`, "root: must be < 1e-999999"},
		{`{"minimum":1e9999999}`, `1e9999998`, "root: must be >= 1e9999999"},
		{`{"minimum":1e9999999}`, `10e9999998`, ""},
		{`{"minimum":1e99999999999999999999}`, `1e99999999999999999998`, "root: must be >= 1e99999999999999999999"},
		{`{"maximum":-1e99999999999999999999}`, `-0.1e100000000000000000000`, ""},
		{`{"type":"integer"}`, `1e9999999`, ""},
		{`{"type":"integer"}`, `1.5e99999999999999999999`, ""},
		{`{"type":"integer"}`, `1e-9999999`, "root: must be integer"},
		{`{"multipleOf":3}`, `3e9999999`, ""},
		{`{"multipleOf":3}`, `1e9999999`, "root: must be multiple of 3"},
		{`{"multipleOf":0.25}`, `1e99999999999999999999`, ""},
		{`{"multipleOf":0.25}`, `1e-9999999`, "root: must be multiple of 0.25"},
		{`{"multipleOf":1e-20}`, `123e-20`, ""},
		{`{"multipleOf":1e-20}`, `123e-21`, "root: must be multiple of 1e-20"},
		{`{"const":1e9999999}`, `10e9999998`, ""},
		{`{"const":1e9999999}`, `1e9999998`, "root: must be equal to constant"},
		{`{"enum":[1e99999999999999999999]}`, `0.1e100000000000000000000`, ""},
		{`{"enum":[1e99999999999999999999]}`, `1e99999999999999999998`, "root: must be equal to one of the allowed values"},
		{`{"uniqueItems":true}`, `[1e9999999,10e9999998]`, "root: must NOT have duplicate items (items ## 1 and 0 are identical)"},
		{`{"maxItems":1e9999999}`, `[1,2]`, ""},
		{`{"minItems":1e9999999}`, `[1,2]`, "root: must NOT have fewer than " + fmt.Sprint(math.MaxInt) + " items"},
	}
	for _, c := range cases {
		s, err := compileSchema([]byte(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		inst, err := decodeJSON([]byte(c.inst))
		if err != nil {
			t.Fatal(err)
		}
		errs, _ := s.validate(inst, nil, 0)
		if got := strings.Join(problems(errs), "\n"); got != c.want {
			t.Errorf("%s on %s: %q, want %q", c.schema, c.inst, got, c.want)
		}
	}
	// A multipleOf big.Rat cannot hold is refused when the schema compiles.
	if _, err := compileSchema([]byte(`{"multipleOf":1e-9999999}`)); err == nil || !strings.Contains(err.Error(), "multipleOf") {
		t.Errorf("multipleOf 1e-9999999: %v", err)
	}
}

func TestSchemaCompileErrorStable(t *testing.T) {
	doc := []byte(`{"minProperties":-1,"maxProperties":-1,"minItems":-1,"maxItems":-1,"minLength":-1,"maxLength":-1}`)
	for i := 0; i < 20; i++ {
		_, err := compileSchema(doc)
		if err == nil || err.Error() != "minProperties: must be a non-negative integer" {
			t.Fatalf("run %d: %v, want the first bad keyword, minProperties", i, err)
		}
	}
}

// Package formats holds the specification of every agentutils stream: for each
// format a directory with the prose (README.md), a JSON Schema (schema.json)
// and a conformance corpus (valid/, invalid/). This test runs the corpus.
//
// Corpus rules, the same for every format:
//   - valid/*.jsonl: every non-empty line is one record that must validate;
//   - valid/*.json: the whole file is one record that must validate;
//   - invalid/*.json: the whole file is one record that must NOT validate;
//   - invalid/*.jsonl: every non-empty line must NOT validate.
//
// A format directory may also hold corpus files for a sub-schema in
// valid/NAME/ and invalid/NAME/, validated against schema.json#/$defs/NAME.
package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dirs lists the format directories (those holding a schema.json).
func dirs(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob("*/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range m {
		out = append(out, filepath.Dir(p))
	}
	return out
}

func TestCorpus(t *testing.T) {
	ds := dirs(t)
	if len(ds) == 0 {
		t.Fatal("no format directories with a schema.json")
	}
	for _, dir := range ds {
		t.Run(dir, func(t *testing.T) {
			c := jsonschema.NewCompiler()
			abs, _ := filepath.Abs(filepath.Join(dir, "schema.json"))
			root, err := c.Compile(abs)
			if err != nil {
				t.Fatalf("schema: %v", err)
			}
			nValid, nInvalid := 0, 0
			for _, want := range []bool{true, false} {
				sub := "valid"
				if !want {
					sub = "invalid"
				}
				files, _ := filepath.Glob(filepath.Join(dir, sub, "*.json*"))
				more, _ := filepath.Glob(filepath.Join(dir, sub, "*", "*.json*"))
				files = append(files, more...)
				for _, f := range files {
					sch := root
					if rel, _ := filepath.Rel(filepath.Join(dir, sub), f); strings.Contains(rel, string(filepath.Separator)) {
						def := strings.SplitN(rel, string(filepath.Separator), 2)[0]
						sch, err = c.Compile(abs + "#/$defs/" + def)
						if err != nil {
							t.Fatalf("%s: sub-schema %q: %v", f, def, err)
						}
					}
					for _, doc := range docs(t, f) {
						err := sch.Validate(doc.v)
						switch {
						case want && err != nil:
							t.Errorf("%s:%d should be valid: %v", f, doc.line, err)
						case !want && err == nil:
							t.Errorf("%s:%d should be invalid but validates", f, doc.line)
						}
						if want {
							nValid++
						} else {
							nInvalid++
						}
					}
				}
			}
			if nValid == 0 || nInvalid == 0 {
				t.Errorf("corpus needs valid and invalid examples (have %d valid, %d invalid)", nValid, nInvalid)
			}
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
				t.Errorf("%s has no README.md (the prose spec)", dir)
			}
		})
	}
}

type doc struct {
	line int
	v    any
}

func docs(t *testing.T, path string) []doc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parse := func(b []byte, line int) doc {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err == nil && !utf8.Valid(b) {
			err = errors.New("not UTF-8") // RFC 8259: JSON text is UTF-8
		}
		if err != nil {
			// Malformed JSON is only acceptable in the invalid corpus.
			if strings.Contains(path, string(filepath.Separator)+"invalid"+string(filepath.Separator)) {
				return doc{line, json.RawMessage(b)}
			}
			t.Fatalf("%s:%d: not JSON: %v", path, line, err)
		}
		return doc{line, v}
	}
	if strings.HasSuffix(path, ".json") {
		return []doc{parse(data, 1)}
	}
	var out []doc
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		out = append(out, parse(append([]byte(nil), sc.Bytes()...), n))
	}
	return out
}

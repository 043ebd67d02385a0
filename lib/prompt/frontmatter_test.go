package prompt

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    Frontmatter
		body    string
		wantErr string
	}{
		{name: "none", doc: "# Title\nbody\n", body: "# Title\nbody\n"},
		{name: "unclosed is body", doc: "---\nname: x\nbody", body: "---\nname: x\nbody"},
		{name: "empty block", doc: "---\n---\nbody\n", body: "body\n"},
		{
			name: "skill",
			doc:  "---\nname: release\ndescription: Cut a release.\n---\n# Steps\n",
			want: Frontmatter{Name: "release", Description: "Cut a release."},
			body: "# Steps\n",
		},
		{
			name: "quotes and crlf",
			doc:  "---\r\nname: \"a: b\"\r\ndescription: 'it''s'\r\n---\r\nx",
			want: Frontmatter{Name: "a: b", Description: "it's"},
			body: "x",
		},
		{
			name: "flow list and bool",
			doc:  "---\nglobs: [\"*.go\", '**/*.ts', x]\nalwaysApply: true\n---\n",
			want: Frontmatter{Globs: []string{"*.go", "**/*.ts", "x"}, AlwaysApply: true},
		},
		{
			name: "comma string globs",
			doc:  "---\nglobs: *.go, *.mod\n---\n",
			want: Frontmatter{Globs: []string{"*.go", "*.mod"}},
		},
		{
			name: "block list",
			doc:  "---\nglobs:\n  - a/**\n  - \"b\"\ndescription: d\n---\n",
			want: Frontmatter{Globs: []string{"a/**", "b"}, Description: "d"},
		},
		{
			name: "folded description",
			doc:  "---\ndescription: >\n  Long text\n  on two lines.\n---\n",
			want: Frontmatter{Description: "Long text on two lines."},
		},
		{
			name: "plain continuation",
			doc:  "---\ndescription: one\n  two\n---\n",
			want: Frontmatter{Description: "one two"},
		},
		{
			name: "comments and condition",
			doc:  "---\n<!-- hidden: yes -->\n# a comment\nttsr_trigger: \"console\\\\.log\"\ndescription: x # trailing\n---\n",
			want: Frontmatter{Condition: `console\.log`, Description: "x"},
		},
		{
			name: "extra keys kept",
			doc:  "---\nmodel: fast\nargument-hint: <file>\ntags: [a]\n---\n",
			want: Frontmatter{ArgumentHint: "<file>", Extra: map[string]any{"model": "fast", "tags": []any{"a"}}},
		},
		// YAML that the hand-written reader refused or misread (issue #22)
		{
			name: "quoted value with a comment",
			doc:  "---\nname: \"x\" # comment\ndescription: 'y' # another\n---\n",
			want: Frontmatter{Name: "x", Description: "y"},
		},
		{
			name: "literal block keeps its lines",
			doc:  "---\ndescription: |\n  First line.\n  Second line.\n\n  After a blank.\nname: n\n---\n",
			want: Frontmatter{Name: "n", Description: "First line.\nSecond line.\n\nAfter a blank."},
		},
		{
			name: "nested map kept as a map",
			doc:  "---\nname: n\nmetadata:\n  owner: docs\n  tags: [a, b]\n  limits:\n    turns: 3\n---\n",
			want: Frontmatter{Name: "n", Extra: map[string]any{"metadata": map[string]any{
				"owner": "docs", "tags": []any{"a", "b"}, "limits": map[string]any{"turns": 3}}}},
		},
		{
			name: "glob starting with a star is text",
			doc:  "---\nglobs: **/*.ts\nalwaysApply: false\n---\n",
			want: Frontmatter{Globs: []string{"**/*.ts"}},
		},
		{name: "no colon", doc: "---\nname x\n---\n", wantErr: "line 2: want \"key: value\", got \"name x\""},
		{name: "unclosed list", doc: "---\nglobs: [a\n---\n", wantErr: "line 2: did not find expected ',' or ']'"},
		{name: "unclosed quote", doc: "---\nname: \"x\n---\n", wantErr: "line 2: found unexpected end of stream"},
		{name: "indent first", doc: "---\n  x\n---\n", wantErr: "line 2: want \"key: value\", got \"x\""},
		{name: "a list", doc: "---\n- a\n---\n", wantErr: "line 2: want \"key: value\" lines, got a list"},
		{name: "item after scalar", doc: "---\nname: x\n- y\n---\n", wantErr: "line 2: did not find expected key"},
		{name: "bad indent later", doc: "---\nname: x\ndescription: y\n  bad: 1\n---\n", wantErr: "line 4: mapping values are not allowed"},
		{name: "duplicate key", doc: "---\nname: x\n\nname: y\n---\n", wantErr: "line 4: mapping key \"name\" already defined at line 2"},
		{name: "map for text", doc: "---\nname:\n  a: b\n---\n", wantErr: "line 3: name: want text, got a map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body, err := ParseFrontmatter(tt.doc)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("frontmatter (-want +got):\n%s", d)
			}
			if body != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
		})
	}
}

func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: x\ndescription: y\n---\nbody",
		"---\nglobs: [a, 'b', \"c\"]\nalwaysApply: true\n---\n",
		"---\nglobs:\n  - a\n  - b\n---\n",
		"---\ndescription: >\n  a\n  b\n---\n",
		"---\n<!-- c -->\nx: \"\\u00e9\"\n---\n",
		"no frontmatter",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		fm, body, err := ParseFrontmatter(doc)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("error without a line number: %v", err)
			}
			return
		}
		// The body is always a suffix of the document.
		if !strings.HasSuffix(strings.TrimPrefix(doc, "\ufeff"), body) {
			t.Fatalf("body %q is not a suffix of %q", body, doc)
		}
		_ = fm
	})
}

package mcpconfig

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var testEnv = env(map[string]string{"GH_TOKEN": "t0k", "HOME": "/home/u", "DB_URL": ""})

// TestParseFormats parses one fixture per client format and compares the
// canonical servers with a golden file.
func TestParseFormats(t *testing.T) {
	cases := []struct {
		file, format, key string
	}{
		{"native.json", "native", ""},
		{"claude.json", "mcpservers", ""},
		{"claude.json", "claude-local", "/work/p"},
		{"dotmcp.json", "mcpservers", ""},
		{"desktop.json", "mcpservers", ""},
		{"cursor.json", "mcpservers", ""},
		{"codex.toml", "codex", ""},
		{"gemini.json", "gemini", ""},
		{"opencode.json", "opencode", ""},
		{"vscode.json", "vscode", ""},
		{"vscode-settings.json", "vscode", ""},
		{"windsurf.json", "windsurf", ""},
	}
	for _, c := range cases {
		name := strings.TrimSuffix(c.file, filepath.Ext(c.file)) + "-" + c.format
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(Location{Path: c.file, Format: c.format, Key: c.key}, data, testEnv)
			if err != nil {
				t.Fatal(err)
			}
			type out struct {
				Name   string `json:"name"`
				Server Server `json:"config"`
			}
			var got []out
			for _, n := range f.Order {
				got = append(got, out{n, f.Servers[n]})
			}
			b, _ := json.MarshalIndent(map[string]any{"servers": got, "disabledServers": f.DisabledServers, "trustedProjects": f.TrustedProjects}, "", "  ")
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				_ = os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if d := cmp.Diff(string(want), string(b)+"\n"); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ file, format, want string }{
		{"bad-json.json", "native", "bad-json.json: line 2: invalid character ','"},
		{"bad-both.json", "mcpservers", `bad-both.json: server "a": both "command" and "url" are set`},
		{"bad-type.json", "mcpservers", `bad-type.json: server "a": unknown server type "websocket"`},
		{"bad.toml", "codex", "bad.toml: line 2:"},
	}
	for _, c := range cases {
		data, _ := os.ReadFile(filepath.Join("testdata", c.file))
		_, err := Parse(Location{Path: c.file, Format: c.format}, data, testEnv)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want prefix %q", c.file, err, c.want)
		}
	}
}

func TestExpand(t *testing.T) {
	e := env(map[string]string{"A": "1", "EMPTY": ""})
	cases := []struct{ in, want string }{
		{"${A}", "1"},
		{"x${A}y${A}", "x1y1"},
		{"${B}", "${B}"},
		{"${B:-dflt}", "dflt"},
		{"${EMPTY:-d}", "d"},
		{"${B:-}", ""},
		{"$A", "$A"},
		{"${A:-x}", "1"},
	}
	for _, c := range cases {
		if got := Expand(c.in, e); got != c.want {
			t.Errorf("Expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMerge(t *testing.T) {
	locs := Locations(Places{Home: "/h", Cwd: "/p", ConfigDir: "/h/.config/agentutils"})
	files := map[string]string{
		"/p/.agentutils/mcp.json":        `{"mcpServers":{"a":{"command":"proj-a"}}}`,
		"/h/.config/agentutils/mcp.json": `{"mcpServers":{"a":{"command":"user-a"},"b":{"command":"user-b"}},"disabledServers":["c"]}`,
		"/p/.mcp.json":                   `{"mcpServers":{"b":{"command":"claude-b"},"c":{"command":"claude-c"}}}`,
		"/h/.claude.json":                `{"mcpServers":{"d":{"command":"claude-user-d"}},"projects":{"/p":{"mcpServers":{"e":{"command":"local-e"}}}}}`,
		"/h/.claude/mcp.json":            `{"mcpServers":{"x":{"command":"never: first of group wins"}}}`,
		"/h/.cursor/mcp.json":            `{"mcpServers":{"d":{"command":"cursor-d"}}}`,
	}
	var found []Found
	for _, l := range locs {
		if data, ok := files[l.Path]; ok {
			f, err := Parse(l, []byte(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, Found{l, f})
		}
	}
	summary := func(es []Entry) []string {
		var out []string
		for _, e := range es {
			s := e.Name + "=" + e.Server.Command
			if e.Shadowed {
				s += " shadowed"
			}
			if e.Disabled {
				s += " disabled"
			}
			out = append(out, s)
		}
		return out
	}
	cases := []struct {
		name    string
		o       Options
		servers []string
		all     []string
		skipped []string
	}{
		{"trusted", Options{Trusted: true},
			[]string{"a=proj-a", "b=user-b", "e=local-e", "c=claude-c disabled", "d=claude-user-d"},
			[]string{"a=proj-a", "a=user-a shadowed", "b=user-b", "e=local-e", "b=claude-b shadowed", "c=claude-c disabled", "d=claude-user-d", "d=cursor-d shadowed"},
			nil},
		{"untrusted", Options{},
			[]string{"a=user-a", "b=user-b", "e=local-e", "d=claude-user-d"},
			[]string{"a=user-a", "b=user-b", "e=local-e", "d=claude-user-d", "d=cursor-d shadowed"},
			[]string{"a=proj-a", "b=claude-b", "c=claude-c"}},
		{"no project", Options{Trusted: true, NoProject: true},
			[]string{"a=user-a", "b=user-b", "e=local-e", "d=claude-user-d"},
			[]string{"a=user-a", "b=user-b", "e=local-e", "d=claude-user-d", "d=cursor-d shadowed"},
			nil},
		{"only cursor", Options{Trusted: true, OnlySource: "cursor"},
			[]string{"d=cursor-d"}, []string{"d=cursor-d"}, nil},
	}
	for _, c := range cases {
		r := Merge(append([]Found(nil), found...), c.o)
		if d := cmp.Diff(c.servers, summary(r.Servers)); d != "" {
			t.Errorf("%s servers (-want +got):\n%s", c.name, d)
		}
		if d := cmp.Diff(c.all, summary(r.All)); d != "" {
			t.Errorf("%s all (-want +got):\n%s", c.name, d)
		}
		if d := cmp.Diff(c.skipped, summary(r.SkippedUntrusted)); d != "" {
			t.Errorf("%s skipped (-want +got):\n%s", c.name, d)
		}
	}
}

func TestEdit(t *testing.T) {
	in := []byte(`{"keep": 1, "mcpServers": {"a": {"command": "x"}}}`)
	out, err := Edit(in, "m.json", func(d *Doc) error {
		if err := d.Add("b", Server{Type: "http", URL: "http://h"}); err != nil {
			return err
		}
		if err := d.SetEnabled("a", false); err != nil {
			return err
		}
		d.SetDisabled("zz", true)
		d.SetDisabled("aa", true)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "$schema": "https://agentutils.dev/schemas/mcp.json",
  "disabledServers": [
    "aa",
    "zz"
  ],
  "keep": 1,
  "mcpServers": {
    "a": {
      "command": "x",
      "enabled": false
    },
    "b": {
      "type": "http",
      "url": "http://h"
    }
  }
}
`
	if d := cmp.Diff(want, string(out)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, c := range []struct {
		fn   func(d *Doc) error
		want string
	}{
		{func(d *Doc) error { return d.Add("a", Server{Command: "y"}) }, `server "a" already exists in m.json`},
		{func(d *Doc) error { return d.Remove("nope") }, `server "nope" not found in m.json`},
		{func(d *Doc) error { return d.Add("bad name", Server{Command: "y"}) }, `server name "bad name": use 1-100 of [a-zA-Z0-9_.-]`},
		{func(d *Doc) error { return d.Add("u", Server{Type: "http"}) }, `server "u": http server requires "url" field`},
	} {
		_, err := Edit(in, "m.json", c.fn)
		if err == nil || err.Error() != c.want {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"native.json", "opencode.json", "vscode.json", "gemini.json", "codex.toml"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b, strings.HasSuffix(name, ".toml"))
	}
	formats := []string{"native", "mcpservers", "gemini", "opencode", "vscode", "windsurf", "claude-local"}
	f.Fuzz(func(t *testing.T, data []byte, toml bool) {
		if toml {
			_, _ = Parse(Location{Format: "codex"}, data, nil)
			return
		}
		for _, fm := range formats {
			_, _ = Parse(Location{Format: fm, Key: "/p"}, data, env(nil))
		}
	})
}

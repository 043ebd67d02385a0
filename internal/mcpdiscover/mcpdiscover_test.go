package mcpdiscover

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDiscover: a project's own servers are used only when something
// trusts the project; a broken file of another client is skipped with a
// warning, a broken one of ours is an error.
func TestDiscover(t *testing.T) {
	const project = `{"mcpServers":{"proj":{"command":"proj-server"}}}`
	const user = `{"mcpServers":{"mine":{"command":"my-server"}}}`
	tests := []struct {
		name    string
		files   map[string]string // relative to the home directory; project/ is the project
		trust   bool
		ask     *bool // nil: nobody is asked
		want    []string
		trusted bool
		asked   bool
		warn    string
		err     string
	}{
		{name: "untrusted project", files: map[string]string{"config/mcp.json": user, "project/.agentutils/mcp.json": project},
			want: []string{"mine"}},
		{name: "--trust", files: map[string]string{"config/mcp.json": user, "project/.agentutils/mcp.json": project},
			trust: true, want: []string{"proj", "mine"}, trusted: true},
		{name: "trustedProjects of the user file", files: map[string]string{
			"config/mcp.json": `{"trustedProjects":["${HOME}/project"],"mcpServers":{"mine":{"command":"my-server"}}}`, "project/.agentutils/mcp.json": project},
			want: []string{"proj", "mine"}, trusted: true},
		{name: "the trust file", files: map[string]string{"data/trust.json": `[{"root":"HOME/project"}]`, "project/.agentutils/mcp.json": project},
			want: []string{"proj"}, trusted: true},
		{name: "asked: yes", files: map[string]string{"project/.agentutils/mcp.json": project}, ask: new(true),
			want: []string{"proj"}, trusted: true, asked: true},
		{name: "asked: no", files: map[string]string{"project/.agentutils/mcp.json": project}, ask: new(false), asked: true},
		{name: "another client's broken file is skipped", files: map[string]string{"config/mcp.json": user, "project/.mcp.json": `{`},
			want: []string{"mine"}, warn: "skipping "},
		{name: "a broken file of ours is an error", files: map[string]string{"config/mcp.json": `{`}, err: "mcp.json"},
		{name: "a broken trust file is an error", files: map[string]string{"data/trust.json": `{`, "project/.agentutils/mcp.json": project},
			err: "trust file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			for name, data := range tt.files {
				write(t, filepath.Join(home, name), strings.ReplaceAll(data, "HOME/", home+"/"))
			}
			var warns []string
			asked := false
			o := Options{Getenv: func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			}, Dirs: dirs.Dirs{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data")},
				Cwd: filepath.Join(home, "project"), Trust: tt.trust, Warn: func(m string) { warns = append(warns, m) }}
			if tt.ask != nil {
				o.Ask = func([]mcpconfig.Entry) (bool, error) { asked = true; return *tt.ask, nil }
			}
			res, trusted, err := Discover(o)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || exit.Code(err) != exit.Usage {
					t.Fatalf("error %v, want one with %q (exit 2)", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range res.Servers {
				names = append(names, e.Name)
			}
			if d := cmp.Diff(tt.want, names); d != "" {
				t.Errorf("servers (-want +got):\n%s", d)
			}
			if trusted != tt.trusted || asked != tt.asked {
				t.Errorf("trusted %v, asked %v; want %v, %v", trusted, asked, tt.trusted, tt.asked)
			}
			if (tt.warn == "") != (len(warns) == 0) || (tt.warn != "" && !strings.HasPrefix(warns[0], tt.warn)) {
				t.Errorf("warnings %q, want one starting %q", warns, tt.warn)
			}
		})
	}
}

func TestRecordTrust(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "trust.json")
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	for _, p := range []string{"/a", "/b"} {
		if err := RecordTrust(path, p, now); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		cwd  string
		want bool
	}{{"/a", true}, {"/a/sub", true}, {"/ab", false}, {"/c", false}} {
		if got, err := IsTrusted(path, tt.cwd, nil, func(string) string { return "" }); err != nil || got != tt.want {
			t.Errorf("IsTrusted(%s) = %v, %v", tt.cwd, got, err)
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("trust file: %v, %v", st, err)
	}
	write(t, path, `{`)
	if err := RecordTrust(path, "/c", now); err == nil || exit.Code(err) != exit.Usage {
		t.Errorf("RecordTrust over a broken file: %v", err)
	}
}

func TestToolCache(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := ToolCache{Dir: t.TempDir(), Now: func() time.Time { return clock }, FileID: func(s string) string { return "id-" + s }}
	e := mcpconfig.Entry{Name: "s", Server: mcpconfig.Server{Command: "srv"}}
	if _, ok := c.Read(e); ok {
		t.Fatal("a cache hit before any write")
	}
	tools := []*mcp.Tool{{Name: "echo"}}
	c.Write(e, tools)
	for _, tt := range []struct {
		name  string
		e     mcpconfig.Entry
		after time.Duration
		hit   bool
	}{
		{"fresh", e, 0, true},
		{"29 days on", e, 29 * 24 * time.Hour, true},
		{"31 days on", e, 31 * 24 * time.Hour, false},
		{"the configuration changed", mcpconfig.Entry{Name: "s", Server: mcpconfig.Server{Command: "other"}}, 0, false},
		{"another server", mcpconfig.Entry{Name: "t", Server: e.Server}, 0, false},
	} {
		c.Now = func() time.Time { return clock.Add(tt.after) }
		got, ok := c.Read(tt.e)
		if ok != tt.hit || (ok && (len(got) != 1 || got[0].Name != "echo")) {
			t.Errorf("%s: Read = %v, %v", tt.name, got, ok)
		}
	}
	if _, err := os.Stat(c.File("s")); err != nil || filepath.Base(c.File("s")) != "id-s.json" {
		t.Errorf("cache file %s: %v", c.File("s"), errors.Unwrap(err))
	}
}

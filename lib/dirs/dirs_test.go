package dirs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name string
		env  map[string]string
		want Dirs
	}{
		{"defaults", map[string]string{"HOME": "/h"}, Dirs{"/h/.config/agentutils", "/h/.local/share/agentutils", "/h/.cache/agentutils"}},
		{"xdg", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_CACHE_HOME": "/k"}, Dirs{"/c/agentutils", "/d/agentutils", "/k/agentutils"}},
		{"relative xdg ignored", map[string]string{"HOME": "/h", "XDG_DATA_HOME": "rel"}, Dirs{"/h/.config/agentutils", "/h/.local/share/agentutils", "/h/.cache/agentutils"}},
		{"home override", map[string]string{"HOME": "/h", "AGENTUTILS_HOME": "/t", "XDG_DATA_HOME": "/d"}, Dirs{"/t", "/t", "/t"}},
	}
	for _, c := range cases {
		if d := cmp.Diff(c.want, Resolve(env(c.env))); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
	if got := Resolve(env(map[string]string{"AGENTUTILS_HOME": "/t"})).Sessions(); got != "/t/sessions" {
		t.Errorf("Sessions = %q", got)
	}
}

func TestUp(t *testing.T) {
	marked := map[string]bool{"/a": true, "/a/b/c": true}
	cases := []struct {
		dir, want string
		ok        bool
	}{
		{"/a/b/c/d", "/a/b/c", true},
		{"/a/b/c", "/a/b/c", true},
		{"/a/b", "/a", true},
		{"/x/y", "", false},
		{"/", "", false},
	}
	for _, c := range cases {
		got, ok := Up(c.dir, func(d string) bool { return marked[d] })
		if got != c.want || ok != c.ok {
			t.Errorf("Up(%q) = %q, %v; want %q, %v", c.dir, got, ok, c.want, c.ok)
		}
	}
}

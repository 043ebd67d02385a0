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

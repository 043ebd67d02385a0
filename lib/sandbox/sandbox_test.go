package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	got := Expand([]string{"~/.ssh", "~", "{data}/credentials.json", "{config}/mcp.json", "rel/dir", "/abs/../x"}, "/w", "/h", "/c", "/d")
	want := []string{"/h/.ssh", "/h", "/d/credentials.json", "/c/mcp.json", "/w/rel/dir", "/x"}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}

func TestCaches(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"defaults", nil, []string{"/h/.cache/go-build", "/h/go/pkg/mod", "/h/.npm", "/h/.cache/pip"}},
		{"from the environment", map[string]string{"GOCACHE": "/gc", "GOPATH": "/gp1:/gp2", "npm_config_cache": "/n", "XDG_CACHE_HOME": "/x"},
			[]string{"/gc", "/gp1/pkg/mod", "/n", "/x/pip"}},
		{"relative values ignored", map[string]string{"GOCACHE": "rel", "GOMODCACHE": "/m", "PIP_CACHE_DIR": "/p"},
			[]string{"/h/.cache/go-build", "/m", "/h/.npm", "/p"}},
	} {
		got := Caches(func(k string) string { return c.env[k] }, "/h")
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s: %s", c.name, d)
		}
	}
}

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		p, dir string
		want   bool
	}{{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/x", "/", true}} {
		if got := Under(c.p, c.dir); got != c.want {
			t.Errorf("Under(%q, %q) = %v", c.p, c.dir, got)
		}
	}
}

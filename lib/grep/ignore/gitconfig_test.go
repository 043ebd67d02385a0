package ignore

import (
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each case was run through rg 13.0.0 (a ~/.gitconfig holding the config,
// a file named by it ignoring one file of a repository): want is the path
// rg used, "" when it found no setting.
func TestExcludesFileSetting(t *testing.T) {
	const home = "/h"
	for _, c := range []struct{ name, config, want string }{
		{"core section", "[core]\n\texcludesFile = /x/ig\n", "/x/ig"},
		{"any case, any spacing", "[CORE]\n   EXCLUDESFILE   =    /x/ig\n", "/x/ig"},
		{"no space, no indent", "[core]\nexcludesfile=/x/ig", "/x/ig"},
		{"the first one wins (git: the last)", "[core]\n\texcludesFile = /x/a\n\texcludesFile = /x/b\n", "/x/a"},
		{"any section counts", "[foo]\n\texcludesFile = /x/ig\n", "/x/ig"},
		{"quotes stay", "[core]\n\texcludesFile = \"/x/ig\"\n", "\"/x/ig\""},
		{"trailing blanks stay", "[core]\n\texcludesFile = /x/ig \t\n", "/x/ig \t"},
		{"a CR stays", "[core]\r\n\texcludesFile = /x/ig\r\n", "/x/ig\r"},
		{"a comment stays", "[core]\n\texcludesFile = /x/ig ; note\n", "/x/ig ; note"},
		{"every ~ is home", "[core]\n\texcludesFile = ~/ig~\n", "/h/ig/h"},
		{"a commented-out line does not count", "# excludesFile = /x/a\n[core]\n\texcludesFile = /x/b\n", "/x/b"},
		{"an empty value takes the next line", "[core]\n\texcludesFile =\n\texcludesFile = /x/b\n", "excludesFile = /x/b"},
		{"a longer key does not count", "[core]\n\tmyexcludesFile = /x/a\n", ""},
		{"none", "[core]\n\tautocrlf = false\n", ""},
		{"a long s is an s (case folding)", "[core]\n\texcludeſFile = /x/ig\n", "/x/ig"},
		{"an X with a mark is not", "[core]\n\teẊcludesFile = /x/ig\n", ""},
	} {
		got, ok := ExcludesFileSetting([]byte(c.config), home)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}

// The configs rg 13 reads, in order: ~/.gitconfig, then
// $XDG_CONFIG_HOME/git/config ($HOME/.config without it), else the
// default $XDG_CONFIG_HOME/git/ignore. No repository's .git/config.
func TestGlobalIgnorePath(t *testing.T) {
	set := func(v string) []byte { return []byte("[core]\n\texcludesFile = " + v + "\n") }
	for _, c := range []struct {
		name      string
		home, xdg string
		files     map[string][]byte
		want      string
		read      []string
	}{
		{"nothing set: the default", "/h", "/x", nil, "/x/git/ignore", []string{"/h/.gitconfig", "/x/git/config"}},
		{"home only", "/h", "/x", map[string][]byte{"/h/.gitconfig": set("/a")}, "/a", []string{"/h/.gitconfig"}},
		{"xdg only", "/h", "/x", map[string][]byte{"/x/git/config": set("/b")}, "/b", []string{"/h/.gitconfig", "/x/git/config"}},
		{"both: home wins", "/h", "/x", map[string][]byte{"/h/.gitconfig": set("/a"), "/x/git/config": set("/b")}, "/a", []string{"/h/.gitconfig"}},
		{"home without the setting", "/h", "/x", map[string][]byte{"/h/.gitconfig": []byte("[user]\n\tname = x\n"), "/x/git/config": set("/b")}, "/b", []string{"/h/.gitconfig", "/x/git/config"}},
		{"no XDG_CONFIG_HOME: ~/.config", "/h", "", map[string][]byte{"/h/.config/git/config": set("/b")}, "/b", []string{"/h/.gitconfig", "/h/.config/git/config"}},
		{"no XDG_CONFIG_HOME, nothing set", "/h", "", nil, "/h/.config/git/ignore", []string{"/h/.gitconfig", "/h/.config/git/config"}},
		{"neither variable", "", "", nil, "", nil},
	} {
		var read []string
		got := GlobalIgnorePath(c.home, c.xdg, func(p string) ([]byte, error) {
			read = append(read, p)
			if data, ok := c.files[p]; ok {
				return data, nil
			}
			return nil, fs.ErrNotExist
		})
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		if diff := cmp.Diff(c.read, read); diff != "" {
			t.Errorf("%s: files read (-want +got):\n%s", c.name, diff)
		}
	}
}

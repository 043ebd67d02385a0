package config

import (
	"strconv"
	"strings"
	"testing"
)

func TestCheckKeyParts(t *testing.T) {
	long := strings.Repeat("a.", 200) + "a"
	for _, c := range []struct {
		doc  string
		line int // 0: accepted
	}{
		{"[mcp_servers.x]\ncommand = \"npx\"\nargs = [\"-y\", \"a.b.c.d\"]\n", 0},
		{"a.b.c = 1.5\nv = 1979-05-27T07:32:00.999Z\n", 0},
		{"s = \"" + strings.Repeat(".", 500) + "\" # " + strings.Repeat(".", 500) + "\n", 0},
		{"m = '''\n" + strings.Repeat(".", 500) + "\n'''\n", 0},
		{"x = [" + strings.Repeat("1.5, ", 200) + "]\n", 0},
		{"ok = 1\n" + long + " = 1\n", 2},
		{"[" + long + "]\n", 1},
		{"t = { " + long + " = 1 }\n", 1},
		{strings.Repeat(`"a".`, 100) + "b = 1\n", 1}, // quoted parts count too
		{"m = \"\"\"\nx\n\"\"\"\n" + long + " = 1\n", 4},
	} {
		err := CheckKeyParts([]byte(c.doc))
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%.60q: refused: %v", c.doc, err)
		case c.line > 0 && (err == nil || !strings.HasPrefix(err.Error(), "line "+strconv.Itoa(c.line)+":")):
			t.Errorf("%.60q: got %v, want an error at line %d", c.doc, err, c.line)
		}
	}
}

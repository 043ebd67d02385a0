package ignore

import (
	"bytes"
	"regexp"
	"strings"
)

// The global gitignore (core.excludesFile) is found as ripgrep 13 finds
// it, which is not quite as git does (checked against rg 13.0.0):
//
//   - only the user's configs are read: ~/.gitconfig, and when it sets
//     nothing, $XDG_CONFIG_HOME/git/config ($HOME/.config when unset or
//     empty); never a repository's .git/config, nor the system config;
//   - a config is not parsed as INI: the first line of the form
//     "excludesfile = VALUE" in any section, any case, counts, and VALUE
//     is the rest of the line, untrimmed and unquoted, with every "~"
//     replaced by $HOME;
//   - when neither sets it, $XDG_CONFIG_HOME/git/ignore.

// GlobalIgnorePath is the core.excludesFile rg would use, given $HOME,
// $XDG_CONFIG_HOME and a way to read a file ("" when there is none: no
// HOME and no XDG_CONFIG_HOME).
func GlobalIgnorePath(home, xdg string, readFile func(string) ([]byte, error)) string {
	if xdg == "" && home != "" {
		xdg = home + "/.config"
	}
	var configs []string
	if home != "" {
		configs = append(configs, home+"/.gitconfig") // read first: it wins
	}
	if xdg != "" {
		configs = append(configs, xdg+"/git/config")
	}
	for _, cf := range configs {
		if data, err := readFile(cf); err == nil {
			if v, ok := ExcludesFileSetting(data, home); ok {
				return v
			}
		}
	}
	if xdg != "" {
		return xdg + "/git/ignore"
	}
	return ""
}

// ExcludesFileSetting is the excludesfile value of a git config as rg 13
// reads it: the first match of its regexp (?im)^\s*excludesfile\s*=\s*(.+)\s*$
// (Unicode \s, which also spans line ends), each "~" made home.
func ExcludesFileSetting(config []byte, home string) (string, bool) {
	// Most configs have no such line; compiling the regexp cost every
	// search about 1 % of its start-up. No letter of "xclude" has a case
	// fold outside ASCII (the s of excludesfile has ſ), so a config
	// without it lowered has no match.
	if !bytes.Contains(bytes.ToLower(config), []byte("xclude")) {
		return "", false
	}
	const ws = `[\t\n\v\f\r\x{85}\p{Z}]` // Rust's Unicode \s (White_Space)
	re := regexp.MustCompile(`(?im)^` + ws + `*excludesfile` + ws + `*=` + ws + `*(.+)` + ws + `*$`)
	m := re.FindSubmatch(config)
	if m == nil {
		return "", false
	}
	v := string(m[1])
	if home != "" {
		v = strings.ReplaceAll(v, "~", home)
	}
	return v, true
}

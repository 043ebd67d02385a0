package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Set writes key = vals into a config.toml's text (data may be empty) and
// returns the new text: the line that sets key is replaced, else the key
// goes under its table (made at the end when there is none), the rest of
// the file kept as it is. The value is checked as Parse checks it, and the
// result parses to it.
func Set(data []byte, key string, vals []string) ([]byte, error) {
	s, ok := SettingOf(key)
	if !ok {
		return nil, fmt.Errorf("unknown setting %q", key)
	}
	if len(vals) != 1 && !s.List {
		return nil, fmt.Errorf("%s takes one value", key)
	}
	if err := s.check(vals); err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	if _, err := Parse(File{Name: "config.toml", Data: data}, User); err != nil {
		return nil, err
	}
	table, leaf := "", key
	if j := strings.LastIndexByte(key, '.'); j >= 0 {
		table, leaf = key[:j], key[j+1:]
	}
	value := tomlValue(s, vals)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = nil
	}
	if n := keyLine(data, key); n > 0 {
		old := lines[n-1]
		_, rhs, _ := strings.Cut(old, "=")
		if v := strings.TrimSpace(rhs); strings.HasPrefix(v, "[") && !strings.Contains(v, "]") ||
			strings.HasPrefix(v, `"""`) || strings.HasPrefix(v, "'''") {
			return nil, fmt.Errorf("%s spans several lines at line %d: edit the file by hand", key, n)
		}
		lhs, _, _ := strings.Cut(old, "=")
		lines[n-1] = strings.TrimRight(lhs, " \t") + " = " + value
	} else {
		lines = insert(lines, table, leaf+" = "+value)
	}
	out := []byte(strings.Join(lines, "\n") + "\n")
	got, err := Parse(File{Name: "config.toml", Data: out}, User)
	if err != nil || !slices.Equal(got[key].Value, vals) {
		return nil, fmt.Errorf("%s: the file would not read back as written (%v): edit it by hand", key, err)
	}
	return out, nil
}

// SettingOf is the Setting of key.
func SettingOf(key string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.Key == key })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// insert puts line under [table]'s header (top-level keys before the
// first header), making the table at the end when there is none.
func insert(lines []string, table, line string) []string {
	header := -1
	for n, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "[") {
			continue
		}
		if table == "" {
			return slices.Insert(lines, n, line)
		}
		if strings.Trim(strings.TrimSpace(strings.SplitN(t, "#", 2)[0]), "[] ") == table {
			header = n
			break
		}
	}
	switch {
	case header >= 0:
		return slices.Insert(lines, header+1, line)
	case table == "":
		return append(lines, line)
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return append(lines, "["+table+"]", line)
}

// tomlValue is vals written as TOML: a bool for a true/false setting, an
// array for a list, else a string (JSON's escapes are TOML's).
func tomlValue(s Setting, vals []string) string {
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	switch {
	case slices.Equal(s.Choices, []string{"true", "false"}):
		return vals[0]
	case s.List:
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = q(v)
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	return q(vals[0])
}

package commit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// ApplyConfig reads a plain-JSON commitlint config ({"rules": {name: [level,
// when, value]}}; a package.json with a "commitlint" key also works) and
// returns base with its rule settings applied. "extends" is accepted only as
// config-conventional, which base already is.
func ApplyConfig(base Config, data []byte) (Config, error) {
	var doc struct {
		Extends    any                        `json:"extends"`
		Rules      map[string]json.RawMessage `json:"rules"`
		Commitlint *json.RawMessage           `json:"commitlint"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a JSON commitlint config: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("not a JSON commitlint config: data after the object at offset %d", dec.InputOffset())
	}
	if doc.Commitlint != nil && doc.Rules == nil {
		return ApplyConfig(base, *doc.Commitlint)
	}
	out := Config{}
	for k, v := range base {
		out[k] = v
	}
	for name, raw := range doc.Rules {
		var arr []any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&arr); err != nil || len(arr) == 0 {
			return nil, fmt.Errorf("rule %q: want [level, \"always\"|\"never\", value]", name)
		}
		n, ok := arr[0].(json.Number)
		lv, err := n.Int64()
		if !ok || err != nil || lv < 0 || lv > 2 {
			return nil, fmt.Errorf("rule %q: level must be 0, 1 or 2", name)
		}
		rc := RuleConfig{Level: Level(lv), When: "always"}
		if len(arr) > 1 {
			w, ok := arr[1].(string)
			if !ok || (w != "always" && w != "never") {
				return nil, fmt.Errorf("rule %q: condition must be \"always\" or \"never\"", name)
			}
			rc.When = w
		}
		if len(arr) > 2 {
			rc.Value = arr[2]
		} else if prev, ok := base[name]; ok {
			rc.Value = prev.Value
		}
		if rc.Level != Off && !KnownRule(name) {
			return nil, fmt.Errorf("rule %q is not supported", name)
		}
		out[name] = rc
	}
	return out, nil
}

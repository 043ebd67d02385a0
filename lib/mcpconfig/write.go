package mcpconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// SchemaURL is written into the files we edit.
const SchemaURL = "https://agentutils.dev/schemas/mcp.json"

// Edit changes one of our own mcp.json files: it takes the current bytes
// (nil or empty for a missing file), applies fn to the decoded document and
// returns the new bytes. Keys it does not know are kept.
func Edit(data []byte, path string, fn func(doc *Doc) error) ([]byte, error) {
	doc := &Doc{Rest: map[string]json.RawMessage{}, Servers: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &doc.Rest); err != nil {
			return nil, fmt.Errorf("%s: %w", path, jsonError(data, err))
		}
		if raw, ok := doc.Rest["mcpServers"]; ok {
			if err := json.Unmarshal(raw, &doc.Servers); err != nil {
				return nil, fmt.Errorf("%s: mcpServers: want an object", path)
			}
		}
		if raw, ok := doc.Rest["disabledServers"]; ok {
			if err := json.Unmarshal(raw, &doc.Disabled); err != nil {
				return nil, fmt.Errorf("%s: disabledServers: want a list of strings", path)
			}
		}
	}
	doc.Path = path
	if err := fn(doc); err != nil {
		return nil, err
	}
	sb, _ := json.Marshal(doc.Servers)
	doc.Rest["mcpServers"] = sb
	if len(doc.Disabled) > 0 {
		db, _ := json.Marshal(doc.Disabled)
		doc.Rest["disabledServers"] = db
	} else {
		delete(doc.Rest, "disabledServers")
	}
	if _, ok := doc.Rest["$schema"]; !ok {
		doc.Rest["$schema"], _ = json.Marshal(SchemaURL)
	}
	out, err := json.MarshalIndent(doc.Rest, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Doc is an mcp.json being edited.
type Doc struct {
	Path     string
	Rest     map[string]json.RawMessage
	Servers  map[string]json.RawMessage
	Disabled []string
}

// Add inserts a server; a duplicate is an error.
func (d *Doc) Add(name string, s Server) error {
	if !ValidName(name) {
		return fmt.Errorf("server name %q: use 1-100 of [a-zA-Z0-9_.-]", name)
	}
	if err := Validate(s); err != nil {
		return fmt.Errorf("server %q: %w", name, err)
	}
	if _, ok := d.Servers[name]; ok {
		return fmt.Errorf("server %q already exists in %s", name, d.Path)
	}
	b, _ := json.Marshal(s)
	d.Servers[name] = b
	return nil
}

// Remove deletes a server; a missing one is an error.
func (d *Doc) Remove(name string) error {
	if _, ok := d.Servers[name]; !ok {
		return fmt.Errorf("server %q not found in %s", name, d.Path)
	}
	delete(d.Servers, name)
	return nil
}

// SetEnabled writes enabled on a server of this file (true removes the key).
func (d *Doc) SetEnabled(name string, on bool) error {
	raw, ok := d.Servers[name]
	if !ok {
		return fmt.Errorf("server %q not found in %s", name, d.Path)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("server %q in %s: want an object", name, d.Path)
	}
	if on {
		delete(m, "enabled")
	} else {
		m["enabled"] = json.RawMessage("false")
	}
	d.Servers[name], _ = json.Marshal(m)
	return nil
}

// SetDisabled adds or removes a name in disabledServers, kept sorted.
func (d *Doc) SetDisabled(name string, off bool) {
	var out []string
	for _, n := range d.Disabled {
		if n != name {
			out = append(out, n)
		}
	}
	if off {
		out = append(out, name)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	d.Disabled = out
}

// Hash is the SHA-256 of a server configuration as written (unresolved
// secrets), the tool cache's key: encoding/json sorts map keys.
func Hash(s Server) string {
	b, _ := json.Marshal(s)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

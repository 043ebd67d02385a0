// Package credstore is the credentials file of agentutils
// ($XDG_DATA_HOME/agentutils/credentials.json, 0600): OAuth token sets by
// id, those of agent-mcp's HTTP MCP servers (internal/mcpauth) and of the
// GitHub Copilot login (internal/copilot).
package credstore

import (
	"encoding/json"
	"os"
	"sync"
)

// Credential is one stored OAuth token set.
type Credential struct {
	Type         string `json:"type"` // "oauth"
	Server       string `json:"server,omitempty"`
	URL          string `json:"url,omitempty"`
	Access       string `json:"access"`
	Refresh      string `json:"refresh,omitempty"`
	Expires      int64  `json:"expires,omitempty"` // unix ms
	TokenURL     string `json:"tokenUrl,omitempty"`
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	Scope        string `json:"scope,omitempty"`  // granted, space-separated
	StepUp       string `json:"stepUp,omitempty"` // asked for by a 403 insufficient_scope, for the next auth
}

var mu sync.Mutex

// Store is the credentials file.
type Store struct {
	File string
	// Write replaces a file atomically, private to the user.
	Write func(path string, data []byte) error
}

// Load reads the stored credentials by id (none when the file is missing or bad).
func (st Store) Load() map[string]Credential {
	m := map[string]Credential{}
	if b, err := os.ReadFile(st.File); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// Save stores c as id, or removes id when c is nil.
func (st Store) Save(id string, c *Credential) error {
	mu.Lock()
	defer mu.Unlock()
	m := st.Load()
	if c == nil {
		delete(m, id)
	} else {
		m[id] = *c
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return st.Write(st.File, append(b, '\n'))
}

package mcpconfig

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ParseTrust reads trust.json, agent-mcp's list of the projects a person
// trusted: [{"root": DIR, "trustedAt": TIME, …}]. Entries keep every field,
// so a rewrite loses nothing. An empty file is an empty list; anything else
// that is not such a list is an error that says what is wrong and where.
func ParseTrust(data []byte) ([]map[string]any, error) {
	if strings.TrimSpace(string(data)) == "" {
		return nil, nil
	}
	var list []map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, jsonError(data, err)
	}
	for i, e := range list {
		if root, ok := e["root"].(string); !ok || root == "" {
			return nil, fmt.Errorf("entry %d: \"root\" must be a directory name (a non-empty string)", i+1)
		}
	}
	return list, nil
}

// TrustRoots are the project roots of a trust list (ParseTrust's).
func TrustRoots(list []map[string]any) []string {
	roots := make([]string, 0, len(list))
	for _, e := range list {
		roots = append(roots, e["root"].(string))
	}
	return roots
}

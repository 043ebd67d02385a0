package session

// SetsThinkingLevel says whether entries hold a thinking_level_change:
// BuildContext's ThinkingLevel is "off" both when a session chose off and
// when it never chose, and a configured default (config.toml's
// defaultThinkingLevel) applies only in the second case.
func SetsThinkingLevel(entries []Record) bool {
	for i := range entries {
		if entries[i].Type == "thinking_level_change" {
			return true
		}
	}
	return false
}

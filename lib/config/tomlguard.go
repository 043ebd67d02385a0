package config

import (
	"bytes"
	"fmt"
)

// maxKeyParts bounds the parts of a dotted TOML key or table header
// (a.b.c has three). BurntSushi/toml (v1.6.0, its issue #496) spends time
// and memory quadratic in the parts of one key: an 8 KB line a.a.a…a = 1
// took seconds. A project's config.toml (ours, or .codex/config.toml for
// lib/mcpconfig) comes with a cloned repository, so it is refused before
// decoding instead. Real keys have a
// handful of parts.
const maxKeyParts = 64

// CheckKeyParts reports the first key or table header of a TOML document
// with more than maxKeyParts parts, by its line. It reads only the
// document's structure: strings (basic, literal, multi-line) and comments
// are skipped, and a run of key parts ends at '=', a newline or a bracket.
func CheckKeyParts(data []byte) error {
	line, dots := 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
			dots = 0
		case '=', ',', '{', '}', '[', ']':
			dots = 0
		case '.':
			dots++
			if dots >= maxKeyParts {
				return fmt.Errorf("line %d: a key with more than %d dotted parts", line, maxKeyParts)
			}
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i-- // the newline is counted by the loop
		case '"', '\'':
			// A string is skipped whole (a quoted key part stays in its run).
			delim := []byte{c}
			if triple := []byte{c, c, c}; bytes.HasPrefix(data[i:], triple) {
				delim = triple
			}
			i += len(delim)
			for i < len(data) {
				if data[i] == '\n' {
					line++
				}
				if c == '"' && data[i] == '\\' {
					i += 2
					continue
				}
				if bytes.HasPrefix(data[i:], delim) {
					i += len(delim) - 1
					break
				}
				i++
			}
		}
	}
	return nil
}

// Package regex is agent-grep's matcher, as ripgrep's regex crates are
// rg's: Rust regex syntax translated to Go's (rgsyntax.go), the literals
// every match holds extracted for a prefilter (required.go) found by a
// SIMD pair scan (pair.go) or an Aho-Corasick automaton (aho.go), a lazy
// line DFA (dfa.go) and reverse-suffix search (reverse.go) before Go's
// RE2 regexp, Unicode classes and -w. Matcher and LineSearch are what
// the search (lib/grep/search) runs over a buffer; it imports nothing of
// lib/grep.
package regex

package regex

// The tests of package regex_test (which searches with lib/grep/search)
// look at these.

// HasReverseSuffix reports whether m searches by reverse suffix
// (reverse.go).
func HasReverseSuffix(m *Matcher) bool { return m.rev != nil }

// WithoutNonASCIISkip is m without the skip of pure-ASCII text
// (Matcher.nonASCII).
func WithoutNonASCIISkip(m *Matcher) *Matcher {
	plain := *m
	plain.nonASCII = false
	return &plain
}

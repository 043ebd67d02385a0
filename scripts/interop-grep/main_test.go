package main

import "testing"

func TestIsAssignment(t *testing.T) {
	for w, want := range map[string]bool{
		"AGENT_GREP_TEST_CHUNK=1000,4096": true,
		"X1=":                             true,
		"=x":                              false,
		"-e=x":                            false,
		"lower=x":                         false,
		"hello":                           false,
	} {
		if got := isAssignment(w); got != want {
			t.Errorf("isAssignment(%q) = %v, want %v", w, got, want)
		}
	}
}

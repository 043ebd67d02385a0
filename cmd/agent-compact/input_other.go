//go:build !linux

package main

// newInput is room for n bytes of stdin (input_linux.go maps it from the
// kernel instead).
func newInput(n int) []byte { return make([]byte, 0, n) }

// growInput doubles b's room, keeping its bytes.
func growInput(b []byte) []byte { return growHeap(b) }

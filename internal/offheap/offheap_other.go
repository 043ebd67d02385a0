//go:build !unix

package offheap

import "slices"

func newBuf(n int) []byte { return make([]byte, 0, n) }

func grow(b []byte) []byte { return slices.Grow(b, cap(b)) }

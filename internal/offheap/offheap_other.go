//go:build !unix

package offheap

func newBuf(n int) []byte { return make([]byte, 0, n) }

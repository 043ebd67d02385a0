package agentutils_test

import (
	"io"
	"time"
)

func sleepABit() { time.Sleep(20 * time.Millisecond) }

func readAll(r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	return string(b), err
}

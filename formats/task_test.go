package formats

import "github.com/agentutils/agentutils/lib/batch"

// The batch formats' Go readers (lib/batch), for TestCorpusThroughCode.
func init() {
	readers["task"] = lines(func(b []byte) error { _, err := batch.ParseTask(b); return err })
	readers["task-result"] = lines(func(b []byte) error { _, err := batch.ParseResult(b); return err })
}

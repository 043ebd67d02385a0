package commit

import (
	"regexp"
	"sync"
)

// lazyRe compiles a pattern on first use, so that a process linting one
// message pays only for the patterns that message needs: agent-commit lint
// is one short-lived process per message in a commit-msg hook, and its
// start-up is most of its cost.
func lazyRe(p string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(p) })
}

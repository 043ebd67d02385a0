// Command codemap prints the README's "Map of the code": for each command,
// the lib/ and internal/ packages it imports, from `go list`. The test
// TestCodeMap fails when the README's map and the imports differ.
//
//	go run ./scripts/codemap
package main

import (
	"fmt"
	"os"

	"github.com/agentutils/agentutils/scripts/codemap/codemap"
)

func main() {
	s, err := codemap.Build(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "codemap:", err)
		os.Exit(1)
	}
	fmt.Print(s)
}

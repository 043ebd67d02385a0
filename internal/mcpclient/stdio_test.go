package mcpclient

import (
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStdioFilter: lines of a server's stdout that are not JSON are
// skipped and reported, also when they start with '{' (a console.log of
// an object); JSON lines pass as they are.
func TestStdioFilter(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var junk []string
	tr := &StdioTransport{Junk: func(l string) { junk = append(junk, l) }}
	pr, pw := io.Pipe()
	go func() {
		w.WriteString("server starting\n{ level: 'info', msg: 'ready' }\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n[\n")
		w.Close()
	}()
	go tr.filter(r, pw)
	got, _ := io.ReadAll(pr)
	if d := cmp.Diff("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", string(got)); d != "" {
		t.Errorf("passed (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"server starting", "{ level: 'info', msg: 'ready' }", "["}, junk); d != "" {
		t.Errorf("junk (-want +got):\n%s", d)
	}
}

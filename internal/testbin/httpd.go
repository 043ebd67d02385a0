package testbin

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// httpdCmd is the testscript command "httpd" of every suite: a web server
// on the loopback for the rest of the script,
//
//	httpd DIR [FILE...]
//
// serving the files of DIR (relative to $WORK), its URL in $HTTPD and
// written in place of @HTTPD@ in each FILE (a scripted model answer that
// names a page, say).
func httpdCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: httpd DIR [FILE...]")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[0]))))
	ts.Defer(srv.Close)
	ts.Setenv("HTTPD", srv.URL)
	for _, f := range args[1:] {
		b, err := os.ReadFile(ts.MkAbs(f))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(strings.ReplaceAll(string(b), "@HTTPD@", srv.URL)), 0o644))
	}
}

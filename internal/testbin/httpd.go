package testbin

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// httpdCmd is the testscript command "httpd" of every suite: a web server
// on the loopback for the rest of the script,
//
//	httpd DIR [FILE...]
//
// serving the files of DIR (relative to $WORK), its URL in $HTTPD and
// written in place of @HTTPD@ in each FILE (a scripted model answer that
// names a page, say). A POST to /NAME (an HTTP hook's) is appended to
// DIR/NAME.posted (its headers, sorted, then its body and a blank line)
// and answered with the file DIR/NAME (404 when there is none).
func httpdCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: httpd DIR [FILE...]")
	}
	dir := ts.MkAbs(args[0])
	files := http.FileServer(http.Dir(dir))
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			files.ServeHTTP(w, r)
			return
		}
		name := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/")))
		body, _ := io.ReadAll(r.Body)
		var b strings.Builder
		var keys []string
		for k := range r.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(r.Header[k], ", "))
		}
		fmt.Fprintf(&b, "\n%s\n\n", body)
		mu.Lock()
		f, err := os.OpenFile(name+".posted", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			f.WriteString(b.String())
			f.Close()
		}
		mu.Unlock()
		answer, err := os.ReadFile(name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(answer)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("HTTPD", srv.URL)
	for _, f := range args[1:] {
		b, err := os.ReadFile(ts.MkAbs(f))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(strings.ReplaceAll(string(b), "@HTTPD@", srv.URL)), 0o644))
	}
}

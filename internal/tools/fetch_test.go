package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// A real HTTP server on the loopback, fetched with the private network
// allowed (and refused without).
func TestFetch(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<html><head><title>T</title><script>x()</script></head><body><h1>Hello</h1><p>A <a href="/doc">link</a> and <b>bold</b>.</p><ul><li>one</li></ul><a href="sub/next">next</a><table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td><del>1</del></td></tr></table></body></html>`))
	}
	mux.HandleFunc("/page", page)
	mux.HandleFunc("/dir/page", page)
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/dir/page", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := range 20000 {
			w.Write([]byte(strings.Repeat("x", 9) + string(rune('0'+i%10)) + "\n"))
		}
	})
	mux.HandleFunc("/img", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	})
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte{0, 1, 2})
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such page", http.StatusNotFound) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	state := t.TempDir()
	env := &Env{Cwd: t.TempDir(), StateDir: state, Now: time.Now, Getenv: os.Getenv, AllowPrivateNet: true}
	call := func(env *Env, args string) (string, bool, map[string]any) {
		r := Run(context.Background(), []Tool{fetchTool()}, env, "fetch", json.RawMessage(args), nil)
		var det map[string]any
		json.Unmarshal(r.Details, &det)
		var b strings.Builder
		for _, c := range r.Content {
			b.WriteString(c.Type + ":" + c.Text + c.MimeType)
		}
		return b.String(), r.IsError, det
	}
	for _, tc := range []struct {
		name, args string
		isErr      bool
		want       []string // substrings of the result
		not        []string
	}{
		{"html as markdown", `{"url":"` + srv.URL + `/page"}`, false,
			[]string{"URL: " + srv.URL + "/page\n", "# Hello", "[link](" + srv.URL + "/doc)", "**bold**", "- one", "[next](" + srv.URL + "/sub/next)", "| k | v     |\n|---|-------|\n| x | ~~1~~ |"}, []string{"x()", "<h1>"}},
		{"redirect followed", `{"url":"` + srv.URL + `/moved"}`, false, []string{"URL: " + srv.URL + "/dir/page\n", "# Hello", "[next](" + srv.URL + "/dir/sub/next)"}, nil},
		{"redirect loop", `{"url":"` + srv.URL + `/loop"}`, true, []string{"more than 10 redirects"}, nil},
		{"redirect off the web", `{"url":"` + srv.URL + `/to-file"}`, true, []string{"only http and https are followed"}, nil},
		{"image", `{"url":"` + srv.URL + `/img"}`, false, []string{"image:image/png"}, nil},
		{"binary", `{"url":"` + srv.URL + `/bin"}`, true, []string{"cannot show it: not text, HTML or an image"}, nil},
		{"not found", `{"url":"` + srv.URL + `/gone"}`, true, []string{"HTTP 404 Not Found", "no such page"}, nil},
		{"time-out", `{"url":"` + srv.URL + `/slow","timeout":1}`, true, []string{"timed out after 1 s"}, nil},
		{"not http", `{"url":"file:///etc/passwd"}`, true, []string{"only http:// and https:// URLs"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, isErr, _ := call(env, tc.args)
			if isErr != tc.isErr {
				t.Errorf("isError %v, want %v: %s", isErr, tc.isErr, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("result has %q:\n%s", w, got)
				}
			}
		})
	}

	// A long text: the head in the result, the whole in the artifact.
	got, _, det := call(env, `{"url":"`+srv.URL+`/big"}`)
	art, _ := det["artifact"].(string)
	whole, err := os.ReadFile(art)
	if err != nil || len(whole) != 220000 || !strings.HasPrefix(art, state) {
		t.Fatalf("artifact %q: %d bytes, %v", art, len(whole), err)
	}
	if len(got) > 60000 || !strings.Contains(got, "[Showing the first 50.0KB of 214.8KB. Whole text: "+art) {
		t.Errorf("head of a long text: %d bytes, ends %q", len(got), got[max(0, len(got)-200):])
	}

	// Without the private network allowed, the loopback is refused.
	env.AllowPrivateNet = false
	got, isErr, _ := call(env, `{"url":"`+srv.URL+`/page"}`)
	if !isErr || !strings.Contains(got, "127.0.0.1 is a private or loopback address") {
		t.Errorf("loopback fetched without the private network allowed: %s", got)
	}
}

func TestPublic(t *testing.T) {
	for ip, want := range map[string]bool{"8.8.8.8": true, "2606:4700::1111": true, "127.0.0.1": false, "10.1.2.3": false, "192.168.0.1": false,
		"169.254.169.254": false, "::1": false, "fe80::1": false, "0.0.0.0": false, "100.64.0.1": false, "fd00::1": false, "::ffff:127.0.0.1": false} {
		if got := public(netip.MustParseAddr(ip).Unmap()); got != want {
			t.Errorf("public(%s) = %v, want %v", ip, got, want)
		}
	}
}

package websearch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuild(t *testing.T) {
	b, _ := Lookup("brave")
	r, err := b.Build("", "k", "a b&c", 50)
	if err != nil {
		t.Fatal(err)
	}
	want := Request{Method: "GET", URL: "https://api.search.brave.com/res/v1/web/search?count=20&q=a+b%26c",
		Header: map[string]string{"Accept": "application/json", "X-Subscription-Token": "k"}}
	if d := cmp.Diff(want, r); d != "" {
		t.Error(d)
	}
	tv, _ := Lookup("tavily")
	r, _ = tv.Build("", "k", "q", 3)
	want = Request{Method: "POST", URL: "https://api.tavily.com/search", Body: []byte(`{"max_results":3,"query":"q"}`),
		Header: map[string]string{"Content-Type": "application/json", "Authorization": "Bearer k"}}
	if d := cmp.Diff(want, r); d != "" {
		t.Error(d)
	}
	if _, ok := Lookup("bing"); ok {
		t.Error("an unknown back-end found")
	}
}

func TestParseAndShow(t *testing.T) {
	b, _ := Lookup("brave")
	if _, err := b.Parse([]byte(`<html>`)); err == nil || !strings.HasPrefix(err.Error(), "brave's answer: ") {
		t.Errorf("Parse of HTML: %v", err)
	}
	rs, err := b.Parse([]byte(`{"web":{"results":[{"title":"A &amp; <b>B</b>","url":"u","description":"x\n  y"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Result{{"A & B", "u", "x y"}}, rs); d != "" {
		t.Error(d)
	}
	if got := Show("q", nil); got != `No results for "q".` {
		t.Error(got)
	}
	long := Show("q", []Result{{"t", "u", strings.Repeat("é", 300)}})
	if !strings.HasSuffix(long, "…") || strings.Count(long, "é") != 250 {
		t.Errorf("snippet not cut at 500 bytes: %d é", strings.Count(long, "é"))
	}
}

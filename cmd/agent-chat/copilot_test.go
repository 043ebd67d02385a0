package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// fakeGitHubCmd is the testscript command "fakegithub": GitHub's device
// flow (one authorization_pending, then a token), its Copilot token
// exchange (tokens that expire an hour after the first request: the
// server's clock, not the test's), and a Copilot Chat Completions API that
// answers "hello from copilot" and writes the headers of each model request
// to $WORK/copilot-requests.txt. $AGENTUTILS_GITHUB_URL points at it and
// models.toml sets the github-copilot base URL to it.
func fakeGitHubCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fakegithub")
	}
	var mu sync.Mutex
	pending, exchanges := true, 0
	log := ts.MkAbs("copilot-requests.txt")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/login/device/code":
			fmt.Fprint(w, `{"device_code":"dc1","user_code":"WXYZ-0001","verification_uri":"https://github.com/login/device","interval":1,"expires_in":60}`)
		case "/login/oauth/access_token":
			if pending {
				pending = false
				fmt.Fprint(w, `{"error":"authorization_pending"}`)
				return
			}
			fmt.Fprint(w, `{"access_token":"ghu_fakegithubtoken0001"}`)
		case "/copilot_internal/v2/token":
			if r.Header.Get("Authorization") != "Bearer ghu_fakegithubtoken0001" {
				http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
				return
			}
			exchanges++
			fmt.Fprintf(w, `{"token":"tid=fake;exp=1;proxy-ep=proxy.individual.githubcopilot.com;n=%d","expires_at":4102444800}`, exchanges)
		case "/chat/completions":
			var names []string
			for k := range r.Header {
				names = append(names, k)
			}
			sort.Strings(names)
			f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				for _, k := range names {
					fmt.Fprintf(f, "%s: %s\n", k, r.Header.Get(k))
				}
				f.Close()
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"id\":\"c1\",\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hello from copilot\"}}]}\n\n"+
				"data: {\"id\":\"c1\",\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	ts.Defer(srv.Close)
	ts.Setenv("AGENTUTILS_GITHUB_URL", srv.URL)
	home := ts.Getenv("AGENTUTILS_HOME")
	ts.Check(os.MkdirAll(home, 0o755))
	toml := "[providers.github-copilot]\nbaseUrl = \"" + srv.URL + "\"\n"
	ts.Check(os.WriteFile(filepath.Join(home, "models.toml"), []byte(toml), 0o644))
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// fakeGitHubCmd is the testscript command "fakegithub [revoked|short]":
// GitHub's device flow (one authorization_pending, then a token), its
// Copilot token exchange (tokens n=1, n=2, … that expire in 2100; with
// short, a minute after they are made, refresh_in 30 s: the server's
// clock, not the test's), and a Copilot Chat Completions API that refuses
// (401) an expired token, and with revoked the login's token n=1, and
// answers a request with tools by a call of read hi.txt, any other with
// "hello from copilot"; it writes the headers of each model request, and
// "status: 401" after a refused one, to $WORK/copilot-requests.txt.
// $AGENTUTILS_GITHUB_URL points at it and models.toml sets the
// github-copilot base URL to it.
func fakeGitHubCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 || len(args) == 1 && args[0] != "revoked" && args[0] != "short" {
		ts.Fatalf("usage: fakegithub [revoked|short]")
	}
	mode := ""
	if len(args) == 1 {
		mode = args[0]
	}
	var mu sync.Mutex
	pending, exchanges := true, 0
	expires := map[string]int64{} // token → expires_at
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
			tok := fmt.Sprintf("tid=fake;exp=1;proxy-ep=proxy.individual.githubcopilot.com;n=%d", exchanges)
			expires[tok] = 4102444800
			if mode == "short" {
				expires[tok] = time.Now().Unix() + 60
			}
			fmt.Fprintf(w, `{"token":%q,"expires_at":%d,"refresh_in":30}`, tok, expires[tok])
		case "/chat/completions":
			var names []string
			for k := range r.Header {
				names = append(names, k)
			}
			sort.Strings(names)
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			refused := expires[tok] < time.Now().Unix() || mode == "revoked" && strings.HasSuffix(tok, ";n=1")
			body, _ := io.ReadAll(r.Body)
			f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				for _, k := range names {
					fmt.Fprintf(f, "%s: %s\n", k, r.Header.Get(k))
				}
				if refused {
					fmt.Fprintf(f, "status: 401\n")
				}
				f.Close()
			}
			if refused {
				http.Error(w, `{"error":{"message":"token expired","code":"unauthorized"}}`, http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			if bytes.Contains(body, []byte(`"tools":`)) && !bytes.Contains(body, []byte(`"role":"tool"`)) {
				fmt.Fprint(w, "data: {\"id\":\"c0\",\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"path\\\":\\\"hi.txt\\\"}\"}}]}}]}\n\n"+
					"data: {\"id\":\"c0\",\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
				return
			}
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

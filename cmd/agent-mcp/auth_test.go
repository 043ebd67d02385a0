package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpauth"
	"github.com/agentutils/agentutils/lib/exit"
)

// fakeOAuth is an authorization server (RFC 8414 metadata, RFC 7591
// registration, authorization code with PKCE S256, refresh) in front of an
// MCP server that wants its bearer tokens (RFC 9728 metadata).
//
// With old it is a server of MCP 2025-03-26: no protected-resource metadata,
// a bare 401, the authorization server's metadata at the server's root,
// naming the issuer f.url/oauth (the conformance suite's backcompat case).
// The tool "admin" needs the scope "admin" (403 insufficient_scope, naming
// "read admin"); the 401 asks for "read".
type fakeOAuth struct {
	mu        sync.Mutex
	challenge string
	access    string            // the token the MCP server accepts now
	scopes    map[string]string // the scope granted with each code and token
	asked     []string          // the scope of each authorization request
	n         int
	refreshes int
	url       string
}

func newFakeOAuth(t *testing.T) *fakeOAuth { return newFakeOAuthOld(t, false) }

func newFakeOAuthOld(t *testing.T, old bool) *fakeOAuth {
	f := &fakeOAuth{scopes: map[string]string{}}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	if !old {
		mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, map[string]any{"resource": f.url + "/mcp", "authorization_servers": []string{f.url}})
		})
	}
	as := "" // the authorization server's path under f.url
	if old {
		as = "/oauth" // as the conformance suite's 2025-03-26 server has it
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		base := f.url + as
		writeJSON(w, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"none"}})
	})
	mux.HandleFunc(as+"/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		m["client_id"] = "client-1"
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(m)
	})
	mux.HandleFunc(as+"/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "client-1" {
			http.Error(w, "bad request", 400)
			return
		}
		f.mu.Lock()
		f.challenge = q.Get("code_challenge")
		f.asked = append(f.asked, q.Get("scope"))
		code := fmt.Sprintf("code-%d", len(f.asked))
		f.scopes[code] = q.Get("scope")
		f.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc(as+"/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		scope := f.scopes[f.access]
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if _, ok := f.scopes[r.Form.Get("code")]; !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge {
				http.Error(w, `{"error":"invalid_grant"}`, 400)
				return
			}
			scope = f.scopes[r.Form.Get("code")]
			delete(f.scopes, r.Form.Get("code"))
		case "refresh_token":
			if r.Form.Get("refresh_token") != "refresh-1" {
				http.Error(w, `{"error":"invalid_grant"}`, 400)
				return
			}
			f.refreshes++
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, 400)
			return
		}
		f.n++
		f.access = fmt.Sprintf("access-%d", f.n)
		f.scopes[f.access] = scope
		writeJSON(w, map[string]any{"access_token": f.access, "refresh_token": "refresh-1", "token_type": "Bearer", "expires_in": 3600})
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	for _, name := range []string{"whoami", "admin"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		ok := f.access != "" && r.Header.Get("Authorization") == "Bearer "+f.access
		granted := strings.Fields(f.scopes[f.access])
		f.mu.Unlock()
		meta := `, resource_metadata="` + f.url + `/.well-known/oauth-protected-resource"`
		if old {
			meta = ""
		}
		if !ok {
			if !old { // a 2025-03-26 server may send no challenge at all
				w.Header().Set("WWW-Authenticate", `Bearer scope="read"`+meta)
			}
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if strings.Contains(string(body), `"name":"admin"`) && !slices.Contains(granted, "admin") {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="read admin"`+meta)
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
	return f
}

// homeGetenv is the environment of an in-process run: $AGENTUTILS_HOME and
// $HOME are home, the other variables those of vars (nil: none set).
func homeGetenv(home string, vars map[string]string) func(string) string {
	return func(k string) string {
		if k == "AGENTUTILS_HOME" || k == "HOME" {
			return home
		}
		return vars[k]
	}
}

func runIn(t *testing.T, home string, stderr io.Writer, args ...string) (int, string) {
	var out strings.Builder
	env := &app.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: stderr, Dir: home, Now: time.Now,
		Getenv: homeGetenv(home, nil),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return app.Run(ctx, newApp, env, append([]string{"agent-mcp"}, args...)), out.String()
}

// TestOAuth logs in through discovery, registration and PKCE, calls with
// the stored token, and refreshes it when it is about to expire.
func TestOAuth(t *testing.T) {
	f := newFakeOAuth(t)
	home := oauthHome(t, f)
	var errb strings.Builder
	if code, _ := runIn(t, home, &errb, "call", "r", "whoami"); code != exit.Auth || !strings.Contains(errb.String(), "HTTP 401") || !strings.Contains(errb.String(), "agent-mcp auth r") {
		t.Fatalf("before login: exit %d, stderr %s", code, errb.String())
	}

	browserLogin(t, home, "r")
	creds := readCreds(t, home)
	if len(creds) != 1 {
		t.Fatalf("credentials: %v", creds)
	}
	for _, c := range creds {
		if c.Access != "access-1" || c.Refresh != "refresh-1" || c.ClientID != "client-1" || c.TokenURL != f.url+"/token" {
			t.Fatalf("stored credential %+v", c)
		}
	}
	info, _ := os.Stat(filepath.Join(home, "credentials.json"))
	if info.Mode().Perm() != 0o600 {
		t.Errorf("credentials.json mode %v", info.Mode())
	}

	if code, out := runIn(t, home, io.Discard, "call", "--text", "r", "whoami"); code != 0 || out != "ok\n" {
		t.Fatalf("call with the stored token: exit %d, %q", code, out)
	}

	// Within 5 minutes of expiry the token is refreshed and saved.
	for id, c := range creds {
		c.Expires = time.Now().Add(time.Minute).UnixMilli()
		creds[id] = c
	}
	b, _ := json.Marshal(creds)
	os.WriteFile(filepath.Join(home, "credentials.json"), b, 0o600)
	if code, out := runIn(t, home, io.Discard, "call", "--text", "r", "whoami"); code != 0 || out != "ok\n" {
		t.Fatalf("call after refresh: exit %d, %q", code, out)
	}
	if f.refreshes != 1 {
		t.Errorf("refreshes = %d", f.refreshes)
	}
	for _, c := range readCreds(t, home) {
		if c.Access != "access-2" {
			t.Errorf("refreshed token not stored: %+v", c)
		}
	}

	if code, _ := runIn(t, home, io.Discard, "logout", "r"); code != 0 {
		t.Fatalf("logout: exit %d", code)
	}
	if len(readCreds(t, home)) != 0 {
		t.Error("logout kept the credential")
	}
}

// browserLogin runs agent-mcp auth SERVER with a "browser" that follows
// the URL printed on stderr (the authorization server redirects it to the
// callback listener), and wants exit 0.
func browserLogin(t *testing.T, home, server string) string {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan struct{})
	var errb strings.Builder
	visited, browseErr := false, error(nil)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			errb.WriteString(sc.Text() + "\n")
			if u := strings.TrimSpace(sc.Text()); strings.HasPrefix(u, "http") {
				resp, err := http.Get(u)
				if err == nil {
					resp.Body.Close()
				}
				visited, browseErr = true, err
			}
		}
		io.Copy(io.Discard, pr)
	}()
	code, _ := runIn(t, home, pw, "auth", server)
	pw.Close()
	<-done
	if code != 0 || !visited || browseErr != nil {
		t.Fatalf("auth %s: exit %d, browser: %v (visited: %v)\n%s", server, code, browseErr, visited, errb.String())
	}
	return errb.String()
}

// TestOAuthStepUp: a 403 insufficient_scope naming a wider scope makes
// the next agent-mcp auth ask for that scope (with the one granted before),
// not the old one again.
func TestOAuthStepUp(t *testing.T) {
	f := newFakeOAuth(t)
	home := oauthHome(t, f)
	browserLogin(t, home, "r")
	if code, out := runIn(t, home, io.Discard, "call", "--text", "r", "whoami"); code != 0 || out != "ok\n" {
		t.Fatalf("whoami with scope read: exit %d, %q", code, out)
	}
	var errb strings.Builder
	code, _ := runIn(t, home, &errb, "call", "--text", "r", "admin")
	if code != exit.Auth || !strings.Contains(errb.String(), `HTTP 403`) || !strings.Contains(errb.String(), `needs the scope "read admin"`) ||
		!strings.Contains(errb.String(), "agent-mcp auth r") {
		t.Fatalf("admin with scope read: exit %d, stderr %s", code, errb.String())
	}
	browserLogin(t, home, "r")
	if code, out := runIn(t, home, io.Discard, "call", "--text", "r", "admin"); code != 0 || out != "ok\n" {
		t.Fatalf("admin after the step-up (scopes asked: %q): exit %d, %q", f.asked, code, out)
	}
	if len(f.asked) != 2 || f.asked[0] != "read" || !slices.Equal(slices.Sorted(slices.Values(strings.Fields(f.asked[1]))), []string{"admin", "read"}) {
		t.Errorf("scopes asked: %q", f.asked)
	}
}

// TestOAuthOldServer: a server of MCP 2025-03-26 has no protected-resource
// metadata and a bare 401; its authorization server's metadata is at the
// server's root. auth registers, authorizes with PKCE, gets the token.
func TestOAuthOldServer(t *testing.T) {
	f := newFakeOAuthOld(t, true)
	home := oauthHome(t, f)
	browserLogin(t, home, "r")
	if code, out := runIn(t, home, io.Discard, "call", "--text", "r", "whoami"); code != 0 || out != "ok\n" {
		t.Fatalf("call after login: exit %d, %q", code, out)
	}
	for _, c := range readCreds(t, home) {
		if c.Access != "access-1" || c.ClientID != "client-1" || c.TokenURL != f.url+"/oauth/token" {
			t.Fatalf("stored credential %+v", c)
		}
	}
}

// oauthHome is a home whose mcp.json has the server "r" of f.
func oauthHome(t *testing.T, f *fakeOAuth) string {
	t.Helper()
	home := t.TempDir()
	cfg := `{"mcpServers":{"r":{"url":"` + f.url + `/mcp"}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func readCreds(t *testing.T, home string) map[string]mcpauth.Credential {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]mcpauth.Credential{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

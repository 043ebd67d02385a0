package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/urfave/cli/v2"
	"golang.org/x/oauth2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

// credential is one stored OAuth token set (credentials.json, 0600).
type credential struct {
	Type         string `json:"type"` // "oauth"
	Server       string `json:"server,omitempty"`
	URL          string `json:"url,omitempty"`
	Access       string `json:"access"`
	Refresh      string `json:"refresh,omitempty"`
	Expires      int64  `json:"expires,omitempty"` // unix ms
	TokenURL     string `json:"tokenUrl,omitempty"`
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	Scope        string `json:"scope,omitempty"`  // granted, space-separated
	StepUp       string `json:"stepUp,omitempty"` // asked for by a 403 insufficient_scope, for the next auth
}

var credMu sync.Mutex

func (r *runner) credentialsFile() string { return filepath.Join(r.dirs.Data, "credentials.json") }

func (r *runner) loadCredentials() map[string]credential {
	m := map[string]credential{}
	if b, err := os.ReadFile(r.credentialsFile()); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// credentialID is the store key of a server: the configured credentialId,
// else one derived from the URL, so servers of foreign configs work too.
func credentialID(e mcpconfig.Entry) string {
	if e.Server.Auth != nil && e.Server.Auth.CredentialID != "" {
		return e.Server.Auth.CredentialID
	}
	h := sha256.Sum256([]byte(e.Server.URL))
	return "mcp_oauth_" + hex.EncodeToString(h[:8])
}

func (r *runner) saveCredential(id string, c *credential) error {
	credMu.Lock()
	defer credMu.Unlock()
	m := r.loadCredentials()
	if c == nil {
		delete(m, id)
	} else {
		m[id] = *c
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return writeFileAtomic(r.credentialsFile(), append(b, '\n'))
}

// tokenSource is a refreshing source for a stored credential (refreshed 5
// minutes before expiry), saving new tokens; nil when there is none.
func (r *runner) tokenSource(e mcpconfig.Entry) oauth2.TokenSource {
	id := credentialID(e)
	c, ok := r.loadCredentials()[id]
	if !ok || c.Access == "" {
		return nil
	}
	tok := &oauth2.Token{AccessToken: c.Access, RefreshToken: c.Refresh, TokenType: "Bearer"}
	if c.Expires > 0 {
		tok.Expiry = time.UnixMilli(c.Expires)
	}
	if c.TokenURL == "" || c.Refresh == "" {
		return oauth2.StaticTokenSource(tok)
	}
	cfg := &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: c.TokenURL}}
	src := &savingSource{r: r, id: id, cred: c, src: cfg.TokenSource(context.Background(), tok), last: c.Access}
	return oauth2.ReuseTokenSourceWithExpiry(tok, src, 5*time.Minute)
}

type savingSource struct {
	r    *runner
	id   string
	cred credential
	src  oauth2.TokenSource
	last string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.src.Token()
	if err != nil {
		return nil, err
	}
	if t.AccessToken != s.last {
		s.last = t.AccessToken
		s.cred.Access = t.AccessToken
		if t.RefreshToken != "" {
			s.cred.Refresh = t.RefreshToken
		}
		if !t.Expiry.IsZero() {
			s.cred.Expires = t.Expiry.UnixMilli()
		}
		_ = s.r.saveCredential(s.id, &s.cred)
	}
	return t, nil
}

// accessToken is the current token for a stdio server's OAUTH_ACCESS_TOKEN.
func (r *runner) accessToken(e mcpconfig.Entry) string {
	if e.Server.Auth == nil || e.Server.Auth.Type != "oauth" {
		return ""
	}
	if ts := r.tokenSource(e); ts != nil {
		if t, err := ts.Token(); err == nil {
			return t.AccessToken
		}
	}
	return ""
}

// storedAuth sends a stored token and, on 401 or 403, says to run `agent-mcp
// auth` instead of starting a browser flow in the middle of a pipeline. A 403
// insufficient_scope names the scope the server wants: it is kept with the
// credential so that the next auth asks for it (step-up authorization).
type storedAuth struct {
	ts oauth2.TokenSource
	r  *runner
	id string
}

func (s storedAuth) TokenSource(context.Context) (oauth2.TokenSource, error) { return s.ts, nil }
func (s storedAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	if scope := mcpclient.InsufficientScope(resp); scope != "" {
		credMu.Lock()
		c, ok := s.r.loadCredentials()[s.id]
		credMu.Unlock()
		if ok && c.StepUp != scope {
			c.StepUp = scope
			_ = s.r.saveCredential(s.id, &c)
		}
	}
	return errors.New("authentication required")
}

// unionScopes is a followed by the scopes of more that a lacks.
func unionScopes(a []string, more ...string) []string {
	out := slices.Clone(a)
	for _, m := range more {
		for _, s := range strings.Fields(m) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func (r *runner) oauthHandler(e mcpconfig.Entry) auth.OAuthHandler {
	if ts := r.tokenSource(e); ts != nil {
		return storedAuth{ts: ts, r: r, id: credentialID(e)}
	}
	return nil
}

func authCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "auth",
		Usage:     "log in to an HTTP MCP server with OAuth and store the token",
		ArgsUsage: "SERVER",
		Description: "Runs the OAuth authorization-code flow with PKCE the server asks for: protected-resource and " +
			"authorization-server metadata discovery, dynamic client registration (or the configured auth.clientId), " +
			"a browser login whose redirect comes back to a listener on 127.0.0.1, and the token exchange. " +
			"A 2025-03-26 server without protected-resource metadata is found through the authorization-server metadata at its root. " +
			"The token is stored in $XDG_DATA_HOME/agentutils/credentials.json (0600) and refreshed before it expires. " +
			"When a call was refused with 403 insufficient_scope, auth asks for the scope the server named as well as the one granted before.\n\n" +
			"Examples:\n\n    agent-mcp auth linear\n    agent-mcp auth --callback-port 3334 slack",
		Flags: commonFlags(
			&cli.IntFlag{Name: "callback-port", Usage: "port of the redirect listener on 127.0.0.1 (0: any free port)"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Minute, Usage: "how long to wait for the browser login"},
		),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			r, e, err := namedServer(c, env, c.Args().First())
			if err != nil {
				return err
			}
			if e.Server.Type != "http" && e.Server.Type != "sse" {
				return exit.Errorf(exit.Usage, "server %q uses stdio: OAuth is for HTTP servers", e.Name)
			}
			return r.login(c.Context, e, c.Int("callback-port"), c.Duration("wait"))
		},
	}
}

// callbackListener serves the OAuth redirect on 127.0.0.1:port (0: any
// free port): the redirect URL, the results it gets, and its stop.
func callbackListener(port int) (string, <-chan *auth.AuthorizationResult, func(), error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return "", nil, nil, exit.Errorf(exit.Failure, "callback listener: %v", err)
	}
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	results := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/callback" {
			http.NotFound(w, req)
			return
		}
		q := req.URL.Query()
		if msg := q.Get("error"); msg != "" {
			fmt.Fprintf(w, "Login failed: %s. You can close this tab.\n", msg)
		} else {
			fmt.Fprintln(w, "Logged in. You can close this tab and return to the terminal.")
		}
		select {
		case results <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
	})}
	go srv.Serve(ln)
	return redirect, results, func() { srv.Close() }, nil
}

func (r *runner) login(ctx context.Context, e mcpconfig.Entry, port int, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	redirect, results, stop, err := callbackListener(port)
	if err != nil {
		return err
	}
	defer stop()

	var saved *credential
	// Ask for what was granted before and what a 403 insufficient_scope
	// asked for, with what the server names now.
	prev := r.loadCredentials()[credentialID(e)]
	cfg := &auth.AuthorizationCodeHandlerConfig{
		Client:              &http.Client{Transport: &legacyDiscovery{base: http.DefaultTransport, resource: e.Server.URL}},
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		ScopeFilter:         func(found []string) []string { return unionScopes(found, prev.Scope, prev.StepUp) },
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "agent-mcp", RedirectURIs: []string{redirect},
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			fmt.Fprintf(r.env.Stderr, "agent-mcp: open this URL to log in to %s:\n\n  %s\n\n", e.Name, a.URL)
			select {
			case res := <-results:
				if res.Code == "" {
					return nil, errors.New("the authorization server sent no code")
				}
				return res, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("no login within %s", wait)
			}
		},
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			saved = &credential{Type: "oauth", Server: e.Name, URL: e.Server.URL, Access: t.AccessToken, Refresh: t.RefreshToken,
				TokenURL: oc.Endpoint.TokenURL, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, Scope: strings.Join(oc.Scopes, " ")}
			if granted, ok := t.Extra("scope").(string); ok && granted != "" {
				saved.Scope = granted
			}
			if !t.Expiry.IsZero() {
				saved.Expires = t.Expiry.UnixMilli()
			} else {
				saved.Expires = r.env.Now().Add(time.Hour).UnixMilli()
			}
			return oauth2.StaticTokenSource(t), nil
		},
	}
	if a := e.Server.Auth; a != nil && a.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: a.ClientID}
		if a.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: a.ClientSecret}
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return exit.Errorf(exit.Failure, "oauth: %v", err)
	}
	if err := r.dialer().ConnectWith(ctx, e, h, wait); err != nil {
		return err
	}
	if saved == nil {
		app.Warnf(r.c, "%s: connected without logging in (the server did not ask for OAuth)", e.Name)
		return nil
	}
	if err := r.saveCredential(credentialID(e), saved); err != nil {
		return err
	}
	app.Warnf(r.c, "%s: logged in; token stored in %s", e.Name, r.credentialsFile())
	return nil
}

func logoutCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:        "logout",
		Usage:       "forget the stored OAuth token of a server",
		ArgsUsage:   "SERVER",
		Description: "Example:\n\n    agent-mcp logout linear",
		Flags:       commonFlags(),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			r, e, err := namedServer(c, env, c.Args().First())
			if err != nil {
				return err
			}
			id := credentialID(e)
			if _, ok := r.loadCredentials()[id]; !ok {
				return exit.Errorf(exit.Failure, "no stored token for %q", e.Name)
			}
			return r.saveCredential(id, nil)
		},
	}
}

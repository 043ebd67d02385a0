// Package mcpauth holds agent-mcp's OAuth credentials for HTTP MCP
// servers: the credentials file, refreshing token sources that save new
// tokens, the handler that sends a stored token and keeps the scope a 403
// insufficient_scope asks for (step-up), and the discovery of MCP
// 2025-03-26 servers without protected-resource metadata.
package mcpauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentutils/agentutils/internal/credstore"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// Credential is one stored OAuth token set (credentials.json, 0600).
type Credential = credstore.Credential

// Store is the credentials file, with the OAuth handling of MCP servers.
type Store struct{ credstore.Store }

// ID is the store key of a server: the configured credentialId,
// else one derived from the URL, so servers of foreign configs work too.
func ID(e mcpconfig.Entry) string {
	if e.Server.Auth != nil && e.Server.Auth.CredentialID != "" {
		return e.Server.Auth.CredentialID
	}
	h := sha256.Sum256([]byte(e.Server.URL))
	return "mcp_oauth_" + hex.EncodeToString(h[:8])
}

// TokenSource is a refreshing source for a stored credential (refreshed 5
// minutes before expiry), saving new tokens; nil when there is none.
func (st Store) TokenSource(e mcpconfig.Entry) oauth2.TokenSource {
	id := ID(e)
	c, ok := st.Load()[id]
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
	src := &savingSource{st: st, id: id, cred: c, src: cfg.TokenSource(context.Background(), tok), last: c.Access}
	return oauth2.ReuseTokenSourceWithExpiry(tok, src, 5*time.Minute)
}

type savingSource struct {
	st   Store
	id   string
	cred Credential
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
		_ = s.st.Save(s.id, &s.cred)
	}
	return t, nil
}

// AccessToken is the current token for a stdio server's OAUTH_ACCESS_TOKEN.
func (st Store) AccessToken(e mcpconfig.Entry) string {
	if e.Server.Auth == nil || e.Server.Auth.Type != "oauth" {
		return ""
	}
	if ts := st.TokenSource(e); ts != nil {
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
	st Store
	id string
}

func (s storedAuth) TokenSource(context.Context) (oauth2.TokenSource, error) { return s.ts, nil }
func (s storedAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	if scope := mcpclient.InsufficientScope(resp); scope != "" {
		c, ok := s.st.Load()[s.id]
		if ok && c.StepUp != scope {
			c.StepUp = scope
			_ = s.st.Save(s.id, &c)
		}
	}
	return errors.New("authentication required")
}

// UnionScopes is a followed by the scopes of more that a lacks.
func UnionScopes(a []string, more ...string) []string {
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

// Handler sends the stored token of e (nil: none stored).
func (st Store) Handler(e mcpconfig.Entry) auth.OAuthHandler {
	if ts := st.TokenSource(e); ts != nil {
		return storedAuth{ts: ts, st: st, id: ID(e)}
	}
	return nil
}

// CallbackListener serves the OAuth redirect on 127.0.0.1:port (0: any
// free port): the redirect URL, the results it gets, and its stop.
func CallbackListener(port int) (string, <-chan *auth.AuthorizationResult, func(), error) {
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

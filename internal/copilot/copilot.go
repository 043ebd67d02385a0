// Package copilot is GitHub Copilot as a model provider, as pi has it: the
// OAuth device-flow login that yields a GitHub token, and the exchange of
// that token for the short-lived Copilot API token (cached until it
// expires, then fetched again), whose proxy-ep names the API's base URL.
// The GitHub token and the Copilot token are kept in the credentials file
// (credstore.Store) under the id "github-copilot".
package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentutils/agentutils/internal/credstore"
	"github.com/agentutils/agentutils/lib/llm"
)

// ID is the provider's name in the catalog and its credentials' id.
const ID = "github-copilot"

// ClientID is the OAuth app of GitHub's Copilot editor plugins (VS Code,
// copilot.vim, pi): the only one the Copilot token exchange accepts.
const ClientID = "Iv1.b507a08c87ecfe98"

// DefaultBaseURL is the API of an individual plan, used when the token
// names no proxy-ep.
const DefaultBaseURL = "https://api.individual.githubcopilot.com"

// Headers are the headers Copilot requires on the token exchange and on
// each model request (pi's values).
var Headers = map[string]string{
	"User-Agent":             "GitHubCopilotChat/0.35.0",
	"Editor-Version":         "vscode/1.107.0",
	"Editor-Plugin-Version":  "copilot-chat/0.35.0",
	"Copilot-Integration-Id": "vscode-chat",
}

// Endpoints are GitHub's URLs: https://github.com for the device flow and
// https://api.github.com for the token exchange (tests point both at a
// local server).
type Endpoints struct {
	GitHub, API string
}

// DefaultEndpoints are GitHub's own.
var DefaultEndpoints = Endpoints{GitHub: "https://github.com", API: "https://api.github.com"}

// Device is what the person needs to authorise this machine.
type Device struct {
	UserCode        string `json:"user_code"`
	VerificationURI string `json:"verification_uri"`
	DeviceCode      string `json:"device_code"`
	Interval        int    `json:"interval"`
	ExpiresIn       int    `json:"expires_in"`
}

// Flow is one login or token fetch.
type Flow struct {
	HTTP      *http.Client
	Endpoints Endpoints
	Now       func() time.Time
	// Sleep waits d or until ctx ends (the poll interval of the device flow).
	Sleep func(ctx context.Context, d time.Duration) error
}

func (f Flow) form(ctx context.Context, u string, v url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(v.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", Headers["User-Agent"])
	return f.json(req, out)
}

func (f Flow) json(req *http.Request, out any) error {
	resp, err := f.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", req.Method, req.URL.Redacted(), resp.Status, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: %v", req.URL.Redacted(), err)
	}
	return nil
}

// Start asks GitHub for a device code.
func (f Flow) Start(ctx context.Context) (Device, error) {
	var d Device
	err := f.form(ctx, f.Endpoints.GitHub+"/login/device/code", url.Values{"client_id": {ClientID}, "scope": {"read:user"}}, &d)
	if err == nil && (d.DeviceCode == "" || d.UserCode == "") {
		err = errors.New("device code answer without device_code or user_code")
	}
	return d, err
}

// Poll waits until the person has authorised the device code and returns
// the GitHub token: every interval seconds (5 when not given, 5 more on
// slow_down), until the code expires or ctx ends.
func (f Flow) Poll(ctx context.Context, d Device) (string, error) {
	interval := time.Duration(max(d.Interval, 1)) * time.Second
	if d.Interval == 0 {
		interval = 5 * time.Second
	}
	v := url.Values{"client_id": {ClientID}, "device_code": {d.DeviceCode}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}
	for {
		if err := f.Sleep(ctx, interval); err != nil {
			return "", err
		}
		var r struct {
			AccessToken string `json:"access_token"`
			Error       string `json:"error"`
			Description string `json:"error_description"`
			Interval    int    `json:"interval"`
		}
		if err := f.form(ctx, f.Endpoints.GitHub+"/login/oauth/access_token", v, &r); err != nil {
			return "", err
		}
		switch {
		case r.AccessToken != "":
			return r.AccessToken, nil
		case r.Error == "authorization_pending":
		case r.Error == "slow_down":
			interval += 5 * time.Second
			if r.Interval > 0 {
				interval = time.Duration(r.Interval) * time.Second
			}
		case r.Error != "":
			return "", fmt.Errorf("device login: %s: %s", r.Error, r.Description)
		default:
			return "", errors.New("device login: answer without access_token or error")
		}
	}
}

// Token is a Copilot API token and where to send requests with it.
type Token struct {
	Value   string
	BaseURL string
	Expires time.Time
	// RefreshAt is when to fetch the next one: the exchange's refresh_in
	// from now, at the latest five minutes before Expires.
	RefreshAt time.Time
}

// Exchange trades the GitHub token for a Copilot token.
func (f Flow) Exchange(ctx context.Context, github string) (Token, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.Endpoints.API+"/copilot_internal/v2/token", nil)
	if err != nil {
		return Token{}, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+github)
	for k, v := range Headers {
		req.Header.Set(k, v)
	}
	var r struct {
		Token     string `json:"token"`
		ExpiresAt int64  `json:"expires_at"`
		RefreshIn int64  `json:"refresh_in"` // seconds
	}
	if err := f.json(req, &r); err != nil {
		return Token{}, fmt.Errorf("copilot token: %w", err)
	}
	if r.Token == "" || r.ExpiresAt == 0 {
		return Token{}, errors.New("copilot token: answer without token or expires_at")
	}
	t := Token{Value: r.Token, BaseURL: BaseURL(r.Token), Expires: time.Unix(r.ExpiresAt, 0)}
	t.RefreshAt = t.Expires.Add(-margin)
	if r.RefreshIn > 0 && f.Now != nil {
		if at := f.Now().Add(time.Duration(r.RefreshIn) * time.Second); at.Before(t.RefreshAt) {
			t.RefreshAt = at
		}
	}
	return t, nil
}

// BaseURL is the API of a Copilot token: its proxy-ep field
// (proxy.individual.githubcopilot.com → https://api.individual.githubcopilot.com),
// else DefaultBaseURL.
func BaseURL(token string) string {
	for _, f := range strings.Split(token, ";") {
		if ep, ok := strings.CutPrefix(f, "proxy-ep="); ok && ep != "" {
			return "https://" + strings.Replace(ep, "proxy.", "api.", 1)
		}
	}
	return DefaultBaseURL
}

// margin is how long before its expiry a cached Copilot token is fetched again.
const margin = 5 * time.Minute

// Cached is the stored Copilot token while it has more than five minutes
// left, else a new one from the stored GitHub token, saved. No login is
// an error that says how to log in.
func (f Flow) Cached(ctx context.Context, st credstore.Store) (Token, error) {
	c, ok := st.Load()[ID]
	if !ok || c.Refresh == "" {
		return Token{}, errors.New("not logged in to GitHub Copilot: run agent-chat --login github-copilot")
	}
	if c.Access != "" && f.Now().Add(margin).Before(time.UnixMilli(c.Expires)) {
		return Token{Value: c.Access, BaseURL: c.URL, Expires: time.UnixMilli(c.Expires), RefreshAt: time.UnixMilli(c.Expires).Add(-margin)}, nil
	}
	return f.refresh(ctx, st, c)
}

// refresh fetches a new Copilot token with the stored GitHub token and saves it.
func (f Flow) refresh(ctx context.Context, st credstore.Store, c credstore.Credential) (Token, error) {
	t, err := f.Exchange(ctx, c.Refresh)
	if err != nil {
		return Token{}, err
	}
	c.Access, c.URL, c.Expires = t.Value, t.BaseURL, t.Expires.UnixMilli()
	return t, st.Save(ID, &c)
}

// Login runs the device flow (show gets the code to give the person),
// checks the GitHub token by exchanging it, and stores both.
func (f Flow) Login(ctx context.Context, st credstore.Store, show func(Device)) (Token, error) {
	d, err := f.Start(ctx)
	if err != nil {
		return Token{}, err
	}
	show(d)
	if d.ExpiresIn > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(d.ExpiresIn)*time.Second)
		defer cancel()
	}
	gh, err := f.Poll(ctx, d)
	if err != nil {
		return Token{}, err
	}
	t, err := f.Exchange(ctx, gh)
	if err != nil {
		return Token{}, err
	}
	c := credstore.Credential{Type: "oauth", Server: ID, Refresh: gh, Access: t.Value, URL: t.BaseURL,
		Expires: t.Expires.UnixMilli(), ClientID: ClientID}
	return t, st.Save(ID, &c)
}

// Key gives a run's requests their Copilot token (provider.Client.Key):
// the token in hand until its RefreshAt, then a new one (the token lives
// about 30 minutes; a long run outlives it); refresh (after a 401) fetches
// a new one at once, unless another request fetched one since that key.
func (f Flow) Key(st credstore.Store, first Token) func(ctx context.Context, refresh bool) (string, error) {
	var mu sync.Mutex
	cur := first
	return func(ctx context.Context, refresh bool) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if !refresh && cur.Value != "" && f.Now().Before(cur.RefreshAt) {
			return cur.Value, nil
		}
		c, ok := st.Load()[ID]
		if !ok || c.Refresh == "" {
			return "", errors.New("not logged in to GitHub Copilot: run agent-chat --login github-copilot")
		}
		var t Token
		var err error
		if refresh || c.Access == "" || c.Access == cur.Value {
			t, err = f.refresh(ctx, st, c)
		} else {
			t, err = f.Cached(ctx, st) // another process saved a newer one
		}
		if err != nil {
			return "", err
		}
		cur = t
		return t.Value, nil
	}
}

// Initiator is Copilot's X-Initiator for a request of lc: "user" when its
// last message is the person's, "agent" when it follows a tool result or
// the model's own message (as pi and the Copilot SDKs send it: Copilot
// counts the person's requests, not the agent's follow-ups, as premium).
func Initiator(lc llm.Context) string {
	role := ""
	if n := len(lc.Messages); n > 0 {
		role = lc.Messages[n-1].Role
	} else if n := len(lc.History); n > 0 {
		var m struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal(lc.History[n-1], &m)
		role = m.Role
	}
	if role == "" || role == "user" {
		return "user"
	}
	return "agent"
}

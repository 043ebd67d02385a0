package copilot

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/credstore"
	"github.com/agentutils/agentutils/lib/llm"
)

// fakeGitHub answers the device flow (pending, slow_down, then a token)
// and the token exchange; exchanges counts the Copilot tokens handed out.
func fakeGitHub(t *testing.T, exchanges *int, polls *[]string) *httptest.Server {
	answers := []string{`{"error":"authorization_pending"}`, `{"error":"slow_down","interval":10}`, `{"access_token":"ghu_secret","token_type":"bearer"}`}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/login/device/code":
			if r.FormValue("client_id") != ClientID {
				t.Errorf("client_id %q", r.FormValue("client_id"))
			}
			w.Write([]byte(`{"device_code":"dc","user_code":"ABCD-1234","verification_uri":"https://github.com/login/device","interval":5,"expires_in":900}`))
		case "/login/oauth/access_token":
			*polls = append(*polls, r.FormValue("device_code")+" "+r.FormValue("grant_type"))
			w.Write([]byte(answers[0]))
			answers = answers[1:]
		case "/copilot_internal/v2/token":
			if r.Header.Get("Authorization") != "Bearer ghu_secret" || r.Header.Get("Editor-Version") == "" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			*exchanges++
			json.NewEncoder(w).Encode(map[string]any{"token": "tid=1;exp=2;proxy-ep=proxy.business.githubcopilot.com;sig", "expires_at": 1_700_000_000 + 1800*(*exchanges)})
		default:
			http.NotFound(w, r)
		}
	}))
}

func TestLoginAndCache(t *testing.T) {
	var exchanges int
	var polls []string
	srv := fakeGitHub(t, &exchanges, &polls)
	defer srv.Close()
	now := time.Unix(1_700_000_000, 0)
	var slept []time.Duration
	f := Flow{HTTP: srv.Client(), Endpoints: Endpoints{GitHub: srv.URL, API: srv.URL}, Now: func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	st := credstore.Store{File: filepath.Join(t.TempDir(), "credentials.json"), Write: func(p string, b []byte) error { return os.WriteFile(p, b, 0o600) }}

	if _, err := f.Cached(context.Background(), st); err == nil || !strings.Contains(err.Error(), "--login github-copilot") {
		t.Fatalf("before login: %v", err)
	}
	var shown Device
	tok, err := f.Login(context.Background(), st, func(d Device) { shown = d })
	if err != nil {
		t.Fatal(err)
	}
	if shown.UserCode != "ABCD-1234" || shown.VerificationURI != "https://github.com/login/device" {
		t.Errorf("shown %+v", shown)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 5 * time.Second, 10 * time.Second}, slept); diff != "" {
		t.Errorf("poll intervals (-want +got):\n%s", diff)
	}
	if len(polls) != 3 || polls[0] != "dc urn:ietf:params:oauth:grant-type:device_code" {
		t.Errorf("polls %q", polls)
	}
	if tok.BaseURL != "https://api.business.githubcopilot.com" || exchanges != 1 {
		t.Errorf("token %+v after %d exchanges", tok, exchanges)
	}
	c := st.Load()[ID]
	if c.Refresh != "ghu_secret" || c.Access != tok.Value {
		t.Errorf("stored %+v", c)
	}

	// Cached until five minutes before expiry, then exchanged again and saved.
	for _, tc := range []struct {
		at        time.Duration
		exchanges int
	}{{0, 1}, {20 * time.Minute, 1}, {26 * time.Minute, 2}, {27 * time.Minute, 2}} {
		now = time.Unix(1_700_000_000, 0).Add(tc.at)
		got, err := f.Cached(context.Background(), st)
		if err != nil || got.Value == "" || got.BaseURL != "https://api.business.githubcopilot.com" || exchanges != tc.exchanges {
			t.Errorf("at +%v: %+v, %v after %d exchanges, want %d", tc.at, got, err, exchanges, tc.exchanges)
		}
	}
}

func TestPollErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"error":"access_denied","error_description":"The user has denied your application access."}`))
	}))
	defer srv.Close()
	f := Flow{HTTP: srv.Client(), Endpoints: Endpoints{GitHub: srv.URL}, Sleep: func(context.Context, time.Duration) error { return nil }}
	if _, err := f.Poll(context.Background(), Device{DeviceCode: "dc"}); err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Errorf("denied: %v", err)
	}
}

func TestBaseURL(t *testing.T) {
	for tok, want := range map[string]string{
		"tid=1;proxy-ep=proxy.individual.githubcopilot.com;sku=x": "https://api.individual.githubcopilot.com",
		"tid=1;proxy-ep=proxy.enterprise.githubcopilot.com":       "https://api.enterprise.githubcopilot.com",
		"opaque": DefaultBaseURL,
	} {
		if got := BaseURL(tok); got != want {
			t.Errorf("BaseURL(%q) = %q, want %q", tok, got, want)
		}
	}
}

// TestInitiator: "user" for the person's request, "agent" for one that
// follows a tool result or the model's own message (a continued turn).
func TestInitiator(t *testing.T) {
	for _, c := range []struct {
		lc   llm.Context
		want string
	}{
		{llm.Context{}, "user"},
		{llm.Context{Messages: []llm.Message{{Role: "user"}}}, "user"},
		{llm.Context{Messages: []llm.Message{{Role: "user"}, {Role: "assistant"}, {Role: "toolResult"}}}, "agent"},
		{llm.Context{Messages: []llm.Message{{Role: "assistant"}}}, "agent"},
		{llm.Context{History: []json.RawMessage{json.RawMessage(`{"role":"toolResult"}`)}}, "agent"},
		{llm.Context{History: []json.RawMessage{json.RawMessage(`{"role":"toolResult"}`)}, Messages: []llm.Message{{Role: "user"}}}, "user"},
	} {
		if got := Initiator(c.lc); got != c.want {
			t.Errorf("%+v: %q, want %q", c.lc, got, c.want)
		}
	}
}

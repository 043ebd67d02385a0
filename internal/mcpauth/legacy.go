package mcpauth

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// LegacyDiscovery is the HTTP transport of `agent-mcp auth` that completes
// the discovery of an MCP 2025-03-26 server. Such a server publishes no
// protected-resource metadata (RFC 9728); the metadata of its authorization
// server is at the server's root (/.well-known/oauth-authorization-server)
// and may name an issuer with a path (http://host/oauth), which the SDK
// refuses as not matching the root. When the protected-resource metadata is
// missing, LegacyDiscovery answers it from that document
// (authorization_servers: its issuer) and serves the document at the
// issuer's own metadata URL as well, so the SDK goes on to registration,
// authorization and the token.
type LegacyDiscovery struct {
	Base     http.RoundTripper
	Resource string // the MCP server's URL

	mu         sync.Mutex
	doc        []byte // the root metadata document
	issuerMeta string // the metadata URL of its issuer (RFC 8414 path insertion)
}

const (
	prmPath = "/.well-known/oauth-protected-resource"
	asmPath = "/.well-known/oauth-authorization-server"
)

func (l *LegacyDiscovery) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.Base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode == http.StatusOK {
		return resp, err
	}
	var body []byte
	if strings.HasPrefix(req.URL.Path, prmPath) {
		body = l.prm(req)
	} else {
		l.mu.Lock()
		if l.issuerMeta != "" && req.URL.String() == l.issuerMeta {
			body = l.doc
		}
		l.mu.Unlock()
	}
	if body == nil {
		return resp, err
	}
	resp.Body.Close()
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}, nil
}

// prm is protected-resource metadata made from the root authorization
// server metadata of the MCP server's origin, or nil when there is none or
// its issuer is the root itself (the SDK's own fallback covers that).
func (l *LegacyDiscovery) prm(req *http.Request) []byte {
	srv, err := url.Parse(l.Resource)
	if err != nil || srv.Host != req.URL.Host {
		return nil
	}
	root := srv.Scheme + "://" + srv.Host
	r2, err := http.NewRequestWithContext(req.Context(), http.MethodGet, root+asmPath, nil)
	if err != nil {
		return nil
	}
	r2.Header.Set("Accept", "application/json")
	resp, err := l.Base.RoundTrip(r2)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	doc, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var meta struct {
		Issuer string `json:"issuer"`
	}
	if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(doc, &meta) != nil {
		return nil
	}
	iss, err := url.Parse(meta.Issuer)
	if err != nil || iss.Host == "" || strings.Trim(iss.Path, "/") == "" {
		return nil
	}
	l.mu.Lock()
	l.doc = doc
	l.issuerMeta = iss.Scheme + "://" + iss.Host + asmPath + "/" + strings.TrimLeft(iss.Path, "/")
	l.mu.Unlock()
	prm, _ := json.Marshal(map[string]any{"resource": l.Resource, "authorization_servers": []string{meta.Issuer}})
	return prm
}

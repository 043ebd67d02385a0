package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/urfave/cli/v2"
	"golang.org/x/oauth2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/credstore"
	"github.com/agentutils/agentutils/internal/mcpauth"
	"github.com/agentutils/agentutils/internal/mcpdiscover"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

// creds is the credentials file of the runner's data directory.
func (r *runner) creds() mcpauth.Store {
	return mcpauth.Store{Store: credstore.Store{File: filepath.Join(r.dirs.Data, "credentials.json"), Write: mcpdiscover.WriteFile}}
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
		Flags: connectFlags(
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

func (r *runner) login(ctx context.Context, e mcpconfig.Entry, port int, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	redirect, results, stop, err := mcpauth.CallbackListener(port)
	if err != nil {
		return err
	}
	defer stop()

	var saved *mcpauth.Credential
	// Ask for what was granted before and what a 403 insufficient_scope
	// asked for, with what the server names now.
	prev := r.creds().Load()[mcpauth.ID(e)]
	cfg := &auth.AuthorizationCodeHandlerConfig{
		Client:              &http.Client{Transport: &mcpauth.LegacyDiscovery{Base: http.DefaultTransport, Resource: e.Server.URL}},
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		ScopeFilter:         func(found []string) []string { return mcpauth.UnionScopes(found, prev.Scope, prev.StepUp) },
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
			saved = &mcpauth.Credential{Type: "oauth", Server: e.Name, URL: e.Server.URL, Access: t.AccessToken, Refresh: t.RefreshToken,
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
	if err := r.creds().Save(mcpauth.ID(e), saved); err != nil {
		return err
	}
	app.Warnf(r.c, "%s: logged in; token stored in %s", e.Name, r.creds().File)
	return nil
}

func logoutCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:        "logout",
		Usage:       "forget the stored OAuth token of a server",
		ArgsUsage:   "SERVER",
		Description: "Example:\n\n    agent-mcp logout linear",
		Flags:       configFlags(),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			r, e, err := namedServer(c, env, c.Args().First())
			if err != nil {
				return err
			}
			id := mcpauth.ID(e)
			if _, ok := r.creds().Load()[id]; !ok {
				return exit.Errorf(exit.Failure, "no stored token for %q", e.Name)
			}
			return r.creds().Save(id, nil)
		},
	}
}

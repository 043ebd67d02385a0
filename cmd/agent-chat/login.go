package main

import (
	"context"
	"fmt"
	"github.com/agentutils/agentutils/internal/hooks"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/copilot"
	"github.com/agentutils/agentutils/internal/credstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
)

// copilotFlow is the GitHub Copilot login of env: GitHub's endpoints, or
// $AGENTUTILS_GITHUB_URL's (a local fake, for tests).
func copilotFlow(env *app.Env) (copilot.Flow, credstore.Store) {
	eps := copilot.DefaultEndpoints
	if u := strings.TrimRight(env.Getenv("AGENTUTILS_GITHUB_URL"), "/"); u != "" {
		eps = copilot.Endpoints{GitHub: u, API: u}
	}
	st := credstore.Store{File: filepath.Join(dirs.Resolve(env.Getenv).Data, "credentials.json"), Write: atomicfile.WritePrivate}
	return copilot.Flow{HTTP: http.DefaultClient, Endpoints: eps, Now: env.Now, Sleep: sleep}, st
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// login runs --login PROVIDER: GitHub's device flow, the code and URL on
// stderr for the person, polling until they have authorised it; then the
// --settings files' Notification hooks hear auth_success.
func login(c *cli.Context, env *app.Env, o Options) error {
	name := o.Login
	hks, err := loadSettings(o.Settings, env)
	if err != nil {
		return err
	}
	if name != copilot.ID {
		return exit.Errorf(exit.Usage, "--login %s: only %s has a login (other providers take a key)", name, copilot.ID)
	}
	f, st := copilotFlow(env)
	t, err := f.Login(c.Context, st, func(d copilot.Device) {
		fmt.Fprintf(env.Stderr, "Open %s and enter the code %s\nWaiting for the authorisation...\n", d.VerificationURI, d.UserCode)
	})
	if err != nil {
		return exit.Errorf(exit.Failure, "--login %s: %v", name, err)
	}
	fmt.Fprintf(env.Stderr, "Logged in to GitHub Copilot (API %s); credentials in %s\n", t.BaseURL, st.File)
	hooks.Run(c.Context, hks, hooks.Input{Event: hooks.Notification, NotificationType: "auth_success", Title: "agent-chat",
		Message: "Logged in to GitHub Copilot", Cwd: env.Dir}, nil, func(s string) { app.Warnf(c, "%s", s) })
	return nil
}

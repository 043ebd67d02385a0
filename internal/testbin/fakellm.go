package testbin

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/fakellm"
)

// fakellmCmd is the testscript command "fakellm" of every suite: it starts the fake provider for the rest of the script:
//
//	fakellm API STEP...
//
// with steps sse:FILE, status:CODE[:HEADER=VALUE]:BODYFILE, drop:N:FILE,
// hang, or agent (the server answers by the conversation, fakellm's agent
// mode, in $WORK); FILE paths are relative to $WORK, or testdata:NAME for the repo's
// testdata/sse/NAME. It writes $AGENTUTILS_HOME/models.toml with provider
// "fake" (model "test-model") pointing at the server, key from FAKE_KEY.
// Each request body the server receives is written to $WORK/requests/N.json
// (the directory is emptied when a server starts).
func fakellmCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fakellm API STEP...")
	}
	path := func(p string) string {
		if name, ok := strings.CutPrefix(p, "testdata:"); ok {
			root, _ := Root()
			return filepath.Join(root, "testdata", "sse", name)
		}
		return ts.MkAbs(p)
	}
	var steps []fakellm.Step
	agent := ""
	for _, a := range args[1:] {
		if a == "agent" {
			agent = ts.MkAbs(".")
			continue
		}
		kind, rest, _ := strings.Cut(a, ":")
		switch kind {
		case "sse":
			steps = append(steps, fakellm.Step{SSE: path(rest)})
		case "drop":
			n, file, _ := strings.Cut(rest, ":")
			k, err := strconv.Atoi(n)
			ts.Check(err)
			steps = append(steps, fakellm.Step{SSE: path(file), DropAfterBytes: k})
		case "hang":
			steps = append(steps, fakellm.Step{Hang: true})
		case "status":
			parts := strings.Split(rest, ":")
			code, err := strconv.Atoi(parts[0])
			ts.Check(err)
			st := fakellm.Step{Status: code, Headers: map[string]string{}}
			for _, p := range parts[1:] {
				if k, v, ok := strings.Cut(p, "="); ok {
					st.Headers[k] = v
				} else {
					body, err := os.ReadFile(path(p))
					ts.Check(err)
					st.Body = body
				}
			}
			steps = append(steps, st)
		default:
			ts.Fatalf("fakellm: unknown step %q", a)
		}
	}
	srv := fakellm.New(steps...)
	srv.Agent = agent
	srv.RequestDir = ts.MkAbs("requests") // fresh for each server
	ts.Check(os.RemoveAll(srv.RequestDir))
	ts.Check(os.MkdirAll(srv.RequestDir, 0o755))
	home := ts.Getenv("AGENTUTILS_HOME")
	ts.Check(os.MkdirAll(home, 0o755))
	ts.Check(os.WriteFile(filepath.Join(home, "models.toml"), []byte(srv.ModelsTOML("fake", args[0], "test-model")), 0o644))
	ts.Setenv("FAKE_KEY", "sk-fake-secret-123456")
	ts.Defer(func() {
		srv.Close()
		ts.Logf("fakellm: %d requests for %d steps", len(srv.Requests()), len(steps))
	})
}

package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/exit"
)

func forkCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "fork",
		Usage:     `copy a session into a new file (new id, parentSession = the old id) and print {"file","id"}`,
		ArgsUsage: "FILE",
		Description: `All entries are kept; the title is kept; the artifacts directory is copied. The fork
becomes this terminal's session: 'agent-session continue' here resumes it.

Example:
   F=$(agent-session fork s.jsonl | jq -r .file)`,
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			file, id, err := forkSession(env, path, filepath.Dir(path), "")
			if err != nil {
				return err
			}
			writeBreadcrumb(env, env.Dir, file)
			return printJSON(c, map[string]string{"file": file, "id": id})
		},
	}
}

// forkSession writes a copy of the session at src into dir with a new id
// and parentSession = the source id; cwd "" keeps the source's cwd.
func forkSession(env *app.Env, src, dir, cwd string) (string, string, error) {
	l, err := sessionstore.Load(src)
	if errors.Is(err, sessionstore.ErrNoSession) {
		err = exit.Errorf(exit.Usage, "%s: no such session file (nothing to fork)", src)
	}
	if err != nil {
		return "", "", err
	}
	if cwd == "" {
		cwd = l.Hdr.Cwd
	}
	entries := make([][]byte, len(l.Entries))
	for i, e := range l.Entries {
		entries[i] = e.Raw
	}
	file, id, err := createSession(env, dir, cwd, map[string]string{"title": l.Hdr.Title, "parentSession": l.Hdr.ID}, entries, sessionstore.IsZst(src))
	if err != nil {
		return "", "", err
	}
	copyDir(sessionstore.ArtifactsDir(src), sessionstore.ArtifactsDir(file)) // best effort, as the reference does
	return file, id, nil
}

// copyDir copies a directory tree; a missing source is not an error.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return nil
		}
		defer out.Close()
		io.Copy(out, in)
		return nil
	})
}

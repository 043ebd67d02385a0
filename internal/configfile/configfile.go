// Package configfile finds and reads the config.toml files lib/config
// merges: the user's in the config directory and the project's, the
// nearest .agentutils/config.toml from the working directory up.
package configfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentutils/agentutils/lib/config"
	"github.com/agentutils/agentutils/lib/dirs"
)

// maxSize bounds a config file: a project's comes with a cloned repository.
const maxSize = 1 << 20

// Paths are the user's file and the project's (the nearest existing one,
// "" when none).
func Paths(dir string, getenv func(string) string) (user, project string) {
	user = filepath.Join(dirs.Resolve(getenv).Config, "config.toml")
	if d, ok := dirs.Up(dir, func(d string) bool {
		p := filepath.Join(d, ".agentutils", "config.toml")
		st, err := os.Stat(p)
		return p != user && err == nil && st.Mode().IsRegular()
	}); ok {
		project = filepath.Join(d, ".agentutils", "config.toml")
	}
	return user, project
}

// Load merges the files for dir with the environment and the flags given
// (flag name → values).
func Load(dir string, getenv func(string) string, flags map[string][]string) (config.Config, error) {
	user, project := Paths(dir, getenv)
	in := config.Input{Getenv: getenv, Flags: flags}
	var err error
	if in.User, err = read(user); err != nil {
		return config.Config{}, err
	}
	if project != "" {
		if in.Project, err = read(project); err != nil {
			return config.Config{}, err
		}
	}
	return config.Merge(in)
}

func read(path string) (*config.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxSize {
		return nil, errors.New(path + ": larger than 1 MB; not a config file")
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return &config.File{Name: path, Data: data}, nil
}

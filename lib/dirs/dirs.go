// Package dirs resolves where agentutils keeps configuration, data and cache,
// from an environment passed in (no os.Getenv here).
package dirs

import "path/filepath"

// Dirs are the three roots of agentutils' files.
type Dirs struct {
	Config string // config.toml, models.toml
	Data   string // sessions/, blobs/
	Cache  string
}

// Resolve applies AGENTUTILS_HOME (all three in one directory, for tests),
// then the XDG variables, then the XDG defaults under HOME.
func Resolve(getenv func(string) string) Dirs {
	if h := getenv("AGENTUTILS_HOME"); h != "" {
		return Dirs{Config: h, Data: h, Cache: h}
	}
	home := getenv("HOME")
	pick := func(env, def string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, "agentutils")
		}
		return filepath.Join(home, def, "agentutils")
	}
	return Dirs{
		Config: pick("XDG_CONFIG_HOME", ".config"),
		Data:   pick("XDG_DATA_HOME", filepath.Join(".local", "share")),
		Cache:  pick("XDG_CACHE_HOME", ".cache"),
	}
}

// Sessions is the root of the session store.
func (d Dirs) Sessions() string { return filepath.Join(d.Data, "sessions") }

// Blobs is the content-addressed blob store.
func (d Dirs) Blobs() string { return filepath.Join(d.Data, "blobs") }

// Up is the nearest directory at or above dir for which ok holds, and
// whether there is one. ok looks at the file system; Up only walks the
// path (dir is clean and absolute).
func Up(dir string, ok func(dir string) bool) (string, bool) {
	for d := dir; ; {
		if ok(d) {
			return d, true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", false
		}
		d = up
	}
}

package provider

import (
	"os"
	"path/filepath"

	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
)

// LoadCatalog is the embedded model catalog plus the user's models.toml:
// file when given (it must exist), else $XDG_CONFIG_HOME/agentutils/models.toml
// when present. Errors are usage errors (exit 2).
func LoadCatalog(file string, getenv func(string) string) (*llm.Catalog, error) {
	explicit := file != ""
	if !explicit {
		file = filepath.Join(dirs.Resolve(getenv).Config, "models.toml")
	}
	data, err := os.ReadFile(file)
	if err != nil && (explicit || !os.IsNotExist(err)) {
		return nil, exit.Wrap(exit.Usage, err)
	}
	cat, err := llm.LoadCatalog(data, file, getenv)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return cat, nil
}

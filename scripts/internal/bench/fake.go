package bench

import (
	"fmt"
	"os"
	"path/filepath"
)

// FakeProvider starts dir/fakeprovider (scripts/fakeprovider, built by
// Setup) with args and points agentutils and pi at it as model
// fake/test-model with the wire api (anthropic-messages,
// openai-completions) and context window: it writes dir/home/models.toml
// and dir/piagent/models.json and sets AGENTUTILS_HOME,
// PI_CODING_AGENT_DIR and the key's variable for the programs started
// after it. stop ends the server.
func FakeProvider(dir, api string, window int, args ...string) (stop func(), err error) {
	url, stop, err := serve(append([]string{filepath.Join(dir, "fakeprovider")}, args...)...)
	if err != nil {
		return nil, err
	}
	if err := fakeModels(dir, url, api, window); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

func fakeModels(dir, url, api string, window int) error {
	home, piagent := filepath.Join(dir, "home"), filepath.Join(dir, "piagent")
	for _, d := range []string{home, piagent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	toml := fmt.Sprintf("[providers.fake]\nbaseUrl = %q\napi = %q\napiKey = \"FAKE_KEY\"\n"+
		"[[providers.fake.models]]\nid = \"test-model\"\ncontextWindow = %d\nmaxTokens = 4096\n", url, api, window)
	compat := ""
	if api == "openai-completions" {
		compat = `"compat":{"supportsDeveloperRole":false,"supportsReasoningEffort":false},`
	}
	pi := fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":%q,"apiKey":"FAKE",%s`+
		`"models":[{"id":"test-model","contextWindow":%d,"maxTokens":4096}]}}}`+"\n", url, api, compat, window)
	if err := os.WriteFile(filepath.Join(home, "models.toml"), []byte(toml), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(piagent, "models.json"), []byte(pi), 0o644); err != nil {
		return err
	}
	os.Setenv("AGENTUTILS_HOME", home)
	os.Setenv("PI_CODING_AGENT_DIR", piagent)
	return os.Setenv("FAKE_KEY", "fake")
}

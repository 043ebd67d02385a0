package llm

import (
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestCatalogDefaultsAndResolve(t *testing.T) {
	c, err := LoadCatalog(nil, "", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for pattern, want := range map[string]string{
		"anthropic/claude-sonnet-4-5": "anthropic/claude-sonnet-4-5",
		"claude-haiku-4-5":            "anthropic/claude-haiku-4-5",
		"ANTHROPIC/Claude-Opus-4-6":   "anthropic/claude-opus-4-6",
		"gemini-2.5-flash":            "google/gemini-2.5-flash",
		"opus-4-5":                    "anthropic/claude-opus-4-5",
		"gpt-5.1-codex":               "openai/gpt-5.1-codex",
		"gpt-oss:20b":                 "ollama/gpt-oss:20b",
	} {
		m, _, err := c.Resolve(pattern)
		if err != nil || m.Ref() != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", pattern, m.Ref(), err, want)
		}
	}
	m, level, err := c.Resolve("sonnet-4-5:high")
	if err != nil || m.ID != "claude-sonnet-4-5" || level != "high" {
		t.Errorf("thinking suffix: %s %q %v", m.Ref(), level, err)
	}
	_, _, err = c.Resolve("claude-sonet-4-5")
	if err == nil || !strings.Contains(err.Error(), "did you mean anthropic/claude-sonnet-4-5") {
		t.Errorf("unknown model error = %v", err)
	}
	// a misspelt part of a name is suggested too; a bad level is named as such
	_, _, err = c.Resolve("sonet")
	if err == nil || !strings.Contains(err.Error(), "did you mean anthropic/claude-sonnet") {
		t.Errorf("Resolve(sonet) error = %v", err)
	}
	_, _, err = c.Resolve("sonnet:ultra")
	if err == nil || !strings.Contains(err.Error(), `unknown thinking level "ultra"`) || !strings.Contains(err.Error(), "xhigh") {
		t.Errorf("Resolve(sonnet:ultra) error = %v", err)
	}
}

func TestCatalogUserMerge(t *testing.T) {
	user := `
[providers.local-llama]
baseUrl = "http://127.0.0.1:8080/v1"
api = "openai-completions"
auth = "none"

[[providers.local-llama.models]]
id = "qwen3-coder"
contextWindow = 65536
maxTokens = 8192

[providers.anthropic]
headers = { x-team = "a" }

[providers.anthropic.modelOverrides.claude-sonnet-4-5]
maxTokens = 32000
cost = { input = 2 }
`
	c, err := LoadCatalog([]byte(user), "models.toml", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := c.Resolve("local-llama/qwen3-coder")
	if err != nil {
		t.Fatal(err)
	}
	if m.API != OpenAICompletions || m.BaseURL != "http://127.0.0.1:8080/v1" || m.ContextWindow != 65536 || m.Name != "qwen3-coder" {
		t.Errorf("custom model = %+v", m)
	}
	k, err := c.ResolveKey(m, "", env(nil))
	if err != nil || !k.None {
		t.Errorf("keyless provider: %+v %v", k, err)
	}
	s, _, _ := c.Resolve("anthropic/claude-sonnet-4-5")
	if s.MaxTokens != 32000 || s.Cost.Input != 2 || s.Cost.Output != 15 || s.Headers["x-team"] != "a" {
		t.Errorf("override = %+v", s)
	}
}

func TestCatalogErrors(t *testing.T) {
	for user, want := range map[string]string{
		"[providers.x\nbaseUrl=1": "models.toml:2: expected",
		"[providers.x]\napi=\"openai-completions\"\n[[providers.x.models]]\nid=\"m\"":                                                      "need a baseUrl",
		"[providers.x]\nbaseUrl=\"http://h\"\napi=\"smoke-signals\"\napiKey=\"K\"\n[[providers.x.models]]\nid=\"m\"":                       "unsupported api",
		"[providers.x]\nbaseUrl=\"http://h\"\napi=\"openai-completions\"\napiKey=\"K\"\n[[providers.x.models]]\nid=\"m\"\ncontextWindow=0": "must be positive",
		"[providers.x]\nbaseUrl=\"http://h\"\napi=\"openai-completions\"\napiKey=\"K\"\n[[providers.x.models]]\nid=\"m\"\ncontextWindw=5":  "bad model field",
	} {
		_, err := LoadCatalog([]byte(user), "models.toml", env(nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadCatalog(%q) error = %v, want %q", user, err, want)
		}
	}
}

func TestResolveKey(t *testing.T) {
	c, _ := LoadCatalog([]byte("[providers.x]\nbaseUrl=\"http://h\"\napi=\"openai-completions\"\napiKey=\"!pass show x\"\n[[providers.x.models]]\nid=\"m\""), "models.toml", env(nil))
	a, _, _ := c.Resolve("anthropic/claude-haiku-4-5")
	if _, err := c.ResolveKey(a, "", env(nil)); err == nil || !strings.Contains(err.Error(), "set ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY") {
		t.Errorf("missing key error = %v", err)
	}
	if k, _ := c.ResolveKey(a, "", env(map[string]string{"ANTHROPIC_API_KEY": "sk"})); k.Value != "sk" || k.Source != "ANTHROPIC_API_KEY" {
		t.Errorf("env key = %+v", k)
	}
	if k, _ := c.ResolveKey(a, "flag", env(map[string]string{"ANTHROPIC_API_KEY": "sk"})); k.Value != "flag" {
		t.Errorf("--api-key wins: %+v", k)
	}
	x, _, _ := c.Resolve("x/m")
	if k, _ := c.ResolveKey(x, "", env(nil)); k.Command != "pass show x" {
		t.Errorf("!command key = %+v", k)
	}
}

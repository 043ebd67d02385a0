package llm

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentutils/agentutils/lib/editdist"
)

//go:embed catalog.toml
var defaultCatalog []byte

// ProviderConfig is one [providers.NAME] table of catalog.toml / models.toml.
type ProviderConfig struct {
	BaseURL        string                    `toml:"baseUrl"`
	APIKey         string                    `toml:"apiKey"` // env var name, literal, or !command
	API            string                    `toml:"api"`
	Headers        map[string]string         `toml:"headers"`
	AuthHeader     bool                      `toml:"authHeader"`
	Auth           string                    `toml:"auth"` // apiKey | none | github-copilot
	EnvKeys        []string                  `toml:"envKeys"`
	BaseURLEnv     string                    `toml:"baseUrlEnv"`
	Default        string                    `toml:"default"`
	Models         []map[string]any          `toml:"models"`
	ModelOverrides map[string]map[string]any `toml:"modelOverrides"`
}

// Catalog is the merged set of providers and models.
type Catalog struct {
	Providers map[string]*ProviderConfig
	Order     []string // provider declaration order
	Models    []Model
}

type catalogFile struct {
	Providers map[string]*ProviderConfig `toml:"providers"`
}

// LoadCatalog merges the user's models.toml (may be nil) over the embedded
// catalog, in the reference's order: provider baseUrl/headers, model
// overrides, then custom models (same id replaces). getenv supplies
// per-provider base URL variables such as OLLAMA_BASE_URL. Errors name the
// file and, for syntax errors, the line.
func LoadCatalog(user []byte, userName string, getenv func(string) string) (*Catalog, error) {
	var base catalogFile
	md, err := toml.Decode(string(defaultCatalog), &base)
	if err != nil {
		return nil, fmt.Errorf("embedded catalog: %w", err)
	}
	c := &Catalog{Providers: base.Providers}
	c.Order = providerOrder(md)
	for _, name := range c.Order {
		p := c.Providers[name]
		if p.BaseURLEnv != "" && getenv != nil && getenv(p.BaseURLEnv) != "" {
			p.BaseURL = strings.TrimRight(getenv(p.BaseURLEnv), "/")
			if !strings.HasSuffix(p.BaseURL, "/v1") && name == "ollama" {
				p.BaseURL += "/v1"
			}
		}
		for _, raw := range p.Models {
			m, err := modelFrom(name, p, raw, nil)
			if err != nil {
				return nil, fmt.Errorf("embedded catalog: %w", err)
			}
			c.Models = append(c.Models, m)
		}
	}
	if len(user) == 0 {
		return c, nil
	}
	var uf catalogFile
	umd, err := toml.Decode(string(user), &uf)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", userName, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", userName, err)
	}
	for _, name := range providerOrder(umd) {
		up := uf.Providers[name]
		if err := validateProvider(name, up, c.Providers[name] != nil); err != nil {
			return nil, fmt.Errorf("%s: %w", userName, err)
		}
		p, known := c.Providers[name]
		if !known {
			p = &ProviderConfig{}
			c.Providers[name] = p
			c.Order = append(c.Order, name)
		}
		setIf(&p.BaseURL, up.BaseURL)
		setIf(&p.API, up.API)
		setIf(&p.APIKey, up.APIKey)
		setIf(&p.Auth, up.Auth)
		setIf(&p.Default, up.Default)
		p.AuthHeader = p.AuthHeader || up.AuthHeader
		if len(up.Headers) > 0 {
			if p.Headers == nil {
				p.Headers = map[string]string{}
			}
			for k, v := range up.Headers {
				p.Headers[k] = v
			}
		}
		// Existing models of this provider pick up the provider changes.
		for i := range c.Models {
			if c.Models[i].Provider != name {
				continue
			}
			if up.BaseURL != "" {
				c.Models[i].BaseURL = up.BaseURL
			}
			c.Models[i].Headers = mergeHeaders(p.Headers, c.Models[i].Headers)
			if ov, ok := up.ModelOverrides[c.Models[i].ID]; ok {
				m, err := applyOverride(c.Models[i], ov)
				if err != nil {
					return nil, fmt.Errorf("%s: providers.%s.modelOverrides.%s: %w", userName, name, c.Models[i].ID, err)
				}
				c.Models[i] = m
			}
		}
		for _, raw := range up.Models {
			m, err := modelFrom(name, p, raw, up.ModelOverrides)
			if err != nil {
				return nil, fmt.Errorf("%s: providers.%s: %w", userName, name, err)
			}
			replaced := false
			for i := range c.Models {
				if c.Models[i].Provider == name && c.Models[i].ID == m.ID {
					c.Models[i], replaced = m, true
				}
			}
			if !replaced {
				c.Models = append(c.Models, m)
			}
		}
	}
	return c, nil
}

func providerOrder(md toml.MetaData) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "providers" && !seen[k[1]] {
			seen[k[1]] = true
			out = append(out, k[1])
		}
	}
	return out
}

func validateProvider(name string, p *ProviderConfig, builtin bool) error {
	if len(p.Models) > 0 {
		if p.BaseURL == "" && !builtin {
			return fmt.Errorf("providers.%s: models need a baseUrl", name)
		}
		if p.APIKey == "" && p.Auth != "none" && p.Auth != "github-copilot" && !builtin {
			return fmt.Errorf("providers.%s: models need an apiKey (an environment variable name or a literal) or auth = \"none\"", name)
		}
		if p.API == "" && !builtin {
			for _, m := range p.Models {
				if m["api"] == nil {
					return fmt.Errorf("providers.%s: models need an api (at provider or model level)", name)
				}
			}
		}
	} else if !builtin && p.BaseURL == "" && len(p.ModelOverrides) == 0 {
		return fmt.Errorf("providers.%s: needs models, a baseUrl or modelOverrides", name)
	}
	if p.API != "" {
		if _, err := CodecFor(p.API); err != nil {
			return fmt.Errorf("providers.%s: %w", name, err)
		}
	}
	return nil
}

// setIf sets *dst to v unless v is the zero value: a layer of configuration
// overrides only what it sets.
func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

func mergeHeaders(provider, model map[string]string) map[string]string {
	if len(provider) == 0 {
		return model
	}
	out := map[string]string{}
	for k, v := range provider {
		out[k] = v
	}
	for k, v := range model {
		out[k] = v
	}
	return out
}

// modelFrom builds a model from a [[providers.X.models]] table with the
// defaults for custom models.
func modelFrom(provider string, p *ProviderConfig, raw map[string]any, overrides map[string]map[string]any) (Model, error) {
	m := Model{Provider: provider, API: p.API, BaseURL: p.BaseURL, Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
	m, err := applyOverride(m, raw)
	if err != nil {
		return m, err
	}
	if m.ID == "" {
		return m, fmt.Errorf("a model without id")
	}
	if ov, ok := overrides[m.ID]; ok {
		if m, err = applyOverride(m, ov); err != nil {
			return m, err
		}
	}
	if m.Name == "" {
		m.Name = m.ID
	}
	m.Headers = mergeHeaders(p.Headers, m.Headers)
	if m.ContextWindow <= 0 || m.MaxTokens <= 0 {
		return m, fmt.Errorf("model %s: contextWindow and maxTokens must be positive", m.ID)
	}
	if _, err := CodecFor(m.API); err != nil {
		return m, fmt.Errorf("model %s: %w", m.ID, err)
	}
	return m, nil
}

// applyOverride lays the fields of a TOML table over a model (cost field by
// field), through their shared camelCase JSON names.
func applyOverride(m Model, ov map[string]any) (Model, error) {
	cur, _ := json.Marshal(m)
	var base map[string]any
	_ = json.Unmarshal(cur, &base)
	for k, v := range ov {
		if k == "cost" {
			cm, _ := base["cost"].(map[string]any)
			if vm, ok := v.(map[string]any); ok && cm != nil {
				for ck, cv := range vm {
					cm[ck] = cv
				}
				continue
			}
		}
		base[k] = v
	}
	b, _ := json.Marshal(base)
	var out Model
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return m, fmt.Errorf("bad model field: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	out.Provider = m.Provider
	return out, nil
}

// Resolve finds the model a pattern names: "provider/id", "id", or a fuzzy
// substring of id or name, each with an optional ":level" thinking suffix
// (the whole string is tried as an id first). It returns the model and the
// thinking level of the suffix ("" when none). Unknown names get close
// suggestions in the error.
func (c *Catalog) Resolve(pattern string) (Model, string, error) {
	if m, ok := c.find(pattern); ok {
		return m, "", nil
	}
	if i := strings.LastIndexByte(pattern, ':'); i > 0 {
		level := pattern[i+1:]
		if m, ok := c.find(pattern[:i]); ok {
			for _, l := range ThinkingLevels {
				if l == level {
					return m, level, nil
				}
			}
			if strings.Trim(strings.ToLower(level), "abcdefghijklmnopqrstuvwxyz") == "" { // not a tag such as ":8b"
				return Model{}, "", fmt.Errorf("unknown thinking level %q in %q: choose %s", level, pattern, strings.Join(ThinkingLevels, ", "))
			}
		}
	}
	return Model{}, "", fmt.Errorf("unknown model %q%s (see agent-chat --list-models)", pattern, c.suggest(pattern))
}

func (c *Catalog) find(p string) (Model, bool) {
	lp := strings.ToLower(p)
	if prov, id, ok := strings.Cut(lp, "/"); ok {
		for _, m := range c.Models {
			if strings.ToLower(m.Provider) == prov && strings.ToLower(m.ID) == id {
				return m, true
			}
		}
		if _, known := c.Providers[prov]; known {
			if m, ok := best(c.filter(func(m Model) bool {
				return m.Provider == prov && strings.Contains(strings.ToLower(m.ID), id)
			})); ok {
				return m, true
			}
		}
	}
	if m, ok := best(c.filter(func(m Model) bool { return strings.ToLower(m.ID) == lp })); ok {
		return m, true
	}
	return best(c.filter(func(m Model) bool {
		return strings.Contains(strings.ToLower(m.ID), lp) || strings.Contains(strings.ToLower(m.Name), lp)
	}))
}

func (c *Catalog) filter(f func(Model) bool) []Model {
	var out []Model
	for _, m := range c.Models {
		if f(m) {
			out = append(out, m)
		}
	}
	return out
}

// best breaks ties as the reference does: aliases over dated ids, the
// highest dated id, non-openrouter providers, then catalog order.
func best(ms []Model) (Model, bool) {
	if len(ms) == 0 {
		return Model{}, false
	}
	dated := func(id string) bool {
		i := strings.LastIndexByte(id, '-')
		return i >= 0 && len(id)-i-1 == 8 && strings.Trim(id[i+1:], "0123456789") == ""
	}
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if da, db := dated(a.ID), dated(b.ID); da != db {
			return !da
		} else if da && db && a.ID != b.ID {
			return a.ID > b.ID
		}
		if oa, ob := a.Provider == "openrouter", b.Provider == "openrouter"; oa != ob {
			return !oa
		}
		return false
	})
	return ms[0], true
}

func (c *Catalog) suggest(p string) string {
	type cand struct {
		m Model
		d int
	}
	var cs []cand
	lp := strings.ToLower(p)
	for _, m := range c.Models {
		d := editdist.Strings(lp, strings.ToLower(m.ID))
		if d2 := editdist.Strings(lp, strings.ToLower(m.Ref())); d2 < d {
			d = d2
		}
		cs = append(cs, cand{m, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		if cs[i].d <= len(p)/2+2 {
			out = append(out, cs[i].m.Ref())
		}
	}
	if len(out) == 0 && len(lp) >= 4 {
		// A misspelt part of a name ("sonet"): the models with a part
		// one edit away (two for long words), best first.
		var ms []Model
		for _, m := range c.Models {
			if nearPart(lp, strings.ToLower(m.ID)) || nearPart(lp, strings.ToLower(m.Name)) {
				ms = append(ms, m)
			}
		}
		for len(out) < 3 {
			m, ok := best(ms)
			if !ok {
				break
			}
			out = append(out, m.Ref())
			ms = slices.DeleteFunc(ms, func(x Model) bool { return x.Ref() == m.Ref() })
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(out, ", ") + "?"
}

// nearPart reports whether s has a contiguous part within one edit of p
// (two when p is 8 or more letters): approximate substring matching.
func nearPart(p, s string) bool {
	limit := 1
	if len(p) >= 8 {
		limit = 2
	}
	return slices.Min(editdist.Row([]rune(p), []rune(s), true)) <= limit
}

// Key says where a model's API key comes from.
type Key struct {
	Value   string // the key, when known without running anything
	Command string // a shell command whose trimmed stdout is the key (!cmd)
	Source  string // where it came from, for messages
	None    bool   // the provider needs no key
	// Login names the stored login that gives the key (and the base URL)
	// when the call is made: "github-copilot".
	Login string
}

// Given: the key is there before any call is made (neither keyless nor
// from a login): the models to pick by default and to cycle through.
func (k Key) Given() bool { return !k.None && k.Login == "" }

// ResolveKey finds a model's key: the override (--api-key), then the
// provider's environment variables, then the models.toml apiKey (an
// environment variable name, else a literal; "!cmd" runs a command). A
// missing key is an error that says which variable to set.
func (c *Catalog) ResolveKey(m Model, override string, getenv func(string) string) (Key, error) {
	if override != "" {
		return Key{Value: override, Source: "--api-key"}, nil
	}
	p := c.Providers[m.Provider]
	if p == nil {
		p = &ProviderConfig{}
	}
	for _, env := range p.EnvKeys {
		if v := getenv(env); v != "" {
			return Key{Value: v, Source: env}, nil
		}
	}
	if k := p.APIKey; k != "" {
		if strings.HasPrefix(k, "!") {
			return Key{Command: strings.TrimPrefix(k, "!"), Source: "models.toml apiKey command"}, nil
		}
		if v := getenv(k); v != "" {
			return Key{Value: v, Source: k}, nil
		}
		if !looksLikeEnvName(k) {
			return Key{Value: k, Source: "models.toml apiKey"}, nil
		}
	}
	if p.Auth == "none" {
		return Key{Value: "N/A", None: true, Source: "keyless provider"}, nil
	}
	if p.Auth == "github-copilot" {
		return Key{Login: p.Auth, Source: "agent-chat --login " + p.Auth}, nil
	}
	vars := append([]string(nil), p.EnvKeys...)
	if p.APIKey != "" && looksLikeEnvName(p.APIKey) {
		vars = append(vars, p.APIKey)
	}
	if len(vars) == 0 {
		return Key{}, fmt.Errorf("no API key for provider %s: set apiKey in models.toml or pass --api-key", m.Provider)
	}
	return Key{}, fmt.Errorf("no API key for %s: set %s (or pass --api-key)", m.Ref(), strings.Join(vars, " or "))
}

func looksLikeEnvName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Default is the model used when none is named: each provider's default in
// declaration order, first one with a key (keyed reports that).
func (c *Catalog) Default(keyed func(Model) bool) (Model, bool) {
	for _, name := range c.Order {
		p := c.Providers[name]
		for _, m := range c.Models {
			if m.Provider == name && m.ID == p.Default && keyed(m) {
				return m, true
			}
		}
	}
	for _, m := range c.Models {
		if keyed(m) {
			return m, true
		}
	}
	return Model{}, false
}

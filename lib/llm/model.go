package llm

import (
	"strings"

	"github.com/agentutils/agentutils/lib/config"
)

// Model describes one model of the catalog (pi's Model descriptor).
type Model struct {
	ID                     string            `json:"id" toml:"id"`
	Name                   string            `json:"name,omitempty" toml:"name"`
	API                    string            `json:"api" toml:"api"`
	Provider               string            `json:"provider" toml:"-"`
	BaseURL                string            `json:"baseUrl" toml:"baseUrl"`
	Reasoning              bool              `json:"reasoning" toml:"reasoning"`
	Input                  []string          `json:"input" toml:"input"`
	Cost                   Prices            `json:"cost" toml:"cost"`
	ContextWindow          int               `json:"contextWindow" toml:"contextWindow"`
	MaxTokens              int               `json:"maxTokens" toml:"maxTokens"`
	Headers                map[string]string `json:"headers,omitempty" toml:"headers"`
	Compat                 *Compat           `json:"compat,omitempty" toml:"compat"`
	ContextPromotionTarget string            `json:"contextPromotionTarget,omitempty" toml:"contextPromotionTarget"`
}

// Prices are USD per million tokens.
type Prices struct {
	Input      float64 `json:"input" toml:"input"`
	Output     float64 `json:"output" toml:"output"`
	CacheRead  float64 `json:"cacheRead" toml:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite" toml:"cacheWrite"`
}

// Compat holds the openai-completions quirks (§1.8.2); nil fields are
// detected from the provider and base URL.
type Compat struct {
	SupportsStore           *bool  `json:"supportsStore,omitempty" toml:"supportsStore"`
	SupportsDeveloperRole   *bool  `json:"supportsDeveloperRole,omitempty" toml:"supportsDeveloperRole"`
	SupportsReasoningEffort *bool  `json:"supportsReasoningEffort,omitempty" toml:"supportsReasoningEffort"`
	MaxTokensField          string `json:"maxTokensField,omitempty" toml:"maxTokensField"`
	// ThinkingFormat: openai (reasoning_effort = the level), zai and qwen
	// (thinking on or off), mistral (reasoning_effort "high" or "none").
	ThinkingFormat string `json:"thinkingFormat,omitempty" toml:"thinkingFormat"`
	// ReasoningReplay: "" sends reasoning back in the field it came in;
	// "toolCalls" (DeepSeek) sends reasoning_content only on assistant
	// messages that call tools, and there always.
	ReasoningReplay string `json:"reasoningReplay,omitempty" toml:"reasoningReplay"`
}

// Ref is "provider/id".
func (m Model) Ref() string { return m.Provider + "/" + m.ID }

// Images reports whether the model accepts image input.
func (m Model) Images() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// CostOf prices a usage: model price per million × tokens, per field.
func (m Model) CostOf(u Usage) Cost {
	c := Cost{
		Input:      m.Cost.Input / 1e6 * float64(u.Input),
		Output:     m.Cost.Output / 1e6 * float64(u.Output),
		CacheRead:  m.Cost.CacheRead / 1e6 * float64(u.CacheRead),
		CacheWrite: m.Cost.CacheWrite / 1e6 * float64(u.CacheWrite),
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite
	return c
}

// SupportsXhigh is the reference's rule for the xhigh thinking level.
func (m Model) SupportsXhigh() bool {
	return m.API == AnthropicMessages || strings.Contains(m.ID, "gpt-5.2") ||
		strings.Contains(m.ID, "gpt-5.3") || strings.Contains(m.ID, "gpt-5.1-codex-max")
}

// Thinking levels, weakest first (config.toml's defaultThinkingLevel checks
// the same list; it lives in lib/config so that agent-tool, which reads
// config.toml, does not link the model catalog).
var ThinkingLevels = config.ThinkingLevels

// ClampThinking maps a requested level to one the model supports: off for a
// model without reasoning; xhigh becomes high where unsupported.
func (m Model) ClampThinking(level string) string {
	if level == "" || !m.Reasoning {
		return "off"
	}
	if level == "xhigh" && !m.SupportsXhigh() {
		return "high"
	}
	for _, l := range ThinkingLevels {
		if l == level {
			return level
		}
	}
	return "off"
}

// thinkingBudget is the token budget per level (the reference's settings
// defaults, which override the provider tables; xhigh from the table).
func thinkingBudget(level string) int {
	switch level {
	case "minimal":
		return 1024
	case "low":
		return 2048
	case "medium":
		return 8192
	case "high":
		return 16384
	case "xhigh":
		return 32768
	}
	return 0
}

// maxTokens is the output cap of a call: the caller's, else min(model, 32000).
func maxTokens(m Model, o Options) int {
	if o.MaxTokens > 0 {
		return o.MaxTokens
	}
	n := m.MaxTokens
	if n <= 0 || n > 32000 {
		n = 32000
	}
	return n
}

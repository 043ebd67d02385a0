package llm

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/redact"
)

// Secrets hides secret values: outbound text carries a placeholder instead
// of each value, tool output is hidden as it comes in, and what the model
// writes keeps its placeholders, so no secret reaches an event, a session
// file, an export or a cassette. Reveal restores the values only in what a
// tool is given to run.
type Secrets struct {
	vals []string // longest first, so a secret that contains another wins
	hide *strings.Replacer
	show *strings.Replacer
}

// MinSecretLen is the shortest value treated as a secret (shorter ones
// would replace ordinary words).
const MinSecretLen = redact.MinLen

// NewSecrets builds the replacer pair for values (short and duplicate ones
// are ignored).
func NewSecrets(values []string) *Secrets {
	seen := map[string]bool{}
	s := &Secrets{}
	for _, v := range values {
		if len(v) >= MinSecretLen && !seen[v] {
			seen[v] = true
			s.vals = append(s.vals, v)
		}
	}
	sort.SliceStable(s.vals, func(i, j int) bool { return len(s.vals[i]) > len(s.vals[j]) })
	var h, r []string
	for i, v := range s.vals {
		p := placeholder(i)
		h = append(h, v, p)
		r = append(r, p, v)
	}
	s.hide, s.show = strings.NewReplacer(h...), strings.NewReplacer(r...)
	return s
}

func placeholder(i int) string { return fmt.Sprintf("«secret-%d»", i+1) }

// Hide returns a copy of c with every secret replaced by its placeholder.
func (s *Secrets) Hide(c Context) Context {
	if s == nil || len(s.vals) == 0 {
		return c
	}
	out := c
	out.SystemPrompt = s.hide.Replace(c.SystemPrompt)
	out.Messages = make([]Message, len(c.Messages))
	for i, m := range c.Messages {
		out.Messages[i] = s.message(m, s.hide, false)
	}
	out.hide = s // History is hidden as it is decoded (Context.Each)
	return out
}

// message replaces in m's text; in place, in the content array m came
// with, when inPlace (a History message just decoded: Context.each).
func (s *Secrets) message(m Message, r *strings.Replacer, inPlace bool) Message {
	m.Content = s.content(m.Content, r, inPlace)
	m.ErrorMessage = r.Replace(m.ErrorMessage)
	return m
}

// HideMessage returns a copy of m with every secret replaced by its
// placeholder (a prompt as it is stored and shown).
func (s *Secrets) HideMessage(m Message) Message {
	if s == nil || len(s.vals) == 0 {
		return m
	}
	return s.message(m, s.hide, false)
}

// HideText replaces every secret in text with its placeholder.
func (s *Secrets) HideText(text string) string {
	if s == nil || len(s.vals) == 0 {
		return text
	}
	return s.hide.Replace(text)
}

// HideJSON is HideText on JSON text (a secret with characters JSON
// escapes is matched escaped only).
func (s *Secrets) HideJSON(raw json.RawMessage) json.RawMessage {
	if s == nil || len(s.vals) == 0 || len(raw) == 0 {
		return raw
	}
	return json.RawMessage(s.hide.Replace(string(raw)))
}

// Seal keeps the placeholders of values in what Reveal returns, so no
// tool is given them (the provider's key: the tools never hold it). It
// returns s.
func (s *Secrets) Seal(values ...string) *Secrets {
	if s == nil || len(s.vals) == 0 {
		return s
	}
	var r []string
	for i, v := range s.vals {
		if !slices.Contains(values, v) {
			r = append(r, placeholder(i), v)
		}
	}
	s.show = strings.NewReplacer(r...)
	return s
}

// Reveal restores the secrets in a text the model wrote (a tool's
// arguments, as the tool is given them).
func (s *Secrets) Reveal(text string) string {
	if s == nil || len(s.vals) == 0 {
		return text
	}
	return s.show.Replace(text)
}

func (s *Secrets) content(cs []Content, r *strings.Replacer, inPlace bool) []Content {
	out := cs
	if !inPlace {
		out = make([]Content, len(cs))
	}
	for i, c := range cs {
		c.Text = r.Replace(c.Text)
		c.Thinking = r.Replace(c.Thinking)
		if len(c.Arguments) > 0 {
			// Placeholders and secrets are plain characters in JSON strings;
			// a secret with characters JSON escapes is matched escaped.
			c.Arguments = json.RawMessage(r.Replace(string(c.Arguments)))
		}
		out[i] = c
	}
	return out
}

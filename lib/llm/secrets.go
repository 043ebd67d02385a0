package llm

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Secrets hides secret values from a model: outbound text carries a
// placeholder instead of each value, and the placeholders the model writes
// back are restored before anyone sees them (tools get the real value).
type Secrets struct {
	vals []string // longest first, so a secret that contains another wins
	hide *strings.Replacer
	show *strings.Replacer
}

// MinSecretLen is the shortest value treated as a secret (shorter ones
// would replace ordinary words).
const MinSecretLen = 8

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

// Reveal restores the secrets in a text the model wrote.
func (s *Secrets) Reveal(text string) string {
	if s == nil || len(s.vals) == 0 {
		return text
	}
	return s.show.Replace(text)
}

// RevealMessage restores the secrets in a message from the model.
func (s *Secrets) RevealMessage(m Message) Message {
	if s == nil || len(s.vals) == 0 {
		return m
	}
	return s.message(m, s.show, false)
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

package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSecretsRoundTrip(t *testing.T) {
	s := NewSecrets([]string{"sk-live-1234567890", "short", "sk-live-1234567890"})
	c := Context{SystemPrompt: "key sk-live-1234567890", Messages: []Message{
		{Role: "user", Content: []Content{TextBlock("use sk-live-1234567890 and short")}},
		{Role: "assistant", Content: []Content{ToolCallBlock("t", "bash", json.RawMessage(`{"command":"curl -H sk-live-1234567890"}`))}},
	}}
	h := s.Hide(c)
	b, _ := json.Marshal(h.Messages)
	if strings.Contains(h.SystemPrompt+string(b), "sk-live") {
		t.Fatalf("secret left in %s %s", h.SystemPrompt, b)
	}
	if !strings.Contains(string(b), "short") {
		t.Error("values under 8 characters are not secrets")
	}
	if c.Messages[0].Content[0].Text != "use sk-live-1234567890 and short" {
		t.Error("Hide changed its input")
	}
	// History is hidden as it is decoded, and keeps its bytes.
	raw := json.RawMessage(`{"role":"user","content":[{"type":"text","text":"old sk-live-1234567890"}],"timestamp":1}`)
	hh := s.Hide(Context{History: []json.RawMessage{raw}})
	var seen []string
	hh.Each(func(m Message) { seen = append(seen, m.Text()) })
	if len(seen) != 1 || seen[0] != "old «secret-1»" || !strings.Contains(string(hh.History[0]), "sk-live") {
		t.Errorf("hidden History: %q (bytes %s)", seen, hh.History[0])
	}
	if got := s.Reveal(`{"k":"«secret-1»"}`); got != `{"k":"sk-live-1234567890"}` {
		t.Errorf("Reveal = %s", got)
	}
	if got := s.HideText("env: K=sk-live-1234567890"); got != "env: K=«secret-1»" {
		t.Errorf("HideText = %s", got)
	}
	if got := s.HideJSON(json.RawMessage(`{"o":"sk-live-1234567890"}`)); string(got) != `{"o":"«secret-1»"}` {
		t.Errorf("HideJSON = %s", got)
	}
}

// The provider's key is sealed: a tool is never given it, even when the
// model writes its placeholder.
func TestSecretsSeal(t *testing.T) {
	s := NewSecrets([]string{"sk-provider-key-123", "tok-user-typed-4567890"}).Seal("sk-provider-key-123", "")
	for in, want := range map[string]string{
		"«secret-1»": "tok-user-typed-4567890", // a value the user typed (longest first)
		"«secret-2»": "«secret-2»",             // the key
	} {
		if got := s.Reveal(in); got != want {
			t.Errorf("Reveal(%s) = %s, want %s", in, got, want)
		}
	}
	if got := s.HideText("sk-provider-key-123"); got != "«secret-2»" {
		t.Errorf("a sealed value is still hidden: %s", got)
	}
	var nilS *Secrets
	if nilS.Seal("x") != nil {
		t.Error("Seal on nil")
	}
}

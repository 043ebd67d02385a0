package fakellm

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/llm"
)

// An answer paced event by event is the script, byte for byte, and the
// first flush is marked once the burst is out; a script whose last event
// lacks its blank line is sent whole too.
func TestPacedAnswerIsTheScript(t *testing.T) {
	for _, body := range []string{
		"event: a\ndata: 1\n\nevent: b\ndata: 2\n\nevent: c\ndata: 3\n\n",
		"event: a\ndata: 1\n\nevent: b\ndata: 2\n\ntail",
		"one event, no blank line",
	} {
		for _, burst := range []int{0, 1, 2, 5} {
			s := New(Step{Body: []byte(body), EventDelay: time.Millisecond, Burst: burst})
			var trace bytes.Buffer
			s.Trace = &trace
			resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			s.Close()
			if string(got) != body {
				t.Errorf("burst %d: got %q, want %q", burst, got, body)
			}
			if n := strings.Count(trace.String(), "first "); n != 1 {
				t.Errorf("burst %d: %d first marks in %q, want 1", burst, n, trace.String())
			}
		}
	}
}

// ModelsTOML is a catalog lib/llm reads: the provider at the URL, the
// model with the window asked for.
func TestModelsTOML(t *testing.T) {
	cat, err := llm.LoadCatalog([]byte(ModelsTOML("http://127.0.0.1:1", "fake", "anthropic-messages", "fake-model", 200000)), "models.toml", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := cat.Resolve("fake/fake-model")
	if err != nil {
		t.Fatal(err)
	}
	if m.ContextWindow != 200000 || m.BaseURL != "http://127.0.0.1:1" {
		t.Errorf("model %+v", m)
	}
}

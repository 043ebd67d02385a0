package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/lib/llm"
)

// A recorded call replays to the same message, and the cassette it wrote
// follows formats/cassette and holds no secret.
func TestRecordReplay(t *testing.T) {
	srv := fakellm.New(fakellm.Step{SSE: "../../testdata/sse/anthropic/tool_use.sse"})
	defer srv.Close()
	m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 1000}
	ctx := llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("my token is sk-secret-value-1234")}, Timestamp: 1}}}
	opts := llm.Options{APIKey: "sk-secret-value-1234"}
	var cassette bytes.Buffer
	now := func() time.Time { return time.Unix(0, 0) }
	rec := &Client{HTTP: srv.Client(), Now: now, Record: NewRecorder(&cassette), Secrets: []string{opts.APIKey}}
	want, err := rec.Stream(context.Background(), m, ctx, opts, func(llm.Event) {})
	if err != nil || want.StopReason != llm.StopToolUse {
		t.Fatalf("record: %+v %v", want, err)
	}
	if strings.Contains(cassette.String(), "sk-secret") {
		t.Errorf("the cassette holds the secret:\n%s", cassette.String())
	}
	sch, err := jsonschema.NewCompiler().Compile(mustAbs(t, "../../formats/cassette/schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(cassette.Bytes()))
	if err := sch.Validate(doc); err != nil {
		t.Errorf("recorded cassette does not follow formats/cassette: %v", err)
	}
	c, err := ReadCassette("c.jsonl", cassette.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	play := &Client{Now: now, Replay: c}
	got, err := play.Stream(context.Background(), m, ctx, llm.Options{}, func(llm.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if !bytes.Equal(a, b) {
		t.Errorf("replayed message differs:\n%s\n%s", a, b)
	}
	if _, err := play.Stream(context.Background(), m, ctx, llm.Options{}, func(llm.Event) {}); err == nil || !strings.Contains(err.Error(), "replay mismatch at request 2") {
		t.Errorf("one request too many: %v", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A long history's body is encoded while it is sent, in one pass: the
// server gets all of it, without a Content-Length (chunked), and the same
// bytes as the codec's own encoding, whether the history came as messages
// or as message JSON (llm.Context.History).
func TestLargeBodyStreamed(t *testing.T) {
	srv := fakellm.New(fakellm.Step{SSE: "../../testdata/sse/openai/text.sse"}, fakellm.Step{SSE: "../../testdata/sse/openai/text.sse"})
	defer srv.Close()
	m := llm.Model{ID: "m", API: llm.OpenAICompletions, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 1 << 20}
	var msgs []llm.Message
	for i := 0; i < 300; i++ {
		msgs = append(msgs, llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(strings.Repeat("line <&> é\n", 100))}, Timestamp: int64(i)})
	}
	lc := llm.Context{SystemPrompt: "sys", Messages: msgs}
	var raws []json.RawMessage
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		raws = append(raws, b)
	}
	codec, _ := llm.CodecFor(m.API)
	req, _ := codec.Request(m, lc, llm.Options{})
	want := req.BodyBytes()
	if len(want) < streamAbove {
		t.Fatalf("body of %d bytes is too small for the streamed path", len(want))
	}
	for i, lc := range []llm.Context{lc, {SystemPrompt: "sys", History: raws}} {
		c := &Client{HTTP: srv.Client(), Now: time.Now}
		got, err := c.Stream(context.Background(), m, lc, llm.Options{}, func(llm.Event) {})
		if err != nil || got.StopReason != llm.StopStop {
			t.Fatalf("%+v %v", got, err)
		}
		r := srv.Requests()[i]
		if !bytes.Equal(r.Body, want) {
			t.Errorf("context %d: the server got %d bytes, the codec encodes %d", i, len(r.Body), len(want))
		}
		if cl := r.Header.Get("Content-Length"); cl != "" {
			t.Errorf("context %d: Content-Length %q on a streamed body", i, cl)
		}
	}
}

// A small body is encoded once and sent with its length.
func TestSmallBodyLength(t *testing.T) {
	srv := fakellm.New(fakellm.Step{SSE: "../../testdata/sse/openai/text.sse"})
	defer srv.Close()
	m := llm.Model{ID: "m", API: llm.OpenAICompletions, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 1 << 20}
	lc := llm.Context{SystemPrompt: "sys", Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("hi")}}}}
	c := &Client{HTTP: srv.Client(), Now: time.Now}
	if _, err := c.Stream(context.Background(), m, lc, llm.Options{}, func(llm.Event) {}); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if cl := r.Header.Get("Content-Length"); cl != strconv.Itoa(len(r.Body)) {
		t.Errorf("Content-Length %q, want %d", cl, len(r.Body))
	}
}

// A server that answers a streamed body with 411 Length Required gets the
// request again, with its length.
func TestLengthRequiredResent(t *testing.T) {
	srv := fakellm.New(fakellm.Step{Status: http.StatusLengthRequired, Body: []byte(`{"error":"length required"}`)},
		fakellm.Step{SSE: "../../testdata/sse/openai/text.sse"})
	defer srv.Close()
	m := llm.Model{ID: "m", API: llm.OpenAICompletions, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 1 << 20}
	lc := llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock(strings.Repeat("x", streamAbove))}}}}
	c := &Client{HTTP: srv.Client(), Now: time.Now}
	got, err := c.Stream(context.Background(), m, lc, llm.Options{}, func(llm.Event) {})
	if err != nil || got.StopReason != llm.StopStop {
		t.Fatalf("%+v %v", got, err)
	}
	rs := srv.Requests()
	if len(rs) != 2 || rs[0].Header.Get("Content-Length") != "" || rs[1].Header.Get("Content-Length") != strconv.Itoa(len(rs[1].Body)) || !bytes.Equal(rs[0].Body, rs[1].Body) {
		t.Fatalf("want a streamed request, then the same body with its length; got %d requests", len(rs))
	}
}

// UseCassettes opens the files at abs(name): a recording is created 0600,
// a cassette that does not read is an error naming it as given.
func TestUseCassettes(t *testing.T) {
	dir := t.TempDir()
	abs := func(f string) string { return filepath.Join(dir, f) }
	c := &Client{}
	done, err := c.UseCassettes("rec.jsonl", "", abs)
	if err != nil || c.Record == nil || c.Replay != nil {
		t.Fatalf("record: %v %+v", err, c)
	}
	done()
	if fi, err := os.Stat(abs("rec.jsonl")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("recording file: %v %v", fi, err)
	}
	if _, err := (&Client{}).UseCassettes("", "missing.jsonl", abs); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing cassette: %v", err)
	}
	os.WriteFile(abs("bad.jsonl"), []byte("not json\n"), 0o644)
	if _, err := (&Client{}).UseCassettes("", "bad.jsonl", abs); err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Errorf("bad cassette: %v", err)
	}
}

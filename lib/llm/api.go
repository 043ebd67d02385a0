package llm

import (
	"fmt"
	"strings"
)

// The wire APIs, one entry each in wireAPIs: a model's api names one. An
// entry holds how the key goes on a request (Auth), the headers that can
// carry a credential (a cassette records them redacted) and its codec: the
// request encoder and the stream decoder, in the API's own file
// (anthropic.go, completions.go, responses.go, google.go). Adding a wire
// API is an entry here and its file; nothing else names the APIs.

// Request is an HTTP request a codec built; the shell sends it.
type Request struct {
	Method string
	URL    string
	Header map[string]string
	// Body is the JSON body when it was built as bytes; codecs leave it nil
	// and keep the value tree, which WriteBody encodes on demand.
	Body    []byte
	payload any
}

// Codec builds requests and decoders for one wire API.
type Codec interface {
	Request(m Model, c Context, o Options) (Request, error)
	Decoder(m Model, now int64) Decoder
}

// WireAPI is one wire API. As a Codec, its requests carry the key.
type WireAPI struct {
	Name string
	// Auth is the header that carries key and its value ("" sends none).
	Auth func(key string) (header, value string)
	// Credentials are the headers (lower case) that can carry a key or a
	// token on this API, the model's own headers included.
	Credentials []string
	codec       Codec
}

var wireAPIs = []WireAPI{
	{Name: AnthropicMessages, Auth: anthropicAuth, Credentials: []string{"x-api-key", "authorization"}, codec: anthropic{}},
	{Name: OpenAICompletions, Auth: bearerAuth, Credentials: []string{"authorization", "api-key"}, codec: completions{}},
	{Name: OpenAIResponses, Auth: bearerAuth, Credentials: []string{"authorization", "api-key"}, codec: responses{}},
	{Name: GoogleGenerativeAI, Auth: googleAuth, Credentials: []string{"x-goog-api-key"}, codec: google{}},
}

// CodecFor returns the wire API of an api id.
func CodecFor(api string) (Codec, error) {
	for _, a := range wireAPIs {
		if a.Name == api {
			return a, nil
		}
	}
	var names []string
	for _, a := range wireAPIs {
		names = append(names, a.Name)
	}
	return nil, fmt.Errorf("unsupported api %q (supported: %s)", api, strings.Join(names, ", "))
}

// Request is the codec's request with the key in the API's header, unless
// the model's own headers set that header.
func (a WireAPI) Request(m Model, c Context, o Options) (Request, error) {
	req, err := a.codec.Request(m, c, o)
	if err != nil {
		return req, err
	}
	if name, v := a.Auth(o.APIKey); v != "" {
		if _, set := req.Header[name]; !set {
			req.Header[name] = v
		}
	}
	return req, nil
}

// Decoder is the codec's decoder of one answer, held to the rule of every
// API: an answer with no content, no tool call and no error is not a
// success but an error that shows how the provider's stream ended.
func (a WireAPI) Decoder(m Model, now int64) Decoder {
	return &nonEmpty{Decoder: a.codec.Decoder(m, now)}
}

// nonEmpty turns an empty answer's done into an error.
type nonEmpty struct {
	Decoder
	last []byte // the last event's data
}

func (d *nonEmpty) Feed(ev SSE) []Event {
	d.last = ev.Data
	return d.check(d.Decoder.Feed(ev))
}

func (d *nonEmpty) End(err error) []Event { return d.check(d.Decoder.End(err)) }

func (d *nonEmpty) check(evs []Event) []Event {
	for i, e := range evs {
		if e.Type != "done" || e.Message == nil || !emptyAnswer(*e.Message) {
			continue
		}
		m := *e.Message
		end := string(d.last)
		if len(end) > 500 {
			end = end[:500] + "…"
		}
		m.StopReason = StopError
		m.ErrorMessage = fmt.Sprintf("the provider's answer held no text, no tool call and no error (stop reason %q; its last event: %s)", e.Reason, end)
		evs[i] = Event{Type: "error", Reason: StopError, Error: &m}
	}
	return evs
}

// emptyAnswer: m holds no text, no thinking text and no tool call (opaque
// reasoning state alone is nothing anyone can read or run).
func emptyAnswer(m Message) bool {
	for _, c := range m.Content {
		switch {
		case c.Type == "toolCall",
			c.Type == "text" && strings.TrimSpace(c.Text) != "",
			c.Type == "thinking" && strings.TrimSpace(c.Thinking) != "":
			return false
		}
	}
	return true
}

// IsCredential: a request header of that name (any case) can carry a
// credential on some wire API.
func IsCredential(header string) bool {
	header = strings.ToLower(header)
	for _, a := range wireAPIs {
		for _, h := range a.Credentials {
			if h == header {
				return true
			}
		}
	}
	return false
}

// anthropicAuth: an OAuth token (sk-ant-oat…) as a bearer, a key in x-api-key.
func anthropicAuth(key string) (string, string) {
	if strings.Contains(key, "sk-ant-oat") {
		return "authorization", "Bearer " + key
	}
	return "x-api-key", key
}

// bearerAuth: the key as a bearer ("" for none or keyless "N/A").
func bearerAuth(key string) (string, string) {
	if key == "" || key == "N/A" {
		return "authorization", ""
	}
	return "authorization", "Bearer " + key
}

func googleAuth(key string) (string, string) { return "x-goog-api-key", key }

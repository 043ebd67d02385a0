package main

import (
	"reflect"
	"unicode/utf8"

	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
)

// A run started ahead of its prompt (agent-chat … -- -) builds its first
// request while it waits, with a placeholder for the prompt's text, and
// keeps the encoded body cut around it (llm.BodyTemplate). When the prompt
// is read, its text is encoded into the hole and the request sent at once
// (provider.Client.Early); the run then starts as any other, and its first
// model call takes the answer when the request it builds is the one sent,
// byte for byte (else it sends its own). A prompt that is not one valid
// text (an image), hooks (a UserPromptSubmit hook may change or block the
// prompt), --control (input may steer the first turn), --continue and -m
// are left to the ordinary way.

// earlyPlaceholder stands for the prompt's text in the request built ahead.
const earlyPlaceholder = "agentutilsPromptPlaceholder9f3c2a7e51d0"

// earlyRequest is the first request built but for the prompt.
type earlyRequest struct {
	req     *provider.Prepared
	secrets *llm.Secrets
	// what the request was built from: the first call is the request
	// when it is built from the same (match)
	model  llm.Model
	lc     llm.Context
	opts   llm.Options
	prompt llm.Message // the prompt as the request holds it (send)
}

// prepareEarly builds the first request as drive will, with the
// placeholder for the prompt; nil when the run is not one to send early.
func (r *chatRun) prepareEarly(hooks bool) *earlyRequest {
	o := r.o
	if hooks || o.Control != "" || o.Continue || len(o.Messages) > 0 || len(o.Args) != 1 || o.Args[0] != "-" {
		return nil
	}
	e := &earlyRequest{secrets: llm.NewSecrets(r.secrets), model: r.model, opts: r.options()}
	l := loop.New(r.loopConfig())
	p := e.secrets.HideMessage(llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(earlyPlaceholder)}, Timestamp: r.env.Now().UnixMilli()})
	if l.Start(&p).Action != loop.CallModel {
		return nil
	}
	e.opts.Thinking = l.Thinking()
	e.lc = e.secrets.Hide(l.Context())
	if len(e.lc.Messages) != 1 {
		return nil
	}
	req, body, ok := provider.SmallRequest(r.model, e.lc, e.opts)
	if !ok {
		return nil
	}
	tmpl, ok := llm.CutBody(body, earlyPlaceholder)
	if !ok {
		return nil
	}
	if e.req = r.client.Prepare(req, tmpl, earlyPlaceholder); e.req == nil {
		return nil
	}
	return e
}

// send sends the request with the prompt's text (hidden as drive hides
// it) in the placeholder's place.
func (e *earlyRequest) send(r *chatRun, content []llm.Content) {
	if e == nil || len(content) != 1 || content[0].Type != "text" || !utf8.ValidString(content[0].Text) {
		return
	}
	m := e.secrets.HideMessage(llm.Message{Role: "user", Content: content})
	m = e.secrets.Hide(llm.Context{Messages: []llm.Message{m}}).Messages[0]
	if len(m.Content) != 1 || m.Content[0].Type != "text" {
		return
	}
	e.prompt = m
	r.client.Early(r.ctx, e.req, m.Content[0].Text, e.match)
}

// match: a call of model m with lc and o is the request sent early: the
// same model, options, system prompt, history and tools (the very
// values), and for messages the prompt alone.
func (e *earlyRequest) match(m llm.Model, lc llm.Context, o llm.Options) bool {
	if o != e.opts || !reflect.DeepEqual(m, e.model) ||
		lc.SystemPrompt != e.lc.SystemPrompt || !same(lc.History, e.lc.History) || !same(lc.Tools, e.lc.Tools) || len(lc.Messages) != 1 {
		return false
	}
	got := lc.Messages[0]
	got.Timestamp = e.prompt.Timestamp // not sent
	return reflect.DeepEqual(got, e.prompt)
}

// same: a and b are the same values (one slice, or both empty).
func same[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

package hooks

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
)

// maxBody is the most of an HTTP hook's answer read.
const maxBody = 1 << 20

// envRef is a $VAR or ${VAR} in an HTTP hook's header.
var envRef = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// Header is an HTTP hook's header value with its $VAR and ${VAR} filled
// in from env (NAME=VALUE, later entries winning) when allowed names
// them, else with nothing, as Claude Code does.
func Header(value string, allowed, env []string) string {
	return envRef.ReplaceAllStringFunc(value, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		name := m[1] + m[2]
		if !slices.Contains(allowed, name) {
			return ""
		}
		val := ""
		for _, kv := range env {
			if n, v, ok := strings.Cut(kv, "="); ok && n == name {
				val = v
			}
		}
		return val
	})
}

// post POSTs the input to an HTTP hook. A 2xx answer's body is read as a
// command's stdout on exit 0 (JSON: the hook's answer; text: context);
// another status, a failed connection or the timeout is an error that
// does not block (Claude Code's rule), unless on_error says block.
func post(ctx context.Context, h Hook, payload []byte, env []string) result {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(payload))
	if err != nil {
		return result{code: -1, err: err, soft: true}
	}
	req.Header.Set("Content-Type", "application/json")
	environ := append(os.Environ(), env...)
	for k, v := range h.Headers {
		req.Header.Set(k, Header(v, h.AllowedEnvVars, environ))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %s", h.Timeout)
		}
		return result{code: -1, err: err, soft: true}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return result{code: -1, err: err, soft: true}
	}
	if resp.StatusCode/100 != 2 {
		return result{code: -1, err: fmt.Errorf("HTTP %s: %s", resp.Status, firstLine(string(body))), soft: true}
	}
	return result{stdout: string(body), plain: true, soft: true}
}

// askModel runs a prompt or agent hook: the question, with the input in
// place of $ARGUMENTS (else after it), goes to the model (one call) or
// to a sub-agent, whose answer must be {"ok": true|false, "reason": …};
// ok false is the hook's block (its reason for the model), ok true no
// opinion. No model here, a failed call or an answer of another shape is
// an error that does not block.
func askModel(ctx context.Context, h Hook, payload []byte, o Opts) result {
	run, what := o.Ask, "prompt hooks need a model: only agent-chat and agent run them"
	if h.Type == TypeAgent {
		run, what = o.Agent, "agent hooks need a model: only agent-chat and agent run them"
	}
	if run == nil {
		return result{code: -1, err: fmt.Errorf("%s", what), soft: true}
	}
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	answer, err := run(ctx, h.Model, Question(h.Prompt, payload))
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %s", h.Timeout)
		}
		return result{code: -1, err: err, soft: true}
	}
	ok, reason, err := ParseOK(answer)
	if err != nil {
		return result{code: -1, err: err, soft: true}
	}
	if ok {
		return result{stdout: "{}", soft: true}
	}
	b, _ := json.Marshal(map[string]string{"decision": "block", "reason": cmp.Or(reason, "a "+h.Type+" hook said no")})
	return result{stdout: string(b), soft: true}
}

// QuestionSystem is the system prompt of a prompt hook's model call and
// the end of an agent hook's task: how to answer.
const QuestionSystem = `You evaluate a hook of a coding agent: a question about what the agent is doing, with the event's JSON. ` +
	`Answer with one JSON object and nothing else: {"ok": true} when the action may go on, ` +
	`or {"ok": false, "reason": "why, said to the agent"} when it may not.`

// Question is a prompt or agent hook's question: its prompt with the
// input JSON in place of $ARGUMENTS, or after it when it has none.
func Question(prompt string, payload []byte) string {
	if strings.Contains(prompt, "$ARGUMENTS") {
		return strings.ReplaceAll(prompt, "$ARGUMENTS", string(payload))
	}
	return prompt + "\n\n" + string(payload)
}

// ParseOK reads a model's {"ok": …, "reason": …} answer: the object may
// stand in a ```json fence or among words; the last one with "ok" counts.
func ParseOK(answer string) (ok bool, reason string, err error) {
	s := strings.TrimSpace(answer)
	for i := strings.LastIndex(s, "{"); i >= 0; i = strings.LastIndex(s[:i], "{") {
		var a struct {
			OK     *bool  `json:"ok"`
			Reason string `json:"reason"`
		}
		if json.NewDecoder(strings.NewReader(s[i:])).Decode(&a) == nil && a.OK != nil {
			return *a.OK, a.Reason, nil
		}
		if i == 0 {
			break
		}
	}
	return false, "", fmt.Errorf("the model's answer is not {\"ok\": true|false, \"reason\": …}: %s", firstLine(answer))
}

// startAsync starts an async command hook and does not wait for it: once
// it has run, what its JSON answer has for the model (systemMessage,
// additionalContext) goes to deliver; a failure is a warning.
func startAsync(ctx context.Context, h Hook, payload []byte, dir string, env []string, o Opts, warn func(string)) {
	ctx = context.WithoutCancel(ctx) // the event is over when it runs: it has its timeout
	deliver := o.Async
	if o.Pending != nil {
		o.Pending.Add(1)
	}
	go func() {
		if o.Pending != nil {
			defer o.Pending.Done()
		}
		code, stdout, stderr, err := run(ctx, h, payload, dir, env)
		switch {
		case err != nil:
			warn(fmt.Sprintf("async hook %s failed: %v", h.Name(), err))
			return
		case code != 0:
			warn(fmt.Sprintf("async hook %s failed (exit %d): %s", h.Name(), code, strings.TrimSpace(stderr)))
			return
		}
		text := asyncText(stdout)
		if text == "" {
			return
		}
		if deliver == nil {
			warn(fmt.Sprintf("async hook %s: %s", h.Name(), text))
			return
		}
		deliver(text)
	}()
}

// asyncText is what an async hook's answer has for the model: its
// systemMessage and additionalContext (Claude Code delivers those).
func asyncText(stdout string) string {
	var j verdictJSON
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &j) != nil {
		return ""
	}
	var parts []string
	for _, p := range []string{j.SystemMessage, j.AdditionalContext, j.HookSpecificOutput.AdditionalContext} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}

// ViaParent are prompt and agent hooks that a tool process hands to its
// parent (agent-chat holds the model's key): ask sends a request of kind
// hook_prompt or hook_agent (formats/tool-protocol) and waits for the
// answer, the model's text.
func ViaParent(ask func(ctx context.Context, kind string, payload []byte) ([]byte, bool)) (prompt, agent func(ctx context.Context, model, prompt string) (string, error)) {
	via := func(kind string) func(ctx context.Context, model, prompt string) (string, error) {
		return func(ctx context.Context, model, prompt string) (string, error) {
			b, _ := json.Marshal(event.HookQuestion{Model: model, Prompt: prompt})
			v, ok := ask(ctx, kind, b)
			if !ok {
				return "", fmt.Errorf("the parent process does not answer %s requests", kind)
			}
			var a event.HookAnswer
			if err := json.Unmarshal(v, &a); err != nil {
				return "", fmt.Errorf("the parent's answer to %s: %v", kind, err)
			}
			if a.Error != "" {
				return "", errors.New(a.Error)
			}
			return a.Text, nil
		}
	}
	return via(event.HookPromptKind), via(event.HookAgentKind)
}

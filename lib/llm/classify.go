package llm

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The patterns are compiled on first use: every command links lib/llm, and
// most never classify an error (agent-commit lint starts in a few ms).
var overflowPatterns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)` + strings.Join([]string{
		`prompt is too long`,
		`input is too long for requested model`,
		`exceeds the context window`,
		`input token count.*exceeds the maximum`,
		`maximum prompt length is \d+`,
		`reduce the length of the messages`,
		`maximum context length is \d+ tokens`,
		`exceeds the limit of \d+`,
		`exceeds the available context size`,
		`requested tokens?.*exceed.*context (window|length|size)`,
		`context (window|length|size).*(exceeded|overflow|too small)`,
		`(prompt|input).*(too long|too large).*(context|n_ctx)`,
		`requested tokens?.*(exceeds?|greater than).*(n_ctx|context)`,
		`greater than the context length`,
		`context window exceeds limit`,
		`exceeded model token limit`,
		`context[_ ]length[_ ]exceeded`,
		`too many tokens`,
		`token limit exceeded`,
		`request_too_large`,
		`^4(00|13)\s*(status code)?\s*\(no body\)`,
	}, "|"))
})

// IsOverflow reports a context overflow of an assistant message: an error
// whose text matches the reference's patterns, or usage larger than the
// window (a provider that truncates silently).
func IsOverflow(m Message, contextWindow int) bool {
	if m.Role != "assistant" {
		return false
	}
	if m.StopReason == StopError && overflowPatterns().MatchString(m.ErrorMessage) {
		return true
	}
	return m.Usage != nil && contextWindow > 0 && m.StopReason != StopError &&
		m.Usage.Input+m.Usage.CacheRead > contextWindow
}

var retryPatterns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)overloaded|rate.?limit|usage.?limit|too many requests|\b(429|500|502|503|504|529)\b|service.?unavailable|server error|internal error|connection.?(error|reset|refused)|unable to connect|fetch failed|retry delay|socket hang up|timed? ?out|stream ended unexpectedly|terminated|retry your request`)
})

// Out of money, not out of breath: a 429 that says so is not retried.
// ("You exceeded your current quota" alone is no sign: Gemini says it of
// its per-minute limits too.)
var quotaPatterns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)insufficient_quota|credit balance is too low|insufficient (credits|balance)|payment required`)
})

// IsRetryable reports a failed assistant message worth sending again: an
// error (not an overflow, not an exhausted quota or balance) whose text
// names a transient cause. Bare status numbers count only as whole words
// ("5000 tokens" is not a 500).
func IsRetryable(m Message, contextWindow int) bool {
	return m.Role == "assistant" && m.StopReason == StopError && m.ErrorMessage != "" &&
		!IsOverflow(m, contextWindow) && retryPatterns().MatchString(m.ErrorMessage) &&
		!quotaPatterns().MatchString(m.ErrorMessage)
}

var retryDelay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"retryDelay"\s*:\s*"([0-9.]+s)"`)
})

// RetryDelay reads the delay an error body asks for: Gemini's
// google.rpc.RetryInfo ("retryDelay": "17s") in a 429's details.
func RetryDelay(body []byte) time.Duration {
	if m := retryDelay().FindSubmatch(body); m != nil {
		if d, err := time.ParseDuration(string(m[1])); err == nil && d > 0 {
			return d
		}
	}
	return 0
}

var retryHint = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`retry-after-ms=(\d+)`) })

// RetryAfter reads the delay a response asks for from its headers
// (retry-after in seconds or as an HTTP date, x-ratelimit-reset-ms,
// x-ratelimit-reset in seconds or as an epoch); the largest wins. now is
// used for dates and epochs.
func RetryAfter(h func(string) string, now time.Time) time.Duration {
	var best time.Duration
	take := func(d time.Duration) {
		if d > best {
			best = d
		}
	}
	if v := strings.TrimSpace(h("retry-after")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			take(time.Duration(s * float64(time.Second)))
		} else if t, err := time.Parse(time.RFC1123, v); err == nil {
			take(t.Sub(now))
		}
	}
	if v := strings.TrimSpace(h("x-ratelimit-reset-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			take(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	if v := strings.TrimSpace(h("x-ratelimit-reset")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			switch {
			case s > 1e12: // epoch ms
				take(time.UnixMilli(int64(s)).Sub(now))
			case s > 1e9: // epoch s
				take(time.Unix(int64(s), 0).Sub(now))
			default:
				take(time.Duration(s * float64(time.Second)))
			}
		}
	}
	return best
}

// RetryHint reads a " retry-after-ms=N" hint from an error message.
func RetryHint(msg string) time.Duration {
	if m := retryHint().FindStringSubmatch(msg); m != nil {
		ms, _ := strconv.Atoi(m[1])
		return time.Duration(ms) * time.Millisecond
	}
	return 0
}

// HTTPError formats a failed response as "<status> <compact body>", the
// form the classifiers' patterns expect.
//
// A JSON error body as the providers document it (Anthropic's
// {"type":"error","error":{"type","message"}}, OpenAI's and OpenRouter's
// {"error":{"message","type","code"}}, Gemini's {"error":{"code","message",
// "status"}}, possibly in a one-element array, Mistral's top-level
// {"message","type"}) is shown as "<status> <type/code/status>: <message>"
// instead of raw JSON: the words a person reads and the patterns match.
func HTTPError(status int, body []byte, retryAfter time.Duration) string {
	if r := readableError(body); r != "" {
		body = []byte(r)
	}
	b := strings.Join(strings.Fields(string(body)), " ")
	if len(b) > 2000 {
		b = b[:2000] + "…"
	}
	if b == "" {
		b = "(no body)"
	}
	s := strconv.Itoa(status) + " " + b
	if retryAfter > 0 {
		s += " retry-after-ms=" + strconv.FormatInt(retryAfter.Milliseconds(), 10)
	}
	return s
}

// readableError is "kind: message" from a JSON error body, or "" when the
// body is not one.
func readableError(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	if a, ok := v.([]any); ok && len(a) == 1 {
		v = a[0]
	}
	top, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	e := top
	if inner, ok := top["error"].(map[string]any); ok {
		e = inner
	}
	msg, _ := e["message"].(string)
	if strings.TrimSpace(msg) == "" {
		return ""
	}
	var kinds []string
	for _, k := range []string{"type", "code", "status"} {
		var s string
		switch x := e[k].(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		}
		if s != "" && !slices.Contains(kinds, s) {
			kinds = append(kinds, s)
		}
	}
	if len(kinds) == 0 {
		return msg
	}
	return strings.Join(kinds, "/") + ": " + msg
}

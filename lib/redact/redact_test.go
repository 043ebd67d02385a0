package redact

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "anthropic_oauth_token": true, "AWS_SECRET_ACCESS_KEY": true,
		"DB_PASSWORD": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "npm_config__authToken": true,
		"PATH": false, "HOME": false, "GOCACHE": false, "AGENT_SHELL_ENV": false, "PASS": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEnviron(t *testing.T) {
	env := []string{
		"PATH=/usr/bin", "OPENAI_API_KEY=sk-abcdefghijklmnop", "HOME=/home/u", "GITHUB_TOKEN=ghp_123456789",
		"MY_LLM=llm-key-value-1234", "SHORT=abc", "EMPTY=", "NOEQUALS", "db_password=hunter2hunter2",
	}
	for _, c := range []struct {
		name         string
		keep, values []string
		want         []string
	}{
		{"names", nil, nil, []string{"PATH=/usr/bin", "HOME=/home/u", "MY_LLM=llm-key-value-1234", "SHORT=abc", "EMPTY=", "NOEQUALS"}},
		{"a key's value under any name", nil, []string{"llm-key-value-1234", "abc"},
			[]string{"PATH=/usr/bin", "HOME=/home/u", "SHORT=abc", "EMPTY=", "NOEQUALS"}},
		{"kept by name", []string{"GITHUB_TOKEN", "MY_LLM"}, []string{"llm-key-value-1234"},
			[]string{"PATH=/usr/bin", "HOME=/home/u", "GITHUB_TOKEN=ghp_123456789", "MY_LLM=llm-key-value-1234", "SHORT=abc", "EMPTY=", "NOEQUALS"}},
		{"keep is exact", []string{"github_token"}, nil, []string{"PATH=/usr/bin", "HOME=/home/u", "MY_LLM=llm-key-value-1234", "SHORT=abc", "EMPTY=", "NOEQUALS"}},
	} {
		if d := cmp.Diff(c.want, Environ(env, c.keep, c.values)); d != "" {
			t.Errorf("%s: -want +got\n%s", c.name, d)
		}
	}
}

func TestCheckNames(t *testing.T) {
	if err := CheckNames([]string{"GITHUB_TOKEN", "_x1", "a"}); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "1A", "A-B", "A=B", "A B", "Ä"} {
		if err := CheckNames([]string{"OK", bad}); err == nil {
			t.Errorf("CheckNames(%q) = nil", bad)
		}
	}
}

func TestMask(t *testing.T) {
	key := "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
	other := "tok-0123456789abcdef"
	for _, c := range []struct{ in, want string }{
		{"Incorrect API key provided: " + key + ".", "Incorrect API key provided: [REDACTED]."},
		{"Authorization: Bearer " + key, "Authorization: Bearer [REDACTED]"},
		{`{"error":{"message":"Incorrect API key provided: sk-proj-********************************Xy4z. You can find your API key at https://platform.openai.com/account/api-keys."}}`,
			`{"error":{"message":"Incorrect API key provided: [REDACTED]. You can find your API key at https://platform.openai.com/account/api-keys."}}`},
		{"key " + key[:14] + "… rejected", "key [REDACTED]… rejected"},
		{"key sk-...Xy4z rejected", "key sk-[REDACTED] rejected"},
		{"key sk-…………Xy4z rejected", "key sk-[REDACTED] rejected"},
		{"middle " + key[10:30] + " part", "middle [REDACTED] part"},
		{"twice " + key + key + " and " + other, "twice [REDACTED] and [REDACTED]"},
		{"nothing secret: sk-proj (a prefix alone), Xy4z (a tail alone), ***Xy4", "nothing secret: sk-proj (a prefix alone), Xy4z (a tail alone), ***Xy4"},
		{"seven " + key[20:27], "seven " + key[20:27]},
		{"", ""},
	} {
		if got := Mask(c.in, []string{key, other, "short"}); got != c.want {
			t.Errorf("Mask(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got := Mask("x "+key, nil); got != "x "+key {
		t.Errorf("no secrets: %q", got)
	}
}

func FuzzMask(f *testing.F) {
	f.Add("Incorrect API key provided: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z")
	f.Add("***…..abcd", "0123456789abcd")
	f.Fuzz(func(t *testing.T, text, key string) {
		got := Mask(text, []string{key})
		if len(key) >= MinLen && strings.Contains(got, key) {
			t.Fatalf("Mask(%q, %q) = %q keeps the key", text, key, got)
		}
	})
}

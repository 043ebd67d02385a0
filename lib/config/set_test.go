package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSet(t *testing.T) {
	base := "# mine\napprovalMode = \"ask\"\n\n[modelRoles]\ndefault = \"sonnet\" # the usual\n\n[hooks]\nx = 1\n"
	for _, c := range []struct {
		name, data, key string
		vals            []string
		want, err       string
	}{
		{"replace a line", base, "modelRoles.default", []string{"opus"},
			"# mine\napprovalMode = \"ask\"\n\n[modelRoles]\ndefault = \"opus\"\n\n[hooks]\nx = 1\n", ""},
		{"into its table", base, "modelRoles.fast", []string{"haiku"},
			"# mine\napprovalMode = \"ask\"\n\n[modelRoles]\nfast = \"haiku\"\ndefault = \"sonnet\" # the usual\n\n[hooks]\nx = 1\n", ""},
		{"top level before the tables", base, "statusLine", []string{`jq -r ".model.id"`},
			"# mine\napprovalMode = \"ask\"\n\nstatusLine = \"jq -r \\\".model.id\\\"\"\n[modelRoles]\ndefault = \"sonnet\" # the usual\n\n[hooks]\nx = 1\n", ""},
		{"a new table", base, "sandbox.net", []string{"true"},
			base + "\n[sandbox]\nnet = true\n", ""},
		{"a list", "", "enabledModels", []string{"sonnet", "openai/gpt-5.1"}, "enabledModels = [\"sonnet\", \"openai/gpt-5.1\"]\n", ""},
		{"an empty file", "", "edit.mode", []string{"hashline"}, "[edit]\nmode = \"hashline\"\n", ""},
		{"a bad choice", base, "approvalMode", []string{"maybe"}, "", "approvalMode"},
		{"unknown", base, "nope", []string{"x"}, "", "unknown setting"},
		{"a bad file", "x = = 1", "approvalMode", []string{"yes"}, "", "config.toml:1"},
		{"several lines", "[permissions]\nallow = [\n  \"Read\",\n]\n", "permissions.allow", []string{"Edit"}, "", "edit the file by hand"},
	} {
		got, err := Set([]byte(c.data), c.key, c.vals)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d := cmp.Diff(c.want, string(got)); d != "" {
			t.Errorf("%s (-want +got)\n%s", c.name, d)
		}
	}
}

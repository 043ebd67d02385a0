package mcptool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

func TestName(t *testing.T) {
	long := strings.Repeat("x", 70)
	cases := []struct{ mode, server, tool, want string }{
		{"", "github", "create_issue", "mcp__github__create_issue"},
		{Default, "my.server", "Get-Thing", "mcp__my_server__Get-Thing"},
		{Default, "s3", "list buckets!", "mcp__s3__list_buckets_"},
		{V12, "s3", "list", "mcp_s_list"},
		{V12, "puppeteer", "puppeteer_click", "mcp_puppeteer_click"},
		{V12, "My-Server", "Do.It", "mcp_my_server_do_it"},
		{V12, "123", "", "mcp_server_tool"},
		{V15, "github", "create_issue", "mcp__github_create_issue"},
		{Default, "srv", long, "mcp__srv__" + strings.Repeat("x", 47) + "_d5af17"},
	}
	for _, c := range cases {
		got, err := Name(c.mode, c.server, c.tool)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("Name(%q,%q,%q) = %q, want %q", c.mode, c.server, c.tool, got, c.want)
		}
		if len(got) > MaxName {
			t.Errorf("%q longer than %d", got, MaxName)
		}
	}
	if _, err := Name("v99", "a", "b"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestAllowed(t *testing.T) {
	cases := []struct {
		inc, exc []string
		tool     string
		want     bool
	}{
		{nil, nil, "x", true},
		{[]string{"read_*"}, nil, "read_file", true},
		{[]string{"read_*"}, nil, "write_file", false},
		{nil, []string{"write_*"}, "write_file", false},
		{[]string{"*"}, []string{"rm"}, "rm", false},
	}
	for _, c := range cases {
		if got := Allowed(c.inc, c.exc, c.tool); got != c.want {
			t.Errorf("Allowed(%v,%v,%q) = %v", c.inc, c.exc, c.tool, got)
		}
	}
}

func TestCleanSchema(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, `{"properties":{},"type":"object"}`},
		{`{"type":"object","properties":{"a":{"type":"string","nullable":true},"nullable":{"type":"boolean"}}}`,
			`{"properties":{"a":{"type":"string"},"nullable":{"type":"boolean"}},"type":"object"}`},
		{`null`, `{"type":"object","properties":{}}`},
		{`{}`, `{"properties":{},"type":"object"}`},
	}
	for _, c := range cases {
		if got := string(CleanSchema(json.RawMessage(c.in))); got != c.want {
			t.Errorf("CleanSchema(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestConvert(t *testing.T) {
	cases := []struct {
		name, raw string
		want      Output
	}{
		{"text", `{"content":[{"type":"text","text":"hi"}]}`,
			Output{Content: []event.Content{event.Text("hi")}, Details: Details{ServerName: "s", MCPToolName: "t"}}},
		{"error", `{"content":[{"type":"text","text":"boom"}],"isError":true}`,
			Output{Content: []event.Content{event.Text("Error: boom")}, Details: Details{ServerName: "s", MCPToolName: "t", IsError: true}, IsError: true}},
		{"image audio link", `{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"audio","data":"aGk=","mimeType":"audio/wav"},{"type":"resource_link","uri":"file:///a","name":"a","description":"the a"}]}`,
			Output{Content: []event.Content{{Type: "image", Data: "aGk=", MimeType: "image/png"}, event.Text("[Audio: audio/wav]"), event.Text("[Resource link: file:///a] a: the a")}, Details: Details{ServerName: "s", MCPToolName: "t"}}},
		{"embedded", `{"content":[{"type":"resource","resource":{"uri":"x://1","text":"body"}},{"type":"resource","resource":{"uri":"x://2","mimeType":"application/pdf","blob":"aGVsbG8="}}]}`,
			Output{Content: []event.Content{event.Text("[Resource: x://1]\nbody"), event.Text("[Binary resource: x://2, application/pdf, 5 bytes]")}, Details: Details{ServerName: "s", MCPToolName: "t"}}},
		{"structured only", `{"content":[],"structuredContent":{"n":1}}`,
			Output{Content: []event.Content{event.Text("{\n  \"n\": 1\n}")}, Details: Details{ServerName: "s", MCPToolName: "t", StructuredContent: json.RawMessage(`{"n":1}`)}}},
		{"empty", `{"content":null}`,
			Output{Content: []event.Content{}, Details: Details{ServerName: "s", MCPToolName: "t"}}},
	}
	for _, c := range cases {
		got, err := Convert("s", "t", []byte(c.raw))
		if err != nil {
			t.Fatal(c.name, err)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
	if _, err := Convert("s", "t", []byte(`{"content":"x"}`)); err == nil {
		t.Error("bad content accepted")
	}
}

func TestJoinText(t *testing.T) {
	got := JoinText([]event.Content{event.Text("a"), {Type: "image", MimeType: "image/png"}, event.Text("b")})
	if got != "a\n\n[Image: image/png]\n\nb" {
		t.Errorf("JoinText = %q", got)
	}
	if got := Clip("héllo", 2); got != "h…" {
		t.Errorf("Clip = %q", got)
	}
}

func TestLimitText(t *testing.T) {
	img := event.Content{Type: "image", Data: "x", MimeType: "image/png"}
	cases := []struct {
		name   string
		in     []event.Content
		lines  int
		bytes  int
		want   []event.Content
		notice string
	}{
		{"fits", []event.Content{event.Text("a\nb")}, 5, 100, []event.Content{event.Text("a\nb")}, ""},
		{"lines", []event.Content{event.Text("1\n2\n3"), img, event.Text("4\n5")}, 4, 100,
			[]event.Content{event.Text("1\n2\n3"), img, event.Text("4")}, "[Showing lines 1-4 of 5. Full: f]"},
		{"bytes", []event.Content{event.Text("aaaa\nbbbb\ncccc")}, 100, 10,
			[]event.Content{event.Text("aaaa\nbbbb")}, "[Showing lines 1-2 of 3 (10B limit). Full: f]"},
		{"first line too long", []event.Content{event.Text("aaaaaaaaaaaa")}, 100, 10, nil, "[Showing lines 1-0 of 1 (10B limit). Full: f]"},
	}
	for _, c := range cases {
		l := LimitText(c.in, c.lines, c.bytes)
		if d := cmp.Diff(c.want, l.Content); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
		notice := ""
		if l.Truncated {
			notice = l.Notice(c.bytes, "f")
		}
		if notice != c.notice {
			t.Errorf("%s: notice %q, want %q", c.name, notice, c.notice)
		}
	}
}

func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1}}`))
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"uri":"u","blob":"!!"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := Convert("s", "t", b)
		if err == nil && out.Content == nil {
			t.Fatal("nil content")
		}
		_ = CleanSchema(b)
	})
}

func TestResendable(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		a    *Annotations
		want bool
	}{
		{"no annotations", nil, false},
		{"empty", &Annotations{}, false},
		{"read-only", &Annotations{ReadOnly: true}, true},
		{"idempotent, destructive by default", &Annotations{Idempotent: true}, false},
		{"idempotent and destructive", &Annotations{Idempotent: true, Destructive: &yes}, false},
		{"idempotent, not destructive", &Annotations{Idempotent: true, Destructive: &no}, true},
		{"destructive, not idempotent", &Annotations{Destructive: &yes}, false},
		{"not destructive, not idempotent", &Annotations{Destructive: &no}, false},
	}
	for _, c := range cases {
		if got := Resendable(c.a); got != c.want {
			t.Errorf("%s: Resendable = %v, want %v", c.name, got, c.want)
		}
	}
}

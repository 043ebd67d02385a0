package loop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

func TestParseControl(t *testing.T) {
	tests := []struct {
		line    string
		want    Control
		wantErr string
	}{
		{line: `{"type":"steer","message":"stop"}`, want: Control{Type: "steer", Message: "stop"}},
		{line: "{\"type\":\"follow_up\",\"message\":\"then\",\"x\":1}\r\n", want: Control{Type: "follow_up", Message: "then"}},
		{line: `{"type":"abort"}`, want: Control{Type: "abort"}},
		{line: `{"type":"set_thinking_level","level":"high"}`, want: Control{Type: "set_thinking_level", Level: "high"}},
		{line: `{"type":"answer","requestId":"r1","value":true}`, want: Control{Type: "answer", RequestID: "r1", Value: json.RawMessage("true")}},
		{line: `{"type":"answer","requestId":"r1","cancelled":true}`, want: Control{Type: "answer", RequestID: "r1", Cancelled: true}},
		{line: `{"type":"steer","message":"see","images":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`,
			want: Control{Type: "steer", Message: "see", Images: []event.Content{{Type: "image", Data: "aGk=", MimeType: "image/png"}}}},
		{line: `{"type":"steer"}`, wantErr: `control steer: empty "message"`},
		{line: `{"type":"steer","message":"x","images":[{"type":"image"}]}`, wantErr: "images[0]"},
		{line: `{"type":"set_thinking_level","level":"max"}`, wantErr: `level "max"`},
		{line: `{"type":"answer"}`, wantErr: `missing "requestId"`},
		{line: `{"type":"prompt","message":"x"}`, wantErr: `unknown type "prompt"`},
		{line: `{}`, wantErr: `no "type"`},
		{line: `not json`, wantErr: "control: invalid character"},
	}
	for _, tt := range tests {
		got, err := ParseControl([]byte(tt.line))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.line, d)
		}
	}
}

func FuzzParseControl(f *testing.F) {
	f.Add([]byte(`{"type":"steer","message":"x"}`))
	f.Add([]byte(`{"type":"set_thinking_level","level":"low"}`))
	f.Add([]byte(`{"type":"answer","requestId":"r","value":{"a":[1]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := ParseControl(line)
		if err == nil && c.Type == "" {
			t.Fatal("accepted a control without a type")
		}
	})
}

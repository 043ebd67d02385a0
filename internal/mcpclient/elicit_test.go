package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestURLRequired(t *testing.T) {
	data := json.RawMessage(`{"elicitations":[{"mode":"url","elicitationId":"a","url":"https://x.example/a","message":"Log in"},` +
		`{"mode":"url","elicitationId":"b","url":"https://x.example/b"}]}`)
	for _, tc := range []struct {
		name string
		err  error
		want string
		ok   bool
	}{
		{"two urls", fmt.Errorf("call: %w", &jsonrpc.Error{Code: -32042, Message: "Needs login.", Data: data}),
			"MCP error -32042: Needs login.\nOpen https://x.example/a (Log in)\nOpen https://x.example/b\nThen call the tool again.", true},
		{"no data", &jsonrpc.Error{Code: -32042, Message: "Needs login."}, "MCP error -32042: Needs login.\nThen call the tool again.", true},
		{"another code", &jsonrpc.Error{Code: -32601, Message: "no"}, "", false},
		{"not json-rpc", errors.New("-32042"), "", false},
	} {
		got, ok := URLRequired(tc.err)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v", tc.name, ok)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, d)
		}
	}
}

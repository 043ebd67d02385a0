package mcpclient

import (
	"encoding/json"
	"reflect"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK tells its Streamable HTTP connection that the session is
// initialized through an unexported interface (clientConnection, asserted on
// the connection a Transport returns), which RawConn's wrapping hides. The
// connection then sends MCP-Protocol-Version on its requests and opens the
// standing server-to-client SSE stream (the GET of "Listening for Messages
// from the Server"), where servers send requests that belong to no call
// (server-everything's get-roots-list asks roots/list there). RawConn calls
// the hook itself when the initialize response goes by.
//
// go-sdk v1.8.0: mcp/transport.go clientConnection, mcp/client.go
// clientSessionState, mcp/streamable.go (*streamableClientConn).sessionUpdated.
// A rename breaks the link (the build fails); TestStandaloneStream checks
// that the stream works.

// sdkSessionState is the SDK's clientSessionState.
type sdkSessionState struct {
	InitializeResult *mcp.InitializeResult
}

//go:linkname streamableSessionUpdated github.com/modelcontextprotocol/go-sdk/mcp.(*streamableClientConn).sessionUpdated
func streamableSessionUpdated(c unsafe.Pointer, state sdkSessionState)

// sessionUpdated passes an initialize result to c when c is the SDK's
// Streamable HTTP connection; other connections have no such hook.
func sessionUpdated(c mcp.Connection, result json.RawMessage) {
	t := reflect.TypeOf(c)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != "github.com/modelcontextprotocol/go-sdk/mcp" || t.Elem().Name() != "streamableClientConn" {
		return
	}
	var res mcp.InitializeResult
	if json.Unmarshal(result, &res) != nil || res.ProtocolVersion == "" {
		return
	}
	streamableSessionUpdated(reflect.ValueOf(c).UnsafePointer(), sdkSessionState{InitializeResult: &res})
}

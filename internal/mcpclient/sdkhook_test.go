package mcpclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStandaloneStream: through RawTransport, the SDK's Streamable HTTP
// connection still opens the standing GET stream after initialize, and a
// server's requests sent outside any call (roots/list, elicitation, ping,
// as server-everything's get-roots-list does) arrive there and are
// answered; POSTs after initialize carry MCP-Protocol-Version. A server
// that answers the GET with 405 offers no stream: calls go on without it.
func TestStandaloneStream(t *testing.T) {
	for _, noGET := range []bool{false, true} {
		t.Run(fmt.Sprintf("405=%v", noGET), func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
			// Contexts of no request: the server sends on the standalone stream.
			apart := func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Minute)
			}
			srv.AddTool(&mcp.Tool{Name: "apart", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ctx, cancel := apart()
				defer cancel()
				roots, err := req.Session.ListRoots(ctx, nil)
				if err != nil {
					return nil, fmt.Errorf("roots/list: %w", err)
				}
				if err := req.Session.Ping(ctx, nil); err != nil {
					return nil, fmt.Errorf("ping: %w", err)
				}
				el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
				if err != nil {
					return nil, fmt.Errorf("elicitation/create: %w", err)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(roots.Roots[0].URI, " ", el.Content["name"])}}}, nil
			})
			srv.AddTool(&mcp.Tool{Name: "plain", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}}, nil
			})
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
			var mu sync.Mutex
			var gets int
			var versions []string // MCP-Protocol-Version of each POST
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				if r.Method == http.MethodGet {
					gets++
				}
				if r.Method == http.MethodPost {
					versions = append(versions, r.Header.Get("MCP-Protocol-Version"))
				}
				mu.Unlock()
				if noGET && r.Method == http.MethodGet {
					http.Error(w, "no stream here", http.StatusMethodNotAllowed)
					return
				}
				h.ServeHTTP(w, r)
			}))
			defer hs.Close()

			client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
			})
			client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
			rt := &RawTransport{Transport: &mcp.StreamableClientTransport{Endpoint: hs.URL}}
			ctx := context.Background()
			cs, err := client.Connect(ctx, rt, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"})
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "plain" {
				t.Fatalf("plain: %v %v", res, err)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "apart"})
			switch {
			case noGET && err == nil && !res.IsError:
				t.Errorf("apart without a stream: %v", res.Content[0])
			case !noGET && err != nil:
				t.Fatal(err)
			case !noGET && res.IsError:
				t.Fatalf("apart: %v", res.Content[0].(*mcp.TextContent).Text)
			case !noGET:
				if got := res.Content[0].(*mcp.TextContent).Text; got != "file:///work Ada" {
					t.Errorf("apart = %q", got)
				}
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"}); err != nil {
				t.Errorf("plain after: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if gets == 0 {
				t.Error("no GET")
			}
			if len(versions) < 3 {
				t.Fatalf("POST versions %q", versions)
			}
			for i, v := range versions[1:] {
				if v != "2025-11-25" {
					t.Errorf("POST %d after initialize: MCP-Protocol-Version %q", i+1, v)
				}
			}
		})
	}
}

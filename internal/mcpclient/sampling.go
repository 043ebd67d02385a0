package mcpclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const samplingMethod = "sampling/createMessage"

// declineSampling answers sampling requests when no model is configured
// (the capability is not offered, but a server may ask anyway).
func declineSampling(server string, warn func(string)) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != samplingMethod {
				return next(ctx, method, req)
			}
			warn(fmt.Sprintf("%s: declined a sampling request: %s", server, NoSampling))
			// -1 is the code of the spec's example of a refused sampling request.
			return nil, &jsonrpc.Error{Code: -1, Message: "sampling declined: " + NoSampling}
		}
	}
}

// NoSampling says why a sampling request was declined and how to allow it.
const NoSampling = "agent-mcp has no model for sampling (give --sampling-model provider/id or set AGENT_MCP_SAMPLING_MODEL)"

// SamplingRefused reports the SDK's error for a multi round-trip sampling
// request made to a client without the capability.
func SamplingRefused(err error) bool {
	return err != nil && strings.Contains(err.Error(), "does not support CreateMessage")
}

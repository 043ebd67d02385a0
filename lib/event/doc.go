// Package event holds the Go shapes of two agentutils streams, specified in
// formats/events and formats/tool-protocol:
//
//   - agent events: what agent-chat writes on stdout (pi's AgentEvent names plus
//     the pipeline events entry, context_overflow, compaction_suggested,
//     request and error), read by agent-session append and agent-chat --render;
//   - the tool co-process protocol: hello/tools, call/update/result, cancel,
//     request/answer and log, spoken by agent-tool serve and agent-mcp bridge.
//
// Message bodies (user, assistant, toolResult, … messages and session
// entries) are carried as json.RawMessage: their shape belongs to lib/session
// and lib/llm, and a stage that only routes events must pass them on byte for
// byte. Unknown fields are ignored on decode; unknown event types decode as an
// Event with only Type set and Raw kept, so filters can pass them through.
package event

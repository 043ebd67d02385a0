// Package loop is the pure core of agent-chat's agent loop: the decisions,
// none of the I/O. cmd/agent-chat streams the model, runs the tool
// co-processes and reads --control; this package tells it what to do next
// and which events to write.
//
//   - Merge joins the tool lists of several co-processes (a name offered
//     twice is an error naming both sources);
//   - Validator checks a call's arguments against the advertised JSON Schema,
//     with the reference agent's coercion passes;
//   - Plan and Batch schedule one assistant message's tool calls: shared
//     calls together, an exclusive call alone, results restored to call order,
//     with the synthetic results (not found, validation failed, skipped,
//     aborted, tool process exited);
//   - Queue holds steering and follow-up messages with the queue modes,
//     ParseControl reads --control commands, and Asks routes a tool's
//     interactive asks to the user and the answers back;
//   - WithIntent and StripIntent implement --intent-tracing;
//   - Loop is the turn state machine (agent_start … agent_end): values in
//     (the final assistant message, tool results, control commands), a Step
//     out (events to write, calls to dispatch or cancel, "call the model",
//     or done);
//   - Start applies the --continue rules, CompactionThreshold the
//     compaction_suggested check.
//
// Messages travel as json.RawMessage (AgentMessage JSON, formats/events):
// the loop reads only what it needs (role, stopReason, toolCall blocks,
// usage) and passes the rest on unchanged. Nothing here reads a clock: every
// input that stamps a message carries now, in Unix milliseconds.
package loop

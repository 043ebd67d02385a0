// Package loop is the pure core of agent-chat's agent loop: the decisions,
// none of the I/O. cmd/agent-chat streams the model, runs the tool
// co-processes, reads --control and fires hooks; this package tells it
// what to do next and which events to write.
//
//   - Loop is the run as a state machine (agent_start … agent_end): values
//     in (the prompt, each final assistant message, tool updates and
//     results, control input, a Stop hook's verdict), a Step out (events to
//     write and one Action: call the model, wait to retry, run tool calls,
//     fire the Stop hook, or done with the exit). It decides the turns and
//     --max-turns, retries of transient provider errors, the tool batches
//     (Plan: shared calls together, an exclusive one alone; unknown tools
//     and arguments that fail validation answered without running), the
//     steering and follow-up messages, thinking level changes, context
//     overflow and compaction_suggested;
//   - Merge joins the tool lists of several co-processes (a name offered
//     twice is an error naming both sources);
//   - ParseControl reads --control commands; DropOverflow is the
//     --continue rule.
//
// Messages are llm.Message values; nothing here reads a clock: every input
// that stamps a message carries now, in Unix milliseconds. Argument
// validation is lib/jsonschema's.
package loop

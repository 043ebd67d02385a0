// Package jsonschema validates tool-call arguments against the JSON Schema
// a tool advertises: the keywords of draft 2020-12 that tool schemas use
// (and the draft-04/06/07 spellings MCP servers still send), compiled once
// per tool, with errors that carry the instance location and the failing
// keyword, so Validator.Validate can coerce string-encoded values ("42",
// "[1,2]") and report every problem in the reference agent's (AJV's) words.
// agent-tool serve validates each call with it; agent-chat validates before
// it sends a call to a co-process.
//
// Why our own and not google/jsonschema-go, which the MCP SDK already links
// into agent-mcp (measured 2026-11-24, 2-core shared machine):
//
//   - Correctness, against santhosh-tekuri/jsonschema as the oracle over the
//     35 schemas × 67 instances of schema_test.go: ours agrees on all 2,346
//     pairs; jsonschema-go v0.4.3 disagrees on 6 (it decodes numbers into
//     float64, so 1e-400 becomes 0 and passes "type":"integer") and cannot
//     compile a draft-04 schema (boolean exclusiveMinimum) at all.
//   - The texts the model sees: jsonschema-go stops at the first failure and
//     returns a plain string ("validating /properties/path: type: 1 has type
//     \"integer\", want \"string\""), with no location to coerce at and no
//     list of problems, so the reference agent's messages and its five
//     coercion passes could not be kept.
//   - Start-up of agent-tool serve, which compiles the schemas of every
//     tool at start: compiling agent-tool's 9 schemas takes 0.15 ms, 66 KB,
//     807 allocations with ours against 0.8 ms, 259 KB, 6,278 allocations
//     with jsonschema-go (go test -bench, median of 3); hello → EOF with
//     hyperfine (300 runs) 2.0 ± 2.2 ms against 3.2 ± 2.4 ms, peak RSS
//     6.4 MB against 7.1 MB (/usr/bin/time), binary 6.13 MB against 6.67 MB.
package jsonschema

// Package exit holds the one exit-code table of agentutils and the error type
// that carries a code from deep inside a command out to main.
//
// Every command maps its returned error to a process status with Code, in one
// place (internal/app). Scripts may rely on these numbers; an unknown code must
// be treated as a failure.
package exit

import (
	"errors"
	"fmt"
)

// The exit codes shared by every agent-* command.
const (
	OK          = 0   // success
	Failure     = 1   // no result (no match, lint failed) or a runtime failure
	Usage       = 2   // bad usage, bad configuration or bad input
	Overflow    = 3   // the model's context window overflowed (agent-chat)
	Auth        = 4   // an MCP server wants authentication (agent-mcp; see 'agent-mcp auth')
	MaxTurns    = 5   // agent-chat stopped at --max-turns with tool calls left
	Timeout     = 124 // a time limit ran out
	Interrupted = 130 // interrupted by SIGINT/SIGTERM or an abort
)

// NoResult is Failure under the name grep-like commands use for "nothing found".
const NoResult = Failure

// Table lists the codes with their meaning, for man pages and --help.
var Table = []struct {
	Code    int
	Meaning string
}{
	{OK, "success"},
	{Failure, "no result (nothing matched, lint failed) or a runtime failure"},
	{Usage, "usage error, bad configuration or bad input (the message says what and where)"},
	{Overflow, "context overflow: the conversation no longer fits the model (agent-chat)"},
	{Auth, "authentication required: an MCP server answered HTTP 401 or 403 (agent-mcp; 'agent-mcp auth SERVER' logs in)"},
	{MaxTurns, "turn limit: agent-chat made --max-turns model calls and the model still asked for tools (agent-chat --continue goes on)"},
	{Timeout, "a time limit ran out"},
	{Interrupted, "interrupted (SIGINT, SIGTERM or an abort)"},
}

// Error is an error that knows the exit status it should end the process with.
type Error struct {
	Code int
	Err  error
	// Silent suppresses the message (the command has already reported it),
	// keeping the code; like gojq's emptyError.
	Silent bool
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode reports the process status this error asks for.
func (e *Error) ExitCode() int { return e.Code }

// Errorf builds an Error with the given code and a formatted message.
func Errorf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Wrap attaches a code to err; a nil err stays nil.
func Wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Silent returns an error that ends with code without printing anything more.
func Silent(code int) error { return &Error{Code: code, Silent: true} }

// Code maps an error to its exit status: nil is OK, an error that carries a
// code (anything with ExitCode() int) gives that code, any other error Failure.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return Failure
}

// IsSilent reports whether err asks for no message.
func IsSilent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Silent && e.Err == nil
}

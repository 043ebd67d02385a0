package loop

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
)

// ErrNoPrompt is a run with no prompt, no --continue, and a context that
// does not end with a user message (usage error, exit 2).
var ErrNoPrompt = errors.New("no prompt: give one, or --continue to resume from the context")

// Prepare applies the start rules of a run to the context it read:
//
//   - with cont (--continue), a trailing assistant message that failed with
//     a context overflow (isOverflow reports that from its errorMessage) is
//     dropped: it was the reason for compacting, and resending the context
//     without it is the retry;
//   - with cont and no prompt, the context must end with a message that is
//     not from the assistant (a user prompt, tool results): that is what the
//     model answers;
//   - with no prompt and no cont, the context must end with a user message
//     (a prompt written by another stage), or it is ErrNoPrompt.
//
// Trailing messages marked "retried" are failed attempts and are dropped
// first. The returned slice shares no state with ctx.
func Prepare(ctx []json.RawMessage, hasPrompt, cont bool, isOverflow func(errorMessage string) bool) ([]json.RawMessage, error) {
	out := append([]json.RawMessage(nil), ctx...)
	for len(out) > 0 {
		p, err := peekMessage(out[len(out)-1])
		if err != nil {
			return nil, fmt.Errorf("last context message: %w", err)
		}
		retried := p.Role == "assistant" && p.Retried
		overflow := cont && p.Role == "assistant" && p.StopReason == StopError && isOverflow != nil && isOverflow(p.ErrorMessage)
		if !retried && !overflow {
			break
		}
		out = out[:len(out)-1]
	}
	if hasPrompt {
		return out, nil
	}
	if len(out) == 0 {
		if cont {
			return nil, errors.New("cannot continue: the context has no messages")
		}
		return nil, ErrNoPrompt
	}
	p, _ := peekMessage(out[len(out)-1])
	switch {
	case cont && p.Role == "assistant":
		return nil, fmt.Errorf("cannot continue from message role: assistant (give a prompt)")
	case !cont && p.Role != "user":
		return nil, ErrNoPrompt
	}
	return out, nil
}

// CompactionThreshold is the reference agent's check after a successful
// turn: compact when the context is within max(15% of the window,
// reserveTokens) of the window.
func CompactionThreshold(contextTokens, contextWindow, reserveTokens int) bool {
	if contextWindow <= 0 {
		return false
	}
	reserve := contextWindow * 15 / 100
	if reserveTokens > reserve {
		reserve = reserveTokens
	}
	return contextTokens > contextWindow-reserve
}

// CompactionSuggested is the event a driver writes when CompactionThreshold holds.
func CompactionSuggested(contextTokens, contextWindow int) event.Event {
	return event.Event{Type: event.CompactionSuggested, Reason: "threshold", ContextTokens: contextTokens, ContextWindow: contextWindow}
}

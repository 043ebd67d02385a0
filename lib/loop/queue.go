package loop

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
)

// QueueMode says how many queued messages one poll delivers.
type QueueMode string

// Queue modes (--steering-mode, --follow-up-mode).
const (
	OneAtATime QueueMode = "one-at-a-time" // the default: one message per poll
	All        QueueMode = "all"
)

// InterruptMode says when steering messages interrupt running tools.
type InterruptMode string

// Interrupt modes (--interrupt-mode).
const (
	Immediate InterruptMode = "immediate" // the default: after the current tool
	Wait      InterruptMode = "wait"      // only at the end of the turn
)

// ParseQueueMode and ParseInterruptMode read flag values ("" is the default).
func ParseQueueMode(s string) (QueueMode, error) {
	switch QueueMode(s) {
	case "", OneAtATime:
		return OneAtATime, nil
	case All:
		return All, nil
	}
	return "", fmt.Errorf("queue mode %q: want %q or %q", s, OneAtATime, All)
}

func ParseInterruptMode(s string) (InterruptMode, error) {
	switch InterruptMode(s) {
	case "", Immediate:
		return Immediate, nil
	case Wait:
		return Wait, nil
	}
	return "", fmt.Errorf("interrupt mode %q: want %q or %q", s, Immediate, Wait)
}

// Queue holds messages the user sent while a run is going: steering
// messages (delivered after the current tool or turn, interrupting the
// remaining tools) and follow-ups (delivered only when the agent would
// otherwise stop). Messages are user AgentMessages.
type Queue struct {
	SteeringMode QueueMode
	FollowUpMode QueueMode
	steer        []json.RawMessage
	follow       []json.RawMessage
}

// Steer queues a steering message; FollowUp a follow-up.
func (q *Queue) Steer(m json.RawMessage)    { q.steer = append(q.steer, m) }
func (q *Queue) FollowUp(m json.RawMessage) { q.follow = append(q.follow, m) }

// HasSteering reports whether a steering message is waiting.
func (q *Queue) HasSteering() bool { return len(q.steer) > 0 }

// Len is the number of queued messages of both kinds.
func (q *Queue) Len() int { return len(q.steer) + len(q.follow) }

// TakeSteering and TakeFollowUps dequeue per their mode: the oldest message,
// or all of them.
func (q *Queue) TakeSteering() []json.RawMessage  { return take(&q.steer, q.SteeringMode) }
func (q *Queue) TakeFollowUps() []json.RawMessage { return take(&q.follow, q.FollowUpMode) }

func take(s *[]json.RawMessage, mode QueueMode) []json.RawMessage {
	if len(*s) == 0 {
		return nil
	}
	n := 1
	if mode == All {
		n = len(*s)
	}
	out := append([]json.RawMessage(nil), (*s)[:n]...)
	*s = (*s)[n:]
	return out
}

// Drain empties the queue (steering first), for a run that ends with
// messages still queued: the driver reports or re-sends them.
func (q *Queue) Drain() []json.RawMessage {
	out := append(append([]json.RawMessage(nil), q.steer...), q.follow...)
	q.steer, q.follow = nil, nil
	return out
}

// Control command types (--control, formats/events "control" lines).
const (
	ControlSteer            = "steer"
	ControlFollowUp         = "follow_up"
	ControlAbort            = "abort"
	ControlSetThinkingLevel = "set_thinking_level"
	ControlAnswer           = "answer"
)

// ThinkingLevels are the values set_thinking_level accepts.
var ThinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// Control is one command read from --control.
type Control struct {
	Type      string          `json:"type"`
	Message   string          `json:"message,omitempty"` // steer, follow_up
	Images    []event.Content `json:"images,omitempty"`  // steer, follow_up
	Level     string          `json:"level,omitempty"`   // set_thinking_level
	RequestID string          `json:"requestId,omitempty"`
	Value     json.RawMessage `json:"value,omitempty"` // answer
	Cancelled bool            `json:"cancelled,omitempty"`
}

// ParseControl reads one control line. Unknown fields are ignored; an
// unknown type or a missing required field is an error.
func ParseControl(line []byte) (Control, error) {
	var c Control
	line = bytes.TrimRight(line, "\r\n")
	if err := json.Unmarshal(line, &c); err != nil {
		return c, fmt.Errorf("control: %w", err)
	}
	switch c.Type {
	case ControlSteer, ControlFollowUp:
		if c.Message == "" && len(c.Images) == 0 {
			return c, fmt.Errorf("control %s: empty \"message\"", c.Type)
		}
		for i, im := range c.Images {
			if im.Type != "image" || im.Data == "" || im.MimeType == "" {
				return c, fmt.Errorf("control %s: images[%d]: want {\"type\":\"image\",\"data\",\"mimeType\"}", c.Type, i)
			}
		}
	case ControlAbort:
	case ControlSetThinkingLevel:
		ok := false
		for _, l := range ThinkingLevels {
			ok = ok || l == c.Level
		}
		if !ok {
			return c, fmt.Errorf("control set_thinking_level: level %q: want one of %v", c.Level, ThinkingLevels)
		}
	case ControlAnswer:
		if c.RequestID == "" {
			return c, fmt.Errorf("control answer: missing \"requestId\"")
		}
	case "":
		return c, fmt.Errorf("control: no \"type\"")
	default:
		return c, fmt.Errorf("control: unknown type %q", c.Type)
	}
	return c, nil
}

package loop

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

// Control command types (--control, formats/events "control" lines).
const (
	ControlSteer            = "steer"
	ControlFollowUp         = "follow_up"
	ControlAbort            = "abort"
	ControlSetThinkingLevel = "set_thinking_level"
	ControlAnswer           = "answer"
)

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
		for _, l := range llm.ThinkingLevels {
			ok = ok || l == c.Level
		}
		if !ok {
			return c, fmt.Errorf("control set_thinking_level: level %q: want one of %v", c.Level, llm.ThinkingLevels)
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

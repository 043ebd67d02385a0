package loop

import (
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
)

// AnswerRetries is how many times a final answer that does not match
// Config.Answer is sent back to the model (agent-chat --json-schema).
const AnswerRetries = 2

const textAnswerFmt = "Your final answer must be a JSON document valid for the required JSON Schema, and it is not:\n%s\nAnswer again with the JSON document alone."

// AnswerJSON is the JSON document of a final answer: its text, without
// a markdown code fence around it.
func AnswerJSON(m llm.Message) string { return JSONText(m.Text()) }

// JSONText is a final answer's text without a markdown code fence around
// it (agent -p --json-schema prints it so).
func JSONText(t string) string {
	t = strings.TrimSpace(t)
	if body, ok := strings.CutPrefix(t, "```"); ok {
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			if inner, ok := strings.CutSuffix(strings.TrimSpace(body[nl+1:]), "```"); ok {
				return strings.TrimSpace(inner)
			}
		}
	}
	return t
}

// answerProblem says what is wrong with a final answer for the schema,
// or "".
func (l *Loop) answerProblem(m llm.Message) string {
	probs, err := l.cfg.Answer.Check([]byte(AnswerJSON(m)))
	if err != nil {
		return "  - the answer is not JSON: " + err.Error()
	}
	var b strings.Builder
	for _, p := range probs {
		b.WriteString("  - " + p + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// checkAnswer holds a stopping run whose final answer does not match the
// schema: the model is asked again, AnswerRetries times at most, then the
// run fails. ok is false when the answer stands (or no schema is set).
func (l *Loop) checkAnswer(s Step, now int64) (Step, bool) {
	f := l.final
	if l.cfg.Answer == nil || f.StopReason != llm.StopStop || l.aborted {
		return s, false
	}
	why := l.answerProblem(f)
	if why == "" {
		return s, false
	}
	if l.answerTries < AnswerRetries && l.turns < l.cfg.MaxTurns {
		l.answerTries++
		l.ctx.Messages = append(l.ctx.Messages, f)
		s.Events = append(s.Events, l.turnEnd(nil), event.Event{Type: event.TurnStart})
		l.message(&s, llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(fmt.Sprintf(textAnswerFmt, why))}, Timestamp: now})
		return l.nextTurn(s), true
	}
	s = l.finish(s)
	s.Err = exit.Errorf(exit.Failure, "the final answer does not match --json-schema (asked %d times):\n%s", l.answerTries+1, why)
	return s, true
}

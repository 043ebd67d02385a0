package main

import (
	"bufio"
	"context"
	"os"
	"sync"

	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
)

// control is what --control delivers while a run goes on: steering and
// follow-up messages, a new thinking level, an abort.
type control struct {
	mu       sync.Mutex
	steer    []llm.Message
	follow   []llm.Message
	thinking string
}

// listen reads control lines from path (a FIFO or a file) until EOF or
// the run ends; a bad line is reported and skipped.
func (k *control) listen(ctx context.Context, path string, abort context.CancelFunc, now func() int64, warn func(string, ...any)) {
	f, err := os.Open(path)
	if err != nil {
		warn("--control: %v", err)
		return
	}
	go func() { <-ctx.Done(); f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		c, err := loop.ParseControl(sc.Bytes())
		if err != nil {
			warn("--control:%d: %v (skipped)", n, err)
			continue
		}
		msg := func() llm.Message {
			m := llm.Message{Role: "user", Timestamp: now()}
			if c.Message != "" {
				m.Content = append(m.Content, llm.TextBlock(c.Message))
			}
			for _, im := range c.Images {
				m.Content = append(m.Content, llm.ImageBlock(im.Data, im.MimeType))
			}
			return m
		}
		k.mu.Lock()
		switch c.Type {
		case loop.ControlSteer:
			k.steer = append(k.steer, msg())
		case loop.ControlFollowUp:
			k.follow = append(k.follow, msg())
		case loop.ControlSetThinkingLevel:
			k.thinking = c.Level
		case loop.ControlAbort:
			abort()
		}
		k.mu.Unlock()
	}
}

// take returns the queued messages of one kind (steer or, when the agent
// would stop, follow-ups and leftover steering) and a pending thinking level.
func (k *control) take(stopping bool) (msgs []llm.Message, thinking string) {
	if k == nil {
		return nil, ""
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	msgs, k.steer = k.steer, nil
	if stopping {
		msgs, k.follow = append(msgs, k.follow...), nil
	}
	thinking, k.thinking = k.thinking, ""
	return msgs, thinking
}

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

// feed moves what came in meanwhile into the loop (nothing without
// --control).
func (k *control) feed(l *loop.Loop) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, m := range k.steer {
		l.Steer(m)
	}
	for _, m := range k.follow {
		l.FollowUp(m)
	}
	if k.thinking != "" {
		l.SetThinking(k.thinking)
	}
	k.steer, k.follow, k.thinking = nil, nil, ""
}

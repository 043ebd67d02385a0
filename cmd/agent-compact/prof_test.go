package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/app"
)

func BenchmarkProf(b *testing.B) {
	data, err := os.ReadFile(os.Getenv("PROF_IN"))
	if err != nil {
		b.Skip(err)
	}
	args := []string{"agent-compact", "--model", "anthropic/claude-sonnet-4-5"}
	if os.Getenv("PROF_DRY") != "" {
		args = append(args, "--dry-run", "--force")
	}
	for i := 0; i < b.N; i++ {
		env := &app.Env{Stdin: bytes.NewReader(data), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Now: time.Now, Dir: "/tmp"}
		if c := app.Run(context.Background(), newApp, env, args); c != 0 {
			b.Fatal(c)
		}
	}
}

package humantime

import (
	"testing"
	"time"
)

func TestAgo(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		d          time.Duration
		ago, since string
	}{
		{30 * time.Second, "just now", "just now"},
		{5 * time.Minute, "5m ago", "5m ago"},
		{3 * time.Hour, "3h ago", "3h ago"},
		{50 * time.Hour, "2d ago", "2d ago"},
		{10 * 24 * time.Hour, "1w ago", "2026-11-14"},
		{65 * 24 * time.Hour, "2mo ago", "2026-09-20"},
	} {
		if got := Ago(tt.d); got != tt.ago {
			t.Errorf("Ago(%v) = %q, want %q", tt.d, got, tt.ago)
		}
		if got := Since(now, now.Add(-tt.d)); got != tt.since {
			t.Errorf("Since(-%v) = %q, want %q", tt.d, got, tt.since)
		}
	}
}

package mcpclient

import (
	"testing"
	"time"
)

func TestPollWait(t *testing.T) {
	ms := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		n        int
		interval *int64
		want     time.Duration
	}{
		{0, nil, 100 * time.Millisecond},
		{1, nil, 200 * time.Millisecond},
		{4, nil, 1600 * time.Millisecond},
		{5, nil, 2 * time.Second},
		{50, nil, 2 * time.Second},
		{0, ms(500), 500 * time.Millisecond}, // the server's interval, never less
		{3, ms(500), 800 * time.Millisecond},
		{0, ms(5000), 5 * time.Second}, // more than the backoff's cap: honoured
	} {
		if got := PollWait(tc.n, tc.interval); got != tc.want {
			t.Errorf("PollWait(%d, %v) = %v, want %v", tc.n, tc.interval, got, tc.want)
		}
	}
}

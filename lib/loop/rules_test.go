package loop

import "testing"

func TestCompactionThreshold(t *testing.T) {
	tests := []struct {
		tokens, window, reserve int
		want                    bool
	}{
		{0, 0, 16384, false},
		{170000, 200000, 16384, false}, // reserve = 15% = 30000
		{170001, 200000, 16384, true},
		{83616, 100000, 16384, false}, // reserve = 16384 > 15000
		{83617, 100000, 16384, true},
		{900, 1000, 0, true}, // reserve = 150
		{850, 1000, 0, false},
		{5000, 1000, 16384, true}, // reserve larger than the window
	}
	for _, tt := range tests {
		if got := CompactionThreshold(tt.tokens, tt.window, tt.reserve); got != tt.want {
			t.Errorf("CompactionThreshold(%d, %d, %d) = %v", tt.tokens, tt.window, tt.reserve, got)
		}
	}
}

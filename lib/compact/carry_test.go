package compact

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/agentutils/agentutils/lib/session"
)

// What CarryRecords keeps, reading only the newest messages, decides
// DefaultModel and LastUsage as the whole path does, as what Carry over
// every entry keeps does.
func TestCarryRecords(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 300 {
		var lines []string
		for i := range rng.Intn(12) {
			id := fmt.Sprintf("e%d", i)
			switch rng.Intn(5) {
			case 0:
				lines = append(lines, fmt.Sprintf(`{"type":"model_change","id":"%s","provider":"p%d","modelId":"m"}`, id, i))
			case 1:
				lines = append(lines, fmt.Sprintf(`{"type":"message","id":"%s","message":{"role":"user","content":"x"}}`, id))
			default:
				model := ""
				if rng.Intn(2) == 0 {
					model = fmt.Sprintf(`,"provider":"q%d","model":"m"`, i)
				}
				usage, stop := "", "stop"
				if rng.Intn(2) == 0 {
					usage = fmt.Sprintf(`,"usage":{"input":%d,"output":1,"totalTokens":%d}`, i+1, i+2)
				}
				if rng.Intn(4) == 0 {
					stop = "error"
				}
				lines = append(lines, fmt.Sprintf(`{"type":"message","id":"%s","message":{"role":"assistant","content":[]%s%s,"stopReason":"%s"}}`, id, model, usage, stop))
			}
		}
		var heads []session.Record
		var whole []Entry
		for _, l := range lines {
			h, err := session.ParseRecord([]byte(l))
			if err != nil {
				t.Fatal(err)
			}
			e, _ := ReadEntry([]byte(l))
			heads, whole = append(heads, h), append(whole, e)
		}
		var want []Entry
		for _, e := range whole {
			want = Carry(want, e)
		}
		got := CarryRecords(nil, heads)
		if DefaultModel(got) != DefaultModel(whole) || DefaultModel(want) != DefaultModel(whole) {
			t.Errorf("round %d: model %q from the carried, %q from all", round, DefaultModel(got), DefaultModel(whole))
		}
		u1, ok1 := LastUsage(got)
		u2, ok2 := LastUsage(whole)
		u3, ok3 := LastUsage(want)
		if u1 != u2 || ok1 != ok2 || u3 != u2 || ok3 != ok2 {
			t.Errorf("round %d: usage %v from the carried, %v from all", round, u1, u2)
		}
	}
}

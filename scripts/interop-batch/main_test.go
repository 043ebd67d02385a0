package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

func TestJoblog(t *testing.T) {
	log := "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n" +
		"1\t:\t1.0\t0.5\t0\t0\t0\t0\trun {\"id\":\"pass1\"}\n" +
		"2\thost2\t1.0\t0.5\t0\t0\t0\t0\trun {\"id\":\"slow\"}\n"
	want := []jobRow{{":", "1\t:\t1.0\t0.5\t0\t0\t0\t0\trun {\"id\":\"pass1\"}"}, {"host2", "2\thost2\t1.0\t0.5\t0\t0\t0\t0\trun {\"id\":\"slow\"}"}}
	if diff := cmp.Diff(want, joblog(log), cmp.AllowUnexported(jobRow{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTask(t *testing.T) {
	b := &batch{T: &interop.T{}}
	var task struct {
		ID       string         `json:"id"`
		Check    string         `json:"check"`
		ChatArgs []string       `json:"chatArgs"`
		Budgets  map[string]int `json:"budgets"`
	}
	line := b.task("turns", "loop", `,"budgets":{"turns":2}`)
	if err := json.Unmarshal([]byte(line), &task); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if task.ID != "turns" || task.Check != `test "$(cat answer.txt)" = 42` || task.ChatArgs[1] != "testdata/batch/loop.jsonl" || task.Budgets["turns"] != 2 {
		t.Errorf("task = %+v", task)
	}
}

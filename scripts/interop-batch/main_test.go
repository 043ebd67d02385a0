package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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

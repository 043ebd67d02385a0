package main

import "testing"

func TestExpect(t *testing.T) {
	results := `{"id":"a-1","model":"m1","outcome":"passed","tokens":10}
{"id":"a-2","model":"m1","outcome":"error","tokens":0}
{"id":"a-2","model":"m1","outcome":"passed","tokens":5}
{"id":"b-3","model":"m2","outcome":"passed","tokens":7.5}
not json
`
	got := expect(results)
	if w := (want{tasks: 3, drawn: 3, models: 2, segs: 3}); got != w {
		t.Errorf("expect = %+v, want %+v", got, w)
	}
}

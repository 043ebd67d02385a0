package exit

import (
	"errors"
	"fmt"
	"testing"
)

func TestCode(t *testing.T) {
	wrapped := fmt.Errorf("context: %w", Errorf(Usage, "bad flag"))
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"plain", errors.New("boom"), Failure},
		{"usage", Errorf(Usage, "x"), Usage},
		{"wrapped", wrapped, Usage},
		{"wrap nil", Wrap(Usage, nil), OK},
		{"silent", Silent(Interrupted), Interrupted},
		{"overflow", Wrap(Overflow, errors.New("too long")), Overflow},
		{"auth", Wrap(Auth, errors.New("HTTP 401")), Auth},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.want {
			t.Errorf("%s: Code = %d, want %d", c.name, got, c.want)
		}
	}
	if !IsSilent(Silent(1)) || IsSilent(Errorf(1, "x")) {
		t.Error("IsSilent wrong")
	}
	if wrapped.Error() != "context: bad flag" {
		t.Errorf("message %q", wrapped.Error())
	}
}

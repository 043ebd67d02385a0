package jsonschema

import (
	"encoding/json"
	"math/big"
	"regexp"
	"testing"
)

// smallExp is a JSON number whose exponent big.Rat parses at once.
var smallExp = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,40})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,3})?$`)

// checkDecimal compares decimal's answers with big.Rat's on two numbers.
func checkDecimal(t *testing.T, x, y string) {
	t.Helper()
	dx, okx := parseDecimal(x)
	dy, oky := parseDecimal(y)
	rx, _ := new(big.Rat).SetString(x)
	ry, _ := new(big.Rat).SetString(y)
	if !okx || !oky {
		t.Fatalf("parseDecimal(%q) %v, parseDecimal(%q) %v", x, okx, y, oky)
	}
	if got, want := dx.cmp(dy), rx.Cmp(ry); got != want {
		t.Errorf("cmp(%s, %s) = %d, big.Rat says %d", x, y, got, want)
	}
	if got, want := dx.isInt(), rx.IsInt(); got != want {
		t.Errorf("isInt(%s) = %v, big.Rat says %v", x, got, want)
	}
	if ry.Sign() > 0 {
		if got, want := dx.multipleOf(ry), new(big.Rat).Quo(rx, ry).IsInt(); got != want {
			t.Errorf("multipleOf(%s, %s) = %v, big.Rat says %v", x, y, got, want)
		}
	}
}

func TestDecimal(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "0e7", "1", "-1", "10", "1e1", "0.1e2", "100e-1", "1.5", "15e-1", "-1.5", "2", "3", "0.25",
		"0.75", "1e-20", "123e-20", "123e-21", "7e300", "7.1e300", "1e-300", "12345678901234567890123", "12345678901234567890124",
		"0.000001", "1E+2", "1e+002", "-2.50", "6", "0.3", "0.1"}
	for _, x := range nums {
		for _, y := range nums {
			checkDecimal(t, x, y)
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e", "1e+", "e5", "1x", "--1", "1.2.3", "0x10"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("parseDecimal(%q) accepted", bad)
		}
	}
}

func FuzzDecimal(f *testing.F) {
	f.Add("1.5e3", "0.25")
	f.Add("-0", "0e9")
	f.Add("123e-21", "1e-20")
	f.Fuzz(func(t *testing.T, x, y string) {
		if v, err := decodeJSON([]byte(x)); err == nil {
			if n, isNum := v.(json.Number); isNum && string(n) == x {
				if _, ok := parseDecimal(x); !ok {
					t.Fatalf("parseDecimal(%q) refused a JSON number", x)
				}
			}
		}
		if smallExp.MatchString(x) && smallExp.MatchString(y) {
			checkDecimal(t, x, y)
		}
	})
}

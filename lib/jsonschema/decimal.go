package jsonschema

import (
	"cmp"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// decimal is a JSON number as sign, significant digits and exponent:
// ±0.digits × 10^exp, digits without leading or trailing zeros ("" for
// zero). Comparisons and integrality are exact at any exponent and cost
// time linear in the literal: big.Rat refuses exponents beyond 1e6 (so a
// bound would be skipped) and spends up to a tenth of a second on 1e999999.
type decimal struct {
	neg    bool
	digits string
	exp    int64
	bigExp *big.Int // the exponent when it does not fit in an int64 (exp is then unused)
}

// parseDecimal reads a JSON number literal (as encoding/json's UseNumber
// keeps it); ok is false when s is not one.
func parseDecimal(s string) (d decimal, ok bool) {
	if s == "" {
		return d, false
	}
	if s[0] == '-' {
		d.neg, s = true, s[1:]
	}
	mant, expLit, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, expLit, hasExp = strings.Cut(s, "E")
	}
	intPart, frac, point := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || point && frac == "" || !allDigits(frac) {
		return decimal{}, false
	}
	all := intPart
	if frac != "" {
		all += frac
	}
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	digits := strings.TrimRight(all[lead:], "0")
	if hasExp && !validExp(expLit) {
		return decimal{}, false
	}
	if digits == "" {
		return decimal{}, true
	}
	d.digits = digits
	shift := int64(len(intPart) - lead) // the exponent of 0.digits without the literal's exponent
	if !hasExp {
		d.exp = shift
		return d, true
	}
	e, err := strconv.ParseInt(strings.TrimPrefix(expLit, "+"), 10, 64)
	if err == nil && (shift >= 0 && e <= math.MaxInt64-shift || shift < 0 && e >= math.MinInt64-shift) {
		d.exp = e + shift
		return d, true
	}
	d.bigExp, _ = new(big.Int).SetString(strings.TrimPrefix(expLit, "+"), 10)
	d.bigExp.Add(d.bigExp, big.NewInt(shift))
	return d, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func validExp(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && allDigits(s)
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmpExp compares the exponents of two non-zero decimals.
func (d decimal) cmpExp(o decimal) int {
	if d.bigExp == nil && o.bigExp == nil {
		return cmp.Compare(d.exp, o.exp)
	}
	return d.exponent().Cmp(o.exponent())
}

func (d decimal) exponent() *big.Int {
	if d.bigExp != nil {
		return d.bigExp
	}
	return big.NewInt(d.exp)
}

// cmp compares two decimals by value.
func (d decimal) cmp(o decimal) int {
	s := d.sign()
	if c := cmp.Compare(s, o.sign()); c != 0 || s == 0 {
		return c
	}
	c := d.cmpExp(o)
	if c == 0 {
		// Same exponent: the digit strings compare as the fractions they are.
		c = strings.Compare(d.digits, o.digits)
	}
	return c * s
}

// isInt reports whether d has no fractional part.
func (d decimal) isInt() bool {
	if d.digits == "" {
		return true
	}
	if d.bigExp != nil {
		return d.bigExp.Sign() > 0
	}
	return d.exp >= int64(len(d.digits))
}

// multipleOf reports whether d / q is an integer (q > 0).
func (d decimal) multipleOf(q *big.Rat) bool {
	if d.digits == "" {
		return true
	}
	// d = ±D × 10^p, q = a/b in lowest terms: d/q = D·b·10^p / a.
	D, _ := new(big.Int).SetString(d.digits, 10)
	a, b := q.Num(), q.Denom()
	ten := big.NewInt(10)
	var p int64
	if d.bigExp != nil {
		if d.bigExp.Sign() < 0 {
			return false // 10^-p is beyond any D·b
		}
		p = math.MaxInt64
	} else {
		p = d.exp - int64(len(d.digits))
	}
	if p >= 0 {
		// a | D·10^p (b is prime to a). The powers of 2 and 5 in a are
		// below its bit length, so a larger p changes nothing.
		k := min(p, int64(a.BitLen()))
		n := new(big.Int).Mul(D, new(big.Int).Exp(ten, big.NewInt(k), nil))
		return n.Mod(n, a).Sign() == 0
	}
	// a·10^n | D·b, impossible once 10^n exceeds D·b.
	n := -p
	db := new(big.Int).Mul(D, b)
	if n > int64(len(db.String())) {
		return false
	}
	div := new(big.Int).Mul(a, new(big.Int).Exp(ten, big.NewInt(n), nil))
	return db.Mod(db, div).Sign() == 0
}

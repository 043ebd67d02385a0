package regex

import (
	"slices"
	"unicode/utf8"
)

// byteRange is one byte position of a UTF-8 sequence: lo..hi.
type byteRange struct{ lo, hi byte }

// utf8Sequences splits a class (sorted lo, hi pairs) into the UTF-8 byte
// sequences of its members, surrogates left out, as Rust's regex compiles
// a class (regex-syntax's utf8 module): each sequence is one range per
// byte, and their union is exactly the encodings of the class.
func utf8Sequences(rs []rune) [][]byteRange {
	var out [][]byteRange
	var stack [][2]rune
	for i := len(rs) - 2; i >= 0; i -= 2 {
		stack = append(stack, [2]rune{rs[i], rs[i+1]})
	}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
	inner:
		for {
			if r[0] < 0xE000 && r[1] > 0xD7FF {
				stack = append(stack, [2]rune{0xE000, r[1]})
				r[1] = 0xD7FF
			}
			if r[0] > r[1] {
				break
			}
			for _, m := range []rune{0x7F, 0x7FF, 0xFFFF} {
				if r[0] <= m && m < r[1] {
					stack = append(stack, [2]rune{m + 1, r[1]})
					r[1] = m
					continue inner
				}
			}
			if r[1] < utf8.RuneSelf {
				out = append(out, []byteRange{{byte(r[0]), byte(r[1])}})
				break
			}
			for i := 1; i < utf8.UTFMax; i++ {
				m := rune(1)<<(6*i) - 1
				if r[0]&^m != r[1]&^m {
					if r[0]&m != 0 {
						stack = append(stack, [2]rune{r[0] | m + 1, r[1]})
						r[1] = r[0] | m
						continue inner
					}
					if r[1]&m != m {
						stack = append(stack, [2]rune{r[1] &^ m, r[1]})
						r[1] = r[1]&^m - 1
						continue inner
					}
				}
			}
			var a, b [utf8.UTFMax]byte
			n := utf8.EncodeRune(a[:], r[0])
			utf8.EncodeRune(b[:], r[1])
			seq := make([]byteRange, n)
			for k := range seq {
				seq[k] = byteRange{a[k], b[k]}
			}
			out = append(out, seq)
			break
		}
	}
	return out
}

// utf8Size estimates the bytes of Rust's compiled program for a class:
// an instruction per byte range of each sequence and per branch, fewer
// branches for a large class (Rust shares their suffixes), and one byte
// range alone is a larger instruction. Measured against rg 13's
// --regex-size-limit refusals: \w{875}, \pL{1056}, .{87694}, [a-z]{2593750}.
func utf8Size(rs []rune) int64 {
	seqs := utf8Sequences(rs)
	if len(seqs) == 1 && len(seqs[0]) == 1 && seqs[0][0].lo != seqs[0][0].hi {
		return rgInstBytes + 8
	}
	n := int64(len(seqs) - 1)
	if n > 16 {
		n /= 2
	}
	for _, s := range seqs {
		n += int64(len(s))
	}
	return rgInstBytes * max(n, 1)
}

// normRanges sorts and merges lo, hi pairs.
func normRanges(rs []rune) []rune {
	pairs := make([][2]rune, 0, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		pairs = append(pairs, [2]rune{rs[i], rs[i+1]})
	}
	slices.SortFunc(pairs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	var out []rune
	for _, p := range pairs {
		if n := len(out); n > 0 && p[0] <= out[n-1]+1 {
			out[n-1] = max(out[n-1], p[1])
			continue
		}
		out = append(out, p[0], p[1])
	}
	return out
}

// complementRanges is 0..top less the sorted ranges rs.
func complementRanges(rs []rune, top rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] > next {
			out = append(out, next, rs[i]-1)
		}
		next = rs[i+1] + 1
	}
	if next <= top {
		out = append(out, next, top)
	}
	return out
}

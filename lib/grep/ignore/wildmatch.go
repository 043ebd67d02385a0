package ignore

// wildmatch is git's wildmatch.c (dowild), the glob matcher of ignore
// files: with pathname set, '*' and '?' stop at '/', and "**" between
// slashes (or at either end) spans directories.

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

func wildmatch(pattern, text string, pathname bool) int {
	w := wild{pathname: pathname}
	return w.match(pattern, text)
}

// wild holds one wildmatch call. git's dowild backtracks at every '*' and
// tries "**/" both as nothing and as directories, so a line such as
// "**/**/**/**/**/**/**/**/**/**/**/**/x" took 27 s on a path 24
// directories deep (exponential in the number of "**/"). Every recursive
// call matches a suffix of the pattern against a suffix of the text, and
// its answer depends on nothing else, so after a few calls the answers
// are remembered by the two suffix lengths (kind 0 for match, 1 and 2
// for star): the same answers as git, and each (pattern, text) suffix pair
// is worked out once.
type wild struct {
	pathname bool
	calls    int
	memo     map[[3]int]int
}

// wildMemoAfter is how many calls run before the answers are remembered:
// an ordinary pattern ("*.log", "build/") never allocates.
const wildMemoAfter = 32

func (w *wild) match(p, text string) int {
	return w.remember(0, p, text, false)
}

// star is the backtracking loop of a run of stars: p, the rest of the
// pattern, is tried at the start of text and then, if that does not
// decide, at the later positions (star on text[1:], ...).
func (w *wild) star(p, text string, matchSlash bool) int {
	if len(text) == 0 {
		return wmAbortAll
	}
	kind := 1
	if matchSlash {
		kind = 2
	}
	return w.remember(kind, p, text, matchSlash)
}

func (w *wild) remember(kind int, p, text string, matchSlash bool) int {
	key := [3]int{kind, len(p), len(text)}
	if w.memo != nil {
		if r, ok := w.memo[key]; ok {
			return r
		}
	}
	var r int
	if kind == 0 {
		r = w.dowild(p, text)
	} else {
		r = w.starAt(p, text, matchSlash)
	}
	if w.calls++; w.calls > wildMemoAfter {
		if w.memo == nil {
			w.memo = map[[3]int]int{}
		}
		w.memo[key] = r
	}
	return r
}

// starAt is one step of git's star loop: skip to the next place the
// literal that follows the stars can start, try the rest of the pattern
// there, and go on one byte further if that does not decide.
func (w *wild) starAt(p, text string, matchSlash bool) int {
	ti := 0
	tch := text[0]
	if !isGlobSpecial(p[0]) {
		pc := p[0]
		for ti < len(text) && (matchSlash || text[ti] != '/') {
			if text[ti] == pc {
				break
			}
			ti++
		}
		if ti >= len(text) || text[ti] != pc {
			return wmNoMatch
		}
		tch = text[ti]
	}
	m := w.match(p, text[ti:])
	if m != wmNoMatch {
		if !matchSlash || m != wmAbortToStarStar {
			return m
		}
	} else if !matchSlash && tch == '/' {
		return wmAbortToStarStar
	}
	return w.star(p, text[ti+1:], matchSlash)
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

func (w *wild) dowild(p, text string) int {
	pathname := w.pathname
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pch := p[pi]
		if ti >= len(text) && pch != '*' {
			return wmAbortAll
		}
		var tch byte
		if ti < len(text) {
			tch = text[ti]
		}
		switch pch {
		case '\\':
			// a literal match with the following character
			pi++
			if pi >= len(p) {
				return wmNoMatch // a trailing backslash matches nothing
			}
			if text[ti] != p[pi] {
				return wmNoMatch
			}
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := false
			pi++
			if pi < len(p) && p[pi] == '*' {
				prev := pi - 2
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if !pathname {
					matchSlash = true
				} else if (prev < 0 || p[prev] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/')) {
					if pi < len(p) && p[pi] == '/' && w.match(p[pi+1:], text[ti:]) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if pi == len(p) {
				// trailing "**" matches everything, a trailing "*" only
				// when no slash is left
				if !matchSlash {
					for k := ti; k < len(text); k++ {
						if text[k] == '/' {
							return wmNoMatch
						}
					}
				}
				return wmMatch
			} else if !matchSlash && p[pi] == '/' {
				// one asterisk followed by a slash matches the next directory
				k := ti
				for k < len(text) && text[k] != '/' {
					k++
				}
				if k == len(text) {
					return wmNoMatch
				}
				ti = k
				// the slash is consumed by the loop
				continue
			}
			return w.star(p[pi:], text[ti:], matchSlash)
		case '[':
			pi++
			if pi >= len(p) {
				return wmAbortAll
			}
			pc := p[pi]
			negated := false
			if pc == '^' {
				pc = '!'
			}
			if pc == '!' {
				negated = true
				pi++ // the loop below checks pi and reads pc
			}
			prev := byte(0)
			matched := false
			first := true
			for {
				if pi >= len(p) {
					return wmAbortAll
				}
				pc = p[pi]
				if pc == ']' && !first {
					break
				}
				first = false
				if pc == '\\' {
					pi++
					if pi >= len(p) {
						return wmAbortAll
					}
					pc = p[pi]
					if tch == pc {
						matched = true
					}
				} else if pc == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']' {
					pi++
					pc = p[pi]
					if pc == '\\' {
						pi++
						if pi >= len(p) {
							return wmAbortAll
						}
						pc = p[pi]
					}
					if tch <= pc && tch >= prev {
						matched = true
					}
					pc = 0 // a range cannot start a range
				} else if pc == '[' && pi+1 < len(p) && p[pi+1] == ':' {
					// [:class:]: up to the first ']'
					s := pi + 2
					k := s
					for k < len(p) && p[k] != ']' {
						k++
					}
					if k == len(p) {
						return wmAbortAll
					}
					if k-s-1 < 0 || p[k-1] != ':' {
						// not a class: a literal '['
						if tch == '[' {
							matched = true
						}
						pc = '['
					} else {
						ok, known := charClass(p[s:k-1], tch)
						if !known {
							return wmAbortAll
						}
						if ok {
							matched = true
						}
						pi = k
						pc = 0
					}
				} else if tch == pc {
					matched = true
				}
				prev = pc
				pi++
			}
			if matched == negated || (pathname && tch == '/') {
				return wmNoMatch
			}
		default:
			if tch != pch {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

func charClass(name string, c byte) (match, known bool) {
	isAlpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	isDigit := c >= '0' && c <= '9'
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return c >= 'a' && c <= 'z', true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !isAlpha && !isDigit, true
	case "space":
		return c == ' ' || c >= '\t' && c <= '\r', true
	case "upper":
		return c >= 'A' && c <= 'Z', true
	case "xdigit":
		return isDigit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F', true
	}
	return false, false
}

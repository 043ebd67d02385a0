package session

import "bytes"

// A walker for JSON that Members has already checked (a record's message,
// read again by BuildContext or agent-compact): it finds members and
// elements without checking them again, crossing strings with a vectorised
// byte search. On bytes that are not JSON it stops early, with what it
// found so far; it never reads out of bounds.

// WalkMembers calls fn with each member of the object obj.
func WalkMembers(obj []byte, fn func(k, v []byte)) {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipWS(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		ke := skipString(obj, i)
		if ke < 0 {
			return
		}
		key := obj[i+1 : ke-1]
		i = skipWS(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipWS(obj, i+1)
		ve := skipValue(obj, i)
		if ve < 0 {
			return
		}
		fn(key, obj[i:ve])
		i = skipWS(obj, ve)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// WalkElements calls fn with each element of the array arr.
func WalkElements(arr []byte, fn func(v []byte)) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipWS(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return
	}
	for {
		i = skipWS(arr, i)
		ve := skipValue(arr, i)
		if ve < 0 {
			return
		}
		fn(arr[i:ve])
		i = skipWS(arr, ve)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i++
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"'),
// or -1.
func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		k := i + j
		n := 0
		for k-n-1 >= i && b[k-n-1] == '\\' {
			n++
		}
		i = k + 1
		if n%2 == 0 {
			return i
		}
	}
}

// skipValue returns the index after the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

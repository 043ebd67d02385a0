package edit

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Hashline v2 (the reference's file-version tags): read shows a header
// [path#TAG] and lines N:text; TAG is the low 16 bits of xxHash32 (seed 0)
// of the whole text with trailing blanks trimmed from every line, so an
// edit against a stale read is detected per file. The patch language:
//
//	start   := "*** Begin Patch" LF section+ "*** End Patch" [LF]   (envelope optional)
//	section := "[" path "#" HEX4 "]" LF hunk+
//	hunk    := "replace " A ".." B ":" LF body* | "delete " A ".." B LF | "delete " N LF
//	         | "insert " ("before " N | "after " N | "head" | "tail") ":" LF body+
//	body    := "+" text LF   ("+" alone is a blank line)
//
// Line numbers refer to the file as read, for the whole patch. The
// reference's "block" hunks need a syntax tree and are refused.

// FileTag is the version tag of text (LF).
func FileTag(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return fmt.Sprintf("%04X", xxh32([]byte(strings.Join(lines, "\n")), 0)&0xFFFF)
}

// Section is one file of a hashline patch.
type Section struct {
	Path  string
	Tag   string
	Hunks []Hunk
}

// Hunk is one operation: replace lines A..B with Body (empty Body deletes);
// an insert has A == B+1 (before line A), "head" is 1..0, "tail" is N+1..N.
type Hunk struct {
	Kind string // replace, delete, insert
	A, B int    // 1-based inclusive range; for insert: before A (B = A-1)
	Tail bool   // insert tail: A is resolved against the file
	Line int    // line of the patch, for messages
	Body []string
}

var (
	sectionRe = regexp.MustCompile(`^\[(.+)#([0-9A-Fa-f]{4})\]$`)
	replaceRe = regexp.MustCompile(`^replace (\d+)(?:\.\.(\d+))?:$`)
	deleteRe  = regexp.MustCompile(`^delete (\d+)(?:\.\.(\d+))?$`)
	insertRe  = regexp.MustCompile(`^insert (before (\d+)|after (\d+)|head|tail):$`)
)

// ParseHashline parses a hashline v2 patch.
func ParseHashline(input string) ([]Section, error) {
	lines := strings.Split(strings.ReplaceAll(input, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	start := 0
	for start < len(lines) && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	if start < len(lines) && strings.TrimSpace(lines[start]) == "*** Begin Patch" {
		start++
		if len(lines) == 0 || strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
			return nil, fmt.Errorf("The last line of the patch must be '*** End Patch'")
		}
		lines = lines[:len(lines)-1]
	}
	var secs []Section
	var cur *Hunk
	for i := start; i < len(lines); i++ {
		l, n := lines[i], i+1
		t := strings.TrimSpace(l)
		if strings.HasPrefix(l, "+") {
			if cur == nil || cur.Kind == "delete" {
				return nil, fmt.Errorf("line %d: a body line (+) must follow a replace or insert header", n)
			}
			cur.Body = append(cur.Body, l[1:])
			continue
		}
		if t == "" {
			continue
		}
		if m := sectionRe.FindStringSubmatch(t); m != nil {
			secs = append(secs, Section{Path: strings.TrimSpace(m[1]), Tag: strings.ToUpper(m[2])})
			cur = nil
			continue
		}
		if len(secs) == 0 {
			return nil, fmt.Errorf("line %d: expected a file header [path#TAG] (copy it from the read output), got %q", n, t)
		}
		if err := closeHunk(cur); err != nil {
			return nil, err
		}
		h := Hunk{Line: n}
		switch {
		case strings.Contains(t, " block "):
			return nil, fmt.Errorf("line %d: block hunks are not supported; use line ranges (replace A..B:)", n)
		case replaceRe.MatchString(t):
			m := replaceRe.FindStringSubmatch(t)
			h.Kind, h.A, h.B = "replace", atoi(m[1]), atoi(m[2])
		case deleteRe.MatchString(t):
			m := deleteRe.FindStringSubmatch(t)
			h.Kind, h.A, h.B = "delete", atoi(m[1]), atoi(m[2])
		case insertRe.MatchString(t):
			m := insertRe.FindStringSubmatch(t)
			h.Kind = "insert"
			switch {
			case m[2] != "":
				h.A = atoi(m[2])
			case m[3] != "":
				h.A = atoi(m[3]) + 1
			case m[1] == "head":
				h.A = 1
			default:
				h.Tail = true
			}
			h.B = h.A - 1
		default:
			return nil, fmt.Errorf("line %d: unknown hunk %q; expected 'replace A..B:', 'delete A..B', or 'insert before N:|after N:|head:|tail:'", n, t)
		}
		if h.Kind != "insert" {
			if h.B == 0 {
				h.B = h.A
			}
			if h.A < 1 {
				return nil, fmt.Errorf("line %d: line numbers start at 1", n)
			}
			if h.B < h.A {
				return nil, fmt.Errorf("line %d: range start %d must be <= end %d", n, h.A, h.B)
			}
		}
		s := &secs[len(secs)-1]
		s.Hunks = append(s.Hunks, h)
		cur = &s.Hunks[len(s.Hunks)-1]
	}
	if err := closeHunk(cur); err != nil {
		return nil, err
	}
	if len(secs) == 0 {
		return nil, fmt.Errorf("the patch has no file section; start with the [path#TAG] header shown by read")
	}
	for _, s := range secs {
		if len(s.Hunks) == 0 {
			return nil, fmt.Errorf("[%s#%s] has no hunks", s.Path, s.Tag)
		}
	}
	return secs, nil
}

func closeHunk(h *Hunk) error {
	if h != nil && h.Kind == "insert" && len(h.Body) == 0 {
		return fmt.Errorf("line %d: an insert needs at least one + line", h.Line)
	}
	return nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// ApplyHunks applies a section to text (LF) after checking its tag. Every
// line number refers to text as given; overlapping ranges are an error.
// The final-newline state of text is kept.
func ApplyHunks(path, text string, s Section) (string, error) {
	if tag := FileTag(text); tag != s.Tag {
		return "", fmt.Errorf("%s changed since it was read (tag %s, the patch has %s). Read it again and use the new [%s#%s] header and line numbers.", path, tag, s.Tag, path, tag)
	}
	final := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	hs := append([]Hunk(nil), s.Hunks...)
	for i := range hs {
		if hs[i].Tail {
			hs[i].A, hs[i].B = len(lines)+1, len(lines)
		}
		if hs[i].B > len(lines) {
			return "", fmt.Errorf("line %d of the patch: line %d does not exist (%s has %d lines)", hs[i].Line, hs[i].B, path, len(lines))
		}
		if hs[i].Kind == "insert" && hs[i].A > len(lines)+1 {
			return "", fmt.Errorf("line %d of the patch: line %d does not exist (%s has %d lines)", hs[i].Line, hs[i].A, path, len(lines))
		}
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].A < hs[j].A })
	for i := 1; i < len(hs); i++ {
		if hs[i].A <= hs[i-1].B {
			return "", fmt.Errorf("line %d of the patch: lines %d..%d overlap an earlier hunk", hs[i].Line, hs[i].A, hs[i].B)
		}
	}
	var out []string
	prev := 0
	for _, h := range hs {
		out = append(out, lines[prev:h.A-1]...)
		if h.Kind != "delete" {
			out = append(out, h.Body...)
		}
		prev = h.B
		if h.Kind == "insert" {
			prev = h.A - 1
		}
	}
	out = append(out, lines[prev:]...)
	res := strings.Join(out, "\n")
	if final && len(out) > 0 || text == "" && len(out) > 0 {
		res += "\n"
	}
	if res == text {
		return "", fmt.Errorf("No changes made to %s. The edits produced identical content.", path)
	}
	return res, nil
}

const (
	p1 uint32 = 2654435761
	p2 uint32 = 2246822519
	p3 uint32 = 3266489917
	p4 uint32 = 668265263
	p5 uint32 = 374761393
)

// xxh32 is xxHash32 (the reference's tag hash).
func xxh32(b []byte, seed uint32) uint32 {
	n := len(b)
	var h uint32
	if n >= 16 {
		v1, v2, v3, v4 := seed+p1+p2, seed+p2, seed, seed-p1
		for len(b) >= 16 {
			v1 = bits.RotateLeft32(v1+binary.LittleEndian.Uint32(b[0:])*p2, 13) * p1
			v2 = bits.RotateLeft32(v2+binary.LittleEndian.Uint32(b[4:])*p2, 13) * p1
			v3 = bits.RotateLeft32(v3+binary.LittleEndian.Uint32(b[8:])*p2, 13) * p1
			v4 = bits.RotateLeft32(v4+binary.LittleEndian.Uint32(b[12:])*p2, 13) * p1
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + p5
	}
	h += uint32(n)
	for len(b) >= 4 {
		h = bits.RotateLeft32(h+binary.LittleEndian.Uint32(b)*p3, 17) * p4
		b = b[4:]
	}
	for _, c := range b {
		h = bits.RotateLeft32(h+uint32(c)*p5, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}

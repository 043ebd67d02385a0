package edit

import (
	"fmt"
	"strings"
)

// The Codex apply_patch envelope:
//
//	Patch  := "*** Begin Patch" LF FileOp+ "*** End Patch" [LF]
//	FileOp := "*** Add File: " path LF ("+" text LF)+
//	        | "*** Delete File: " path LF
//	        | "*** Update File: " path LF ["*** Move to: " path LF] Change
//	Change := (("@@" | "@@ " text) LF | (" "|"-"|"+") text LF)+ ["*** End of File" LF]

// Op is the kind of one file operation of a patch.
type Op string

const (
	OpAdd    Op = "add"
	OpDelete Op = "delete"
	OpUpdate Op = "update"
)

// FileOp is one file operation of a patch.
type FileOp struct {
	Op     Op
	Path   string
	MoveTo string  // update only: the new path, "" to stay
	Text   string  // add only: the new file's content
	Chunks []Chunk // update only
}

// Chunk is one @@ section of an update: the context line after "@@" (may
// be empty), and the old and new lines it replaces.
type Chunk struct {
	Context   string
	Old, New  []string
	Kinds     string // one of ' ', '-', '+' per change line, in order
	EndOfFile bool
}

// with is the replacement for the matched old lines: the patch's added
// lines, and the file's own text for context lines (so a context line
// that matched only after trimming keeps the file's indentation).
func (c Chunk) with(matched []string) []string {
	out := make([]string, 0, len(c.New))
	oi, ni := 0, 0
	for _, k := range c.Kinds {
		switch k {
		case ' ':
			if oi < len(matched) {
				out = append(out, matched[oi])
			} else {
				out = append(out, c.New[ni])
			}
			oi++
			ni++
		case '-':
			oi++
		case '+':
			out = append(out, c.New[ni])
			ni++
		}
	}
	return out
}

// ParsePatch parses a Codex patch. A heredoc wrapper (<<EOF … EOF) is
// stripped first, as the reference's lenient mode does.
func ParsePatch(patch string) ([]FileOp, error) {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(patch, "\r\n", "\n")), "\n")
	if len(lines) >= 2 {
		first := strings.TrimSpace(lines[0])
		if (first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"`) && strings.TrimSpace(lines[len(lines)-1]) == "EOF" {
			lines = lines[1 : len(lines)-1]
		}
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "*** Begin Patch" {
		return nil, fmt.Errorf("The first line of the patch must be '*** Begin Patch'")
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return nil, fmt.Errorf("The last line of the patch must be '*** End Patch'")
	}
	body := lines[1 : len(lines)-1]
	var ops []FileOp
	for i := 0; i < len(body); {
		l := strings.TrimSpace(body[i])
		switch {
		case l == "":
			i++
		case strings.HasPrefix(l, "*** Add File: "):
			op := FileOp{Op: OpAdd, Path: strings.TrimPrefix(l, "*** Add File: ")}
			var sb strings.Builder
			for i++; i < len(body) && strings.HasPrefix(body[i], "+"); i++ {
				sb.WriteString(body[i][1:])
				sb.WriteByte('\n')
			}
			op.Text = sb.String()
			ops = append(ops, op)
		case strings.HasPrefix(l, "*** Delete File: "):
			ops = append(ops, FileOp{Op: OpDelete, Path: strings.TrimPrefix(l, "*** Delete File: ")})
			i++
		case strings.HasPrefix(l, "*** Update File: "):
			op := FileOp{Op: OpUpdate, Path: strings.TrimPrefix(l, "*** Update File: ")}
			i++
			if i < len(body) && strings.HasPrefix(strings.TrimSpace(body[i]), "*** Move to: ") {
				op.MoveTo = strings.TrimPrefix(strings.TrimSpace(body[i]), "*** Move to: ")
				i++
			}
			n, err := parseChunks(body[i:], &op)
			if err != nil {
				return nil, err
			}
			i += n
			if len(op.Chunks) == 0 {
				return nil, fmt.Errorf("Update file hunk for path '%s' is empty", op.Path)
			}
			ops = append(ops, op)
		default:
			return nil, fmt.Errorf("'%s' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", l)
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("No files were modified.")
	}
	return ops, nil
}

// parseChunks reads the change lines of an update up to the next file
// header; it returns how many lines it used.
func parseChunks(lines []string, op *FileOp) (int, error) {
	var cur *Chunk
	i := 0
	for ; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "*** ") && t != "*** End of File" {
			break
		}
		switch {
		case t == "*** End of File":
			if cur == nil {
				return 0, fmt.Errorf("Update hunk does not contain any lines")
			}
			cur.EndOfFile = true
		case t == "@@" || strings.HasPrefix(t, "@@ "):
			op.Chunks = append(op.Chunks, Chunk{Context: strings.TrimSpace(strings.TrimPrefix(t, "@@"))})
			cur = &op.Chunks[len(op.Chunks)-1]
		case l == "":
			// A blank line inside an update is a separator (or an empty
			// context line, which the matcher's trim passes tolerate).
			if cur != nil && (len(cur.Old) > 0 || len(cur.New) > 0) {
				cur.Old, cur.New, cur.Kinds = append(cur.Old, ""), append(cur.New, ""), cur.Kinds+" "
			}
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if cur == nil {
				if len(op.Chunks) > 0 {
					return 0, fmt.Errorf("Expected update hunk to start with a @@ context marker, got: '%s'", l)
				}
				op.Chunks = append(op.Chunks, Chunk{})
				cur = &op.Chunks[0]
			}
			cur.Kinds += l[:1]
			switch l[0] {
			case ' ':
				cur.Old, cur.New = append(cur.Old, l[1:]), append(cur.New, l[1:])
			case '-':
				cur.Old = append(cur.Old, l[1:])
			case '+':
				cur.New = append(cur.New, l[1:])
			}
		default:
			if cur == nil {
				return 0, fmt.Errorf("Expected update hunk to start with a @@ context marker, got: '%s'", l)
			}
			return 0, fmt.Errorf("Unexpected line found in update hunk: '%s'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", l)
		}
	}
	for _, c := range op.Chunks {
		if len(c.Old) == 0 && len(c.New) == 0 && c.Context == "" {
			return 0, fmt.Errorf("Update hunk does not contain any lines")
		}
	}
	return i, nil
}

// ApplyChunks applies an update's chunks to text (LF) and returns the new
// text, which always ends with exactly one newline as in the reference.
// Lines are found with Codex's seek_sequence: exact, then right-trimmed,
// then trimmed, then trimmed with Unicode punctuation folded; chunks must
// appear in file order.
func ApplyChunks(path, text string, chunks []Chunk) (string, error) {
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	type repl struct {
		start, n int
		with     []string
	}
	var repls []repl
	at := 0
	for _, c := range chunks {
		if c.Context != "" {
			i := seek(lines, []string{c.Context}, at, false)
			if i < 0 {
				return "", fmt.Errorf("Failed to find context '%s' in %s", c.Context, path)
			}
			at = i + 1
		}
		if len(c.Old) == 0 {
			// Pure insertion: at the end of the file.
			repls = append(repls, repl{len(lines), 0, c.New})
			continue
		}
		old := c.Old
		i := seek(lines, old, at, c.EndOfFile)
		if i < 0 && len(old) > 0 && old[len(old)-1] == "" && strings.HasSuffix(c.Kinds, " ") {
			// A trailing blank separator line is not part of the match.
			old = old[:len(old)-1]
			c.Old, c.New, c.Kinds = old, c.New[:len(c.New)-1], c.Kinds[:len(c.Kinds)-1]
			i = seek(lines, old, at, c.EndOfFile)
		}
		if i < 0 {
			return "", fmt.Errorf("Failed to find expected lines in %s:\n%s", path, strings.Join(c.Old, "\n"))
		}
		repls = append(repls, repl{i, len(old), c.with(lines[i : i+len(old)])})
		at = i + len(old)
	}
	var out []string
	prev := 0
	for _, r := range repls {
		out = append(out, lines[prev:r.start]...)
		out = append(out, r.with...)
		prev = r.start + r.n
	}
	out = append(out, lines[prev:]...)
	return strings.Join(out, "\n") + "\n", nil
}

// seek finds pattern in lines at or after start (preferring the end of the
// file when eof), in four passes of increasing leniency.
func seek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) > len(lines) {
		return -1
	}
	passes := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
		func(s string) string { return foldPunct(strings.TrimSpace(s)) },
	}
	for _, norm := range passes {
		if eof {
			if i := len(lines) - len(pattern); i >= start && matchAt(lines, pattern, i, norm) {
				return i
			}
		}
		for i := start; i+len(pattern) <= len(lines); i++ {
			if matchAt(lines, pattern, i, norm) {
				return i
			}
		}
	}
	return -1
}

func matchAt(lines, pattern []string, i int, norm func(string) string) bool {
	for j, p := range pattern {
		if norm(lines[i+j]) != norm(p) {
			return false
		}
	}
	return true
}

// foldPunct maps typographic dashes, quotes and spaces to ASCII, as
// Codex's seek_sequence does in its last pass.
func foldPunct(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x2010 && r <= 0x2015, r == 0x2212:
			return '-'
		case r >= 0x2018 && r <= 0x201B:
			return '\''
		case r >= 0x201C && r <= 0x201F:
			return '"'
		case r == 0xA0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			return ' '
		}
		return r
	}, s)
}

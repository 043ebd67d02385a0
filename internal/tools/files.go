package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/grepfs"
	"github.com/agentutils/agentutils/lib/edit"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/humantime"
)

const (
	maxBytes    = 50 * 1024 // DEFAULT_MAX_BYTES
	maxLines    = 3000      // read's line budget
	dirLimit    = 500
	findLimit   = 1000
	maxImage    = 20 << 20
	maxHashline = 4 << 20 // larger files get no version tag and are not line-editable
	sniffLength = 8000
)

func readTool() Tool {
	return Tool{
		Def: def("read", "Read a file with line numbers (offset is the 1-indexed first line, limit the number of lines), list a directory, or read an image. Long output is truncated with a notice saying how to continue.",
			`{"type":"object","properties":{"path":{"type":"string","description":"file or directory; a path: relative to the working directory, ~ is home; confined by --root"},"offset":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct {
				Path          string
				Offset, Limit int
			}
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			fsys, p, _, err := env.at(a.Path)
			if err != nil {
				return event.ToolOutput{}, err
			}
			st, err := fsys.Stat(p)
			if err != nil {
				return event.ToolOutput{}, fmt.Errorf("File not found: %s", a.Path)
			}
			if st.IsDir() {
				limit := a.Limit
				if limit <= 0 {
					limit = dirLimit
				}
				return listDir(fsys, p, limit, env.Now())
			}
			f, err := fsys.Open(p)
			if err != nil {
				return event.ToolOutput{}, err
			}
			defer f.Close()
			head := make([]byte, sniffLength)
			n, _ := io.ReadFull(f, head)
			head = head[:n]
			if mime := imageType(head); mime != "" {
				if st.Size() > maxImage {
					return event.ToolOutput{}, fmt.Errorf("Image file too large: %s exceeds 20.0MB limit.", event.FormatBytes(int(st.Size())))
				}
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					return event.ToolOutput{}, err
				}
				data, err := io.ReadAll(f)
				if err != nil {
					return event.ToolOutput{}, err
				}
				return event.ToolOutput{Content: []event.Content{event.Text("Read image file [" + mime + "]"),
					{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}}}, nil
			}
			if bytes.IndexByte(head, 0) >= 0 {
				return event.ToolOutput{}, fmt.Errorf("Cannot read %s: it is a binary file (%s).", a.Path, event.FormatBytes(int(st.Size())))
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return event.ToolOutput{}, err
			}
			if strings.HasSuffix(a.Path, ".ipynb") && a.Offset == 0 && a.Limit == 0 {
				if out, ok := readNotebook(f, a.Path); ok {
					return out, nil
				}
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					return event.ToolOutput{}, err
				}
			}
			if env.EditMode == "hashline" && st.Size() <= maxHashline {
				// Hashline display: the file's version tag in a header and
				// bare-numbered lines, the anchors the hashline edit takes.
				raw, err := io.ReadAll(f)
				if err != nil {
					return event.ToolOutput{}, err
				}
				lf := edit.Parse(string(raw)).Text
				out, err := readLines(strings.NewReader(lf), a.Offset, a.Limit, true)
				if err == nil && len(out.Content) > 0 {
					out.Content[0].Text = "[" + a.Path + "#" + edit.FileTag(lf) + "]\n" + out.Content[0].Text
				}
				return out, err
			}
			return readLines(f, a.Offset, a.Limit, false)
		},
	}
}

// countLines counts the lines left in br: newlines, plus a last line
// that has none.
func countLines(br *bufio.Reader) (int, error) {
	buf := make([]byte, 256<<10)
	n, last := 0, byte('\n')
	for {
		k, err := br.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// nextLine reads one line (without its \n or \r\n); its text only when
// keep. empty says the line had no bytes at all.
func nextLine(br *bufio.Reader, keep bool) (line string, empty bool, err error) {
	var buf []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if keep {
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if keep {
			buf = bytes.TrimSuffix(buf, []byte("\n"))
			buf = bytes.TrimSuffix(buf, []byte("\r"))
			line = string(buf)
		}
		return line, n == 0, err
	}
}

// readLines streams a text file and returns the selected lines numbered,
// within the line and byte budgets, never holding more than that in memory.
func readLines(r io.Reader, offset, limit int, hashline bool) (event.ToolOutput, error) {
	start := 0
	if offset > 0 {
		start = offset - 1
	}
	want := maxLines
	if limit > 0 && limit < want {
		want = limit
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var lines []string
	total, size, byBytes, firstTooLong := 0, 0, false, -1
	for {
		// Lines outside the page are only counted: read without copying.
		keep := total >= start && len(lines) < want && !byBytes
		if !keep && total > start {
			// The page is full: only the total is left to find.
			n, err := countLines(br)
			if err != nil {
				return event.ToolOutput{}, err
			}
			total += n
			break
		}
		line, empty, err := nextLine(br, keep)
		if err != nil && err != io.EOF {
			return event.ToolOutput{}, err
		}
		eof := err == io.EOF
		if eof && empty && total > 0 {
			break // the newline that ends the last line starts no new one
		}
		i := total
		total++
		if i >= start && len(lines) < want && !byBytes {
			add := len(line) + 1
			if size+add > maxBytes {
				if len(lines) == 0 {
					firstTooLong = i
					cut := line[:maxBytes]
					for !utf8.ValidString(cut) && len(cut) > 0 {
						cut = cut[:len(cut)-1]
					}
					lines = append(lines, cut)
				}
				byBytes = true
			} else {
				lines = append(lines, line)
				size += add
			}
		}
		if eof {
			break
		}
	}
	if total == 0 || (total == 1 && len(lines) == 1 && lines[0] == "" && start == 0) {
		return text("The file is empty."), nil
	}
	if start >= total {
		return text(fmt.Sprintf("Offset %d is beyond end of file (%d lines total). Use offset=1 to read from the start, or offset=%d to read the last line.", offset, total, total)), nil
	}
	if firstTooLong >= 0 {
		return text(fmt.Sprintf("%s\n\n[Line %d is %s, exceeds %s limit. Showing a prefix.]", lines[0], firstTooLong+1, "longer", event.FormatBytes(maxBytes))), nil
	}
	last := start + len(lines)
	width := len(fmt.Sprint(last))
	var b strings.Builder
	for k, l := range lines {
		if hashline {
			fmt.Fprintf(&b, "%d:%s\n", start+k+1, l)
		} else {
			fmt.Fprintf(&b, "%*d|%s\n", width, start+k+1, l)
		}
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if last < total {
		limitNote := ""
		if byBytes {
			limitNote = " (" + event.FormatBytes(maxBytes) + " limit)"
		}
		out += fmt.Sprintf("\n\n[Showing lines %d-%d of %d%s. Use offset=%d to continue]", start+1, last, total, limitNote, last+1)
	}
	return event.ToolOutput{Content: []event.Content{event.Text(out)},
		Details: details(map[string]any{"startLine": start + 1, "endLine": last, "totalLines": total})}, nil
}

func listDir(fsys FS, p string, limit int, now time.Time) (event.ToolOutput, error) {
	d, err := fsys.Open(p)
	if err != nil {
		return event.ToolOutput{}, err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return event.ToolOutput{}, err
	}
	sort.Slice(ents, func(i, j int) bool { return strings.ToLower(ents[i].Name()) < strings.ToLower(ents[j].Name()) })
	var b strings.Builder
	n := 0
	for _, e := range ents {
		if n >= limit {
			break
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		fmt.Fprintf(&b, "%s (%s)\n", name, humantime.Ago(now.Sub(info.ModTime())))
		n++
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if n == 0 {
		out = "(empty directory)"
	}
	if len(ents) >= limit && len(ents) > n || len(ents) == limit {
		out += fmt.Sprintf("\n\n[%d results limit reached. Use limit=%d for more]", limit, limit*2)
	}
	return text(out), nil
}

func writeTool() Tool {
	return Tool{
		Def: def("write", "Create or overwrite a file with the given content (parent directories are created). An existing file keeps its line endings and byte-order mark.",
			`{"type":"object","properties":{"path":{"type":"string","description":"a path: relative to the working directory, ~ is home; confined by --root"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct{ Path, Content string }
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			fsys, p, abs, err := env.at(a.Path)
			if err != nil {
				return event.ToolOutput{}, err
			}
			content := a.Content
			old, rerr := fsys.ReadFile(p)
			if rerr == nil {
				content = edit.Parse(string(old)).Render(edit.Parse(content).Text)
			}
			saveUndo(env, abs, old, rerr == nil)
			if err := atomicfile.WriteFS(fsys, p, []byte(content), 0o644); err != nil {
				return event.ToolOutput{}, err
			}
			return text(fmt.Sprintf("Successfully wrote %d bytes to %s", len(content), a.Path)), nil
		},
	}
}

func editTool() Tool {
	return Tool{
		Def: def("edit", "Replace old_text with new_text in a file. old_text must match the file (whitespace differences and small typos are tolerated when the match is unambiguous); set all to replace every occurrence. Returns a diff.",
			`{"type":"object","properties":{"path":{"type":"string","description":"a path: relative to the working directory, ~ is home; confined by --root"},"old_text":{"type":"string"},"new_text":{"type":"string"},"all":{"type":"boolean"}},"required":["path","old_text","new_text"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct {
				Path    string
				OldText string `json:"old_text"`
				NewText string `json:"new_text"`
				All     bool
			}
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			fsys, p, abs, raw, err := env.readForEdit(a.Path)
			if err != nil {
				return event.ToolOutput{}, err
			}
			f := edit.Parse(string(raw))
			res, err := edit.Replace(env.rel(abs), f.Text, a.OldText, a.NewText, a.All, true, 0)
			if err != nil {
				return event.ToolOutput{}, err
			}
			saveUndo(env, abs, raw, true)
			if err := atomicfile.WriteFS(fsys, p, []byte(f.Render(res.Text)), 0o644); err != nil {
				return event.ToolOutput{}, err
			}
			msg := fmt.Sprintf("Successfully replaced text in %s.", a.Path)
			if res.Count > 1 {
				msg = fmt.Sprintf("Successfully replaced %d occurrences in %s.", res.Count, a.Path)
			}
			return event.ToolOutput{Content: []event.Content{event.Text(msg)},
				Details: details(map[string]any{"diff": res.Diff, "firstChangedLine": res.FirstChangedLine})}, nil
		},
	}
}

func lsTool() Tool {
	return Tool{
		Def: def("ls", "List a directory (default: the working directory), directories marked with /, dotfiles included.",
			`{"type":"object","properties":{"path":{"type":"string","description":"a path: relative to the working directory, ~ is home; confined by --root"},"limit":{"type":"integer","minimum":1}},"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct {
				Path  string
				Limit int
			}
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			if a.Path == "" {
				a.Path = "."
			}
			if a.Limit <= 0 {
				a.Limit = dirLimit
			}
			fsys, p, abs, err := env.at(a.Path)
			if err != nil {
				return event.ToolOutput{}, err
			}
			st, err := fsys.Stat(p)
			if err != nil {
				return event.ToolOutput{}, fmt.Errorf("Path not found: %s", abs)
			}
			if !st.IsDir() {
				return event.ToolOutput{}, fmt.Errorf("Not a directory: %s", abs)
			}
			return listDir(fsys, p, a.Limit, env.Now())
		},
	}
}

func findTool() Tool {
	return Tool{
		Def: def("find", "Find files by glob pattern (for example **/*.go or src/**/test_*.py), newest first. .git and node_modules are skipped.",
			`{"type":"object","properties":{"pattern":{"type":"string","description":"glob; the part before its first glob segment is a path: relative to the working directory, ~ is home; confined by --root"},"hidden":{"type":"boolean"},"limit":{"type":"integer","minimum":1}},"required":["pattern"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			a := struct {
				Pattern string
				Hidden  *bool
				Limit   int
			}{}
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			if a.Limit <= 0 {
				a.Limit = findLimit
			}
			hidden := a.Hidden == nil || *a.Hidden
			base, glob := splitGlob(strings.TrimSpace(a.Pattern))
			fsys, name, root, err := env.at(base)
			if err != nil {
				return event.ToolOutput{}, err
			}
			if root == "/" {
				return event.ToolOutput{}, errors.New("Searching from root directory '/' is not allowed")
			}
			st, err := fsys.Stat(name)
			if err != nil {
				return event.ToolOutput{}, fmt.Errorf("Path not found: %s", root)
			}
			if !st.IsDir() {
				return event.ToolOutput{}, fmt.Errorf("Path is not a directory: %s", root)
			}
			type hit struct {
				path string
				mod  time.Time
			}
			var hits []hit
			skipNM := !strings.Contains(a.Pattern, "node_modules")
			// lib/grep's walker: .gitignore and friends as git applies them;
			// when that finds nothing, once more without ignore files.
			for _, noIgnore := range []bool{false, true} {
				files, _ := grepfs.Walk(root, ignore.WalkOptions{Hidden: hidden, NoIgnore: noIgnore, SkipGitDir: true, FilterGlobs: []string{glob}})
				for _, f := range files {
					if ctx.Err() != nil {
						return event.ToolOutput{}, ctx.Err()
					}
					if skipNM && strings.Contains("/"+filepath.ToSlash(f.Abs)+"/", "/node_modules/") {
						continue
					}
					var mod time.Time
					if info, err := os.Stat(f.Abs); err == nil {
						mod = info.ModTime()
					}
					hits = append(hits, hit{env.rel(f.Abs), mod})
				}
				if len(hits) > 0 {
					break
				}
			}
			if len(hits) == 0 {
				return text("No files found matching pattern"), nil
			}
			sort.SliceStable(hits, func(i, j int) bool {
				if !hits[i].mod.Equal(hits[j].mod) {
					return hits[i].mod.After(hits[j].mod)
				}
				return hits[i].path < hits[j].path
			})
			var b strings.Builder
			for i, h := range hits {
				if i == a.Limit {
					break
				}
				b.WriteString(h.path + "\n")
			}
			out := strings.TrimSuffix(b.String(), "\n")
			if len(hits) >= a.Limit {
				out += fmt.Sprintf("\n\n[%d results limit reached. Use limit=%d for more]", a.Limit, a.Limit*2)
			}
			return text(out), nil
		},
	}
}

// splitGlob splits a find pattern at its first segment with glob
// characters: the prefix is the base directory, the rest the glob (with
// **/ in front when the glob starts at the first segment).
func splitGlob(p string) (base, glob string) {
	segs := strings.Split(filepath.ToSlash(p), "/")
	for i, s := range segs {
		if strings.ContainsAny(s, "*?[{") {
			base = strings.Join(segs[:i], "/")
			glob = strings.Join(segs[i:], "/")
			if i == 0 && !strings.HasPrefix(glob, "**/") {
				glob = "**/" + glob
			}
			if base == "" {
				base = "."
			}
			return base, glob
		}
	}
	return p, "**/*"
}

// imageType is the MIME type of an image file from its first bytes, or "":
// the image signatures of the WHATWG sniffing table, exactly those that
// net/http.DetectContentType knows (which would link all of net/http and
// crypto/tls into agent-tool for one table).
func imageType(head []byte) string {
	for _, sig := range imageSigs {
		if len(head) < len(sig.pat) {
			continue
		}
		ok := true
		for i, p := range []byte(sig.pat) {
			if sig.mask != "" {
				p &= sig.mask[i]
				if head[i]&sig.mask[i] != p {
					ok = false
					break
				}
			} else if head[i] != p {
				ok = false
				break
			}
		}
		if ok {
			return sig.mime
		}
	}
	return ""
}

var imageSigs = []struct{ pat, mask, mime string }{
	{"\x00\x00\x01\x00", "", "image/x-icon"},
	{"\x00\x00\x02\x00", "", "image/x-icon"},
	{"BM", "", "image/bmp"},
	{"GIF87a", "", "image/gif"},
	{"GIF89a", "", "image/gif"},
	{"RIFF\x00\x00\x00\x00WEBPVP", "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF\xFF\xFF", "image/webp"},
	{"\x89PNG\x0D\x0A\x1A\x0A", "", "image/png"},
	{"\xFF\xD8\xFF", "", "image/jpeg"},
}

package commit

import (
	"bufio"
	"bytes"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
)

// FileDiff is one file of a unified git diff.
type FileDiff struct {
	Path      string `json:"path"`               // the new path (b/ side); the old one for deletions
	OldPath   string `json:"old_path,omitempty"` // set for renames and copies
	Status    string `json:"status"`             // added, deleted, modified, renamed, copied
	Binary    bool   `json:"binary,omitempty"`
	Header    string `json:"-"` // the lines before the first hunk (as kept, see Truncated)
	Hunks     []Hunk `json:"hunks,omitempty"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	// Truncated is set when the parser kept only part of the file's text
	// (ParseDiffReader's limits); counts, hunk headers and spans are whole.
	Truncated bool `json:"truncated,omitempty"`
	// Off and Size are the byte span of the file's section in the diff, and
	// HeaderSize the span of its header: patches are cut from the diff by
	// these, not from the kept text.
	Off        int64 `json:"-"`
	Size       int64 `json:"-"`
	HeaderSize int64 `json:"-"`
}

// Hunk is one @@ block; Index is 0-based within its file.
type Hunk struct {
	Index    int    `json:"index"`
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Content  string `json:"-"` // the header line plus its lines (as kept)
	Off      int64  `json:"-"` // byte span of the hunk in the diff, newline included
	Size     int64  `json:"-"`
}

var (
	diffGitRe  = lazyRe(`^diff --git (?:"?a/)(.+?)"? (?:"?b/)(.+?)"?$`)
	hunkHeadRe = lazyRe(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
)

// ParseDiffReader splits `git diff` output into files and hunks. Renames,
// copies, new and deleted files, mode changes and binary files are
// recognised; C-quoted paths are unquoted. Memory is bounded: it keeps at
// most keepFile bytes of each file's text and keepTotal bytes in all
// (negative: no limit, all of the text), and marks files it cut as Truncated. Line counts,
// hunk headers and byte spans always cover the whole diff.
func ParseDiffReader(r io.Reader, keepFile, keepTotal int) ([]FileDiff, error) {
	p := &diffParser{keepFile: keepFile, keepTotal: keepTotal}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			p.line(chunk)
		}
		for err == bufio.ErrBufferFull { // a very long line: the rest only counts
			chunk, err = br.ReadSlice('\n')
			p.more(chunk)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	p.at = p.off
	p.endFile()
	for i := range p.files {
		f := &p.files[i]
		if f.Status == "deleted" && f.OldPath != "" {
			f.Path = f.OldPath
		}
		if f.Status != "renamed" && f.Status != "copied" {
			f.OldPath = ""
		}
	}
	return p.files, nil
}

type diffParser struct {
	files               []FileDiff
	off                 int64 // bytes read
	at                  int64 // where the current line starts: the end of what it closes
	keepFile, keepTotal int
	kept, fileKept      int
	hunk                *strings.Builder // nil outside a hunk
}

func (p *diffParser) cur() *FileDiff {
	if len(p.files) == 0 {
		return nil
	}
	return &p.files[len(p.files)-1]
}

// keep reports whether n more bytes of text may be kept, and marks the
// file truncated when not.
func (p *diffParser) keep(n int) bool {
	if p.cur().Truncated {
		return false
	}
	if (p.keepFile >= 0 && p.fileKept+n > p.keepFile) || (p.keepTotal >= 0 && p.kept+n > p.keepTotal) {
		p.cur().Truncated = true
		return false
	}
	p.fileKept += n
	p.kept += n
	return true
}

func (p *diffParser) endHunk() {
	f := p.cur()
	if f == nil || p.hunk == nil {
		return
	}
	h := &f.Hunks[len(f.Hunks)-1]
	h.Content = strings.TrimSuffix(p.hunk.String(), "\n")
	h.Size = p.at - h.Off
	p.hunk = nil
}

func (p *diffParser) endFile() {
	p.endHunk()
	if f := p.cur(); f != nil {
		f.Size = p.at - f.Off
		if len(f.Hunks) == 0 {
			f.HeaderSize = f.Size
		}
	}
}

func (p *diffParser) line(b []byte) {
	start := p.off
	p.at = start
	p.off += int64(len(b))
	if bytes.HasPrefix(b, []byte("diff --git ")) {
		p.endFile()
		p.files = append(p.files, FileDiff{Status: "modified", Off: start})
		p.fileKept = 0
		f := p.cur()
		l := string(b)
		p.keep(len(l))
		f.Header = l
		if g := diffGitRe().FindStringSubmatch(strings.TrimSuffix(l, "\n")); g != nil {
			f.OldPath, f.Path = unquote(g[1]), unquote(g[2])
		}
		return
	}
	f := p.cur()
	if f == nil {
		return
	}
	if p.hunk == nil && !bytes.HasPrefix(b, []byte("@@")) {
		line := strings.TrimSuffix(string(b), "\n")
		switch {
		case strings.HasPrefix(line, "new file mode"):
			f.Status = "added"
		case strings.HasPrefix(line, "deleted file mode"):
			f.Status = "deleted"
		case strings.HasPrefix(line, "rename from "):
			f.Status, f.OldPath = "renamed", unquote(line[len("rename from "):])
		case strings.HasPrefix(line, "rename to "):
			f.Path = unquote(line[len("rename to "):])
		case strings.HasPrefix(line, "copy from "):
			f.Status, f.OldPath = "copied", unquote(line[len("copy from "):])
		case strings.HasPrefix(line, "copy to "):
			f.Path = unquote(line[len("copy to "):])
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			f.Binary = true
		}
		if !f.Truncated && p.keep(len(b)) {
			f.Header += string(b)
		}
		return
	}
	if bytes.HasPrefix(b, []byte("@@")) {
		if len(f.Hunks) == 0 {
			f.HeaderSize = start - f.Off
		}
		p.endHunk()
		h := Hunk{Index: len(f.Hunks), Off: start}
		if g := hunkHeadRe().FindSubmatch(b); g != nil {
			h.OldStart, h.OldLines = atoi(string(g[1]), 0), atoi(string(g[2]), 1)
			h.NewStart, h.NewLines = atoi(string(g[3]), 0), atoi(string(g[4]), 1)
		}
		f.Hunks = append(f.Hunks, h)
		p.hunk = &strings.Builder{}
		if p.keep(len(b)) {
			p.hunk.Write(b)
		}
		return
	}
	switch b[0] {
	case '+':
		f.Additions++
	case '-':
		f.Deletions++
	}
	if !f.Truncated && p.keep(len(b)) {
		p.hunk.Write(b)
	}
}

// more is the continuation of a line longer than the read buffer.
func (p *diffParser) more(b []byte) {
	p.off += int64(len(b))
	f := p.cur()
	if f == nil || f.Truncated || !p.keep(len(b)) {
		return
	}
	if p.hunk != nil {
		p.hunk.Write(b)
	} else {
		f.Header += string(b)
	}
}

// Span is a byte range of the captured diff.
type Span struct {
	Off int64 `json:"off"`
	Len int64 `json:"len"`
}

// SpanReader reads the spans of src one after the other: a patch cut from
// the captured diff without holding it in memory.
func SpanReader(src io.ReaderAt, spans []Span) io.Reader {
	rs := make([]io.Reader, len(spans))
	for i, s := range spans {
		rs[i] = io.NewSectionReader(src, s.Off, s.Len)
	}
	return io.MultiReader(rs...)
}

func atoi(s string, def int) int {
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// unquote undoes git's C-quoting of paths with special characters.
func unquote(p string) string {
	if strings.HasPrefix(p, `"`) {
		if s, err := strconv.Unquote(p); err == nil {
			return s
		}
	}
	return p
}

// NumstatEntry is one line of `git diff --numstat`.
type NumstatEntry struct {
	Path      string `json:"path"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Binary    bool   `json:"binary,omitempty"`
}

var braceRenameRe = lazyRe(`^(.*)\{(.*) => (.*)\}(.*)$`)

// ParseNumstat reads `git diff --numstat`. Rename notation becomes the new
// path, keeping the suffix after the brace (src/{a => b}/x.go → src/b/x.go,
// the reference's bug fixed); binary counts ("-") are 0.
func ParseNumstat(out string) []NumstatEntry {
	var es []NumstatEntry
	for _, l := range strings.Split(out, "\n") {
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 {
			continue
		}
		e := NumstatEntry{Path: RenamedPath(f[2]), Binary: f[0] == "-"}
		e.Additions, _ = strconv.Atoi(f[0])
		e.Deletions, _ = strconv.Atoi(f[1])
		es = append(es, e)
	}
	return es
}

// RenamedPath resolves numstat's rename notation to the new path.
func RenamedPath(p string) string {
	if g := braceRenameRe().FindStringSubmatch(p); g != nil {
		return path.Clean(g[1] + g[3] + g[4])
	}
	if old, nw, ok := strings.Cut(p, " => "); ok && old != "" {
		return nw
	}
	return p
}

// lockFiles is the one exclusion list (the reference's lists A and B),
// matched on the basename.
var lockFiles = setOf(`cargo.lock package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml shrinkwrap.yaml
bun.lock bun.lockb deno.lock composer.lock gemfile.lock poetry.lock pipfile.lock pdm.lock uv.lock go.sum flake.lock
pubspec.lock podfile.lock packages.resolved mix.lock packages.lock.json config.yml.lock config.yaml.lock
settings.yml.lock settings.yaml.lock gradle.lockfile`)

var lockSuffixes = []string{".lock.yml", ".lock.yaml", "-lock.yml", "-lock.yaml"}

// Excluded reports whether a path is a lock file hidden from analysis (it is
// still committed).
func Excluded(p string) bool {
	b := strings.ToLower(path.Base(p))
	if lockFiles[b] {
		return true
	}
	for _, s := range lockSuffixes {
		if strings.HasSuffix(b, s) {
			return true
		}
	}
	return false
}

var (
	placeholderSegs = setOf("src lib bin crates benches examples internal pkg include tests test docs packages modules")
	skipSegs        = setOf("test tests benches examples target build node_modules .github")
)

// ScopeCandidate is a component a change touches, with its share of the
// changed lines.
type ScopeCandidate struct {
	Scope      string  `json:"scope"`
	Percent    float64 `json:"percent"`
	Confidence float64 `json:"confidence"`
	High       bool    `json:"high"`
}

// Scopes is the reference's scope-candidate algorithm (commit.md §2.5) as
// data: candidates sorted by confidence, whether the change is wide, and
// the cross-cutting pattern of a wide change ("" when none applies).
func Scopes(entries []NumstatEntry) (cands []ScopeCandidate, wide bool, pattern string) {
	total := 0
	roots := map[string]bool{}
	comp := map[string]int{}
	var paths []string
	for _, e := range entries {
		lines := e.Additions + e.Deletions
		if lines == 0 || Excluded(e.Path) {
			continue
		}
		total += lines
		paths = append(paths, e.Path)
		segs := strings.Split(e.Path, "/")
		if len(segs) == 1 {
			if !strings.HasPrefix(segs[0], ".") {
				roots["(root)"] = true
			}
		} else {
			for i, s := range segs {
				if i < len(segs)-1 && placeholderSegs[s] {
					continue
				}
				if !skipSegs[s] && !strings.HasPrefix(s, ".") {
					roots[s] = true
				}
				break
			}
		}
		var kept []string
		for i, s := range segs {
			last := i == len(segs)-1
			if (placeholderSegs[s] && !last) || strings.Index(s, ".") > 0 || skipSegs[s] || strings.HasPrefix(s, ".") {
				continue
			}
			kept = append(kept, s)
		}
		if len(kept) > 0 {
			comp[kept[0]] += lines
			if len(kept) >= 2 {
				comp[kept[0]+"/"+kept[1]] += lines
			}
		}
	}
	if total == 0 {
		return nil, false, ""
	}
	for c, n := range comp {
		first, _, _ := strings.Cut(c, "/")
		if placeholderSegs[c] || placeholderSegs[first] {
			continue
		}
		pct := float64(n) / float64(total) * 100
		sc := ScopeCandidate{Scope: c, Percent: pct, Confidence: pct, High: true}
		if strings.Contains(c, "/") {
			if pct > 60 {
				sc.Confidence = pct * 1.2
			} else {
				sc.Confidence, sc.High = pct*0.8, false
			}
		}
		cands = append(cands, sc)
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].Confidence != cands[j].Confidence {
			return cands[i].Confidence > cands[j].Confidence
		}
		return cands[i].Scope < cands[j].Scope
	})
	wide = len(roots) >= 3 || (len(cands) > 0 && cands[0].Percent < 60)
	if wide {
		pattern = widePattern(paths)
	}
	return cands, wide, pattern
}

func widePattern(paths []string) string {
	share := func(f func(string) bool) float64 {
		n := 0
		for _, p := range paths {
			if f(p) {
				n++
			}
		}
		return float64(n) / float64(len(paths))
	}
	has := func(subs ...string) func(string) bool {
		return func(p string) bool {
			for _, s := range subs {
				if strings.Contains(p, s) {
					return true
				}
			}
			return false
		}
	}
	switch {
	case share(has("Cargo.toml", "package.json")) > 0:
		return "deps"
	case share(func(p string) bool { return strings.HasSuffix(p, ".md") }) > 0.7:
		return "docs"
	case share(has("/test", "_test.")) > 0.6:
		return "tests"
	case share(has("error", "result", "err")) > 0.4:
		return "error-handling"
	case share(has("type", "struct", "enum")) > 0.4:
		return "type-refactor"
	case share(func(p string) bool {
		for _, s := range []string{".toml", ".yaml", ".yml", ".json"} {
			if strings.HasSuffix(p, s) {
				return true
			}
		}
		return false
	}) > 0.5:
		return "config"
	}
	return ""
}

package commit

import (
	"path"
	"regexp"
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
	Header    string `json:"-"` // the lines before the first hunk
	Hunks     []Hunk `json:"hunks,omitempty"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

// Hunk is one @@ block; Index is 0-based within its file.
type Hunk struct {
	Index    int    `json:"index"`
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Content  string `json:"-"` // the header line plus its lines
}

var (
	diffGitRe  = regexp.MustCompile(`^diff --git (?:"?a/)(.+?)"? (?:"?b/)(.+?)"?$`)
	hunkHeadRe = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
)

// ParseDiff splits `git diff` output into files and hunks. Renames, copies,
// new and deleted files, mode changes and binary files are recognised;
// C-quoted paths are unquoted.
func ParseDiff(diff string) []FileDiff {
	var files []FileDiff
	var cur *FileDiff
	var hunk *strings.Builder
	flush := func() {
		if cur != nil && hunk != nil {
			cur.Hunks[len(cur.Hunks)-1].Content = strings.TrimSuffix(hunk.String(), "\n")
		}
		hunk = nil
	}
	for _, l := range strings.SplitAfter(diff, "\n") {
		line := strings.TrimSuffix(l, "\n")
		if strings.HasPrefix(line, "diff --git ") {
			flush()
			files = append(files, FileDiff{Status: "modified"})
			cur = &files[len(files)-1]
			cur.Header = l
			if g := diffGitRe.FindStringSubmatch(line); g != nil {
				cur.OldPath, cur.Path = unquote(g[1]), unquote(g[2])
			}
			continue
		}
		if cur == nil {
			continue
		}
		if hunk == nil && !strings.HasPrefix(line, "@@") {
			cur.Header += l
			switch {
			case strings.HasPrefix(line, "new file mode"):
				cur.Status = "added"
			case strings.HasPrefix(line, "deleted file mode"):
				cur.Status = "deleted"
			case strings.HasPrefix(line, "rename from "):
				cur.Status, cur.OldPath = "renamed", unquote(line[len("rename from "):])
			case strings.HasPrefix(line, "rename to "):
				cur.Path = unquote(line[len("rename to "):])
			case strings.HasPrefix(line, "copy from "):
				cur.Status, cur.OldPath = "copied", unquote(line[len("copy from "):])
			case strings.HasPrefix(line, "copy to "):
				cur.Path = unquote(line[len("copy to "):])
			case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
				cur.Binary = true
			}
			continue
		}
		if strings.HasPrefix(line, "@@") {
			flush()
			h := Hunk{Index: len(cur.Hunks)}
			if g := hunkHeadRe.FindStringSubmatch(line); g != nil {
				h.OldStart, h.OldLines = atoi(g[1], 0), atoi(g[2], 1)
				h.NewStart, h.NewLines = atoi(g[3], 0), atoi(g[4], 1)
			}
			cur.Hunks = append(cur.Hunks, h)
			hunk = &strings.Builder{}
			hunk.WriteString(l)
			continue
		}
		hunk.WriteString(l)
		switch {
		case strings.HasPrefix(line, "+"):
			cur.Additions++
		case strings.HasPrefix(line, "-"):
			cur.Deletions++
		}
	}
	flush()
	for i := range files {
		f := &files[i]
		if f.Status == "deleted" && f.OldPath != "" {
			f.Path = f.OldPath
		}
		if f.Status != "renamed" && f.Status != "copied" {
			f.OldPath = ""
		}
	}
	return files
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

var braceRenameRe = regexp.MustCompile(`^(.*)\{(.*) => (.*)\}(.*)$`)

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
	if g := braceRenameRe.FindStringSubmatch(p); g != nil {
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

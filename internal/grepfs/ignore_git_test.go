package grepfs

import (
	"bytes"
	"fmt"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestIgnoreMatchesGit compares our ignore decisions with real git's
// (`git check-ignore`) on generated trees with random .gitignore files
// (nested, negations, directory-only and anchored patterns, "**",
// escapes), a core.excludesFile and .git/info/exclude, for several seeds.
// A path counts as ignored when it or one of its directories is, since
// neither git nor a walk looks inside an ignored directory.
func TestIgnoreMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	seeds := 60
	if testing.Short() {
		seeds = 8
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { compareWithGit(t, int64(seed)) })
	}
}

var (
	ignoreNames = []string{"a", "b", "ab", "ba", "abc", "x.log", "y.log", "a.txt", "b.txt", "build", "out", ".h", ".hid", "d e", "#c", "!n", "a[1]"}
	ignoreParts = []string{"a", "b", "ab", "*", "?", "a*", "*b", "[ab]", "[!a]*", "*.log", "*.txt", "build", "out", ".h*", "**", "x.log", "d e", "\\#c", "\\!n", "a\\[1]", "[a-b]?", "[[:alpha:]]*"}
)

func randomPattern(r *rand.Rand) string {
	var b strings.Builder
	switch r.Intn(10) {
	case 0:
		b.WriteString("!")
	case 1:
		b.WriteString("/")
	}
	n := 1 + r.Intn(3)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString("/")
		}
		b.WriteString(ignoreParts[r.Intn(len(ignoreParts))])
	}
	switch r.Intn(8) {
	case 0:
		b.WriteString("/")
	case 1:
		b.WriteString("/**")
	case 2:
		b.WriteString(" ") // trailing space: dropped
	case 3:
		b.WriteString("\\ ") // escaped trailing space: kept
	}
	return b.String()
}

func randomIgnoreFile(r *rand.Rand) string {
	var lines []string
	for i := 0; i < 2+r.Intn(8); i++ {
		switch r.Intn(12) {
		case 0:
			lines = append(lines, "# a comment")
		case 1:
			lines = append(lines, "")
		default:
			lines = append(lines, randomPattern(r))
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func compareWithGit(t *testing.T, seed int64) {
	r := rand.New(rand.NewSource(seed))
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1")
	git := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = root, env
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		return out.String(), err
	}
	os.MkdirAll(root, 0o755)
	if _, err := git("", "init", "-q"); err != nil {
		t.Fatal(err)
	}
	// the tree: directories up to three deep, files in each
	var paths []string // relative; directories end in "/"
	var mk func(dir string, depth int)
	mk = func(dir string, depth int) {
		for i := 0; i < 4+r.Intn(8); i++ {
			name := ignoreNames[r.Intn(len(ignoreNames))]
			rel := filepath.Join(dir, name)
			if _, err := os.Lstat(filepath.Join(root, rel)); err == nil {
				continue
			}
			if depth < 3 && r.Intn(3) == 0 {
				os.MkdirAll(filepath.Join(root, rel), 0o755)
				paths = append(paths, rel+"/")
				mk(rel, depth+1)
				continue
			}
			os.WriteFile(filepath.Join(root, rel), []byte("x\n"), 0o644)
			paths = append(paths, rel)
		}
		if r.Intn(3) > 0 {
			os.WriteFile(filepath.Join(root, dir, ".gitignore"), []byte(randomIgnoreFile(r)), 0o644)
		}
	}
	mk("", 0)
	if r.Intn(2) == 0 {
		os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte(randomIgnoreFile(r)), 0o644)
	}
	global := ""
	if r.Intn(2) == 0 {
		global = filepath.Join(home, "excludes")
		os.WriteFile(global, []byte(randomIgnoreFile(r)), 0o644)
		if _, err := git("", "config", "--global", "core.excludesFile", global); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(paths)

	// git's answers, one path a line
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(strings.TrimSuffix(p, "/") + "\n")
	}
	out, err := git(in.String(), "check-ignore", "--stdin")
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		t.Fatalf("git check-ignore: %v", err)
	}
	gitSays := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" {
			gitSays[l] = true
		}
	}
	// ours, through the walker's rules
	rules := ignore.NewFilter(ignore.WalkOptions{Hidden: true, GlobalIgnore: global}, ignoreFS)
	levels := map[string]*ignore.IgnoreLevel{"": rules.Level(rules.Parents(root), root, nil)}
	var levelOf func(dir string) *ignore.IgnoreLevel
	levelOf = func(dir string) *ignore.IgnoreLevel {
		if l, ok := levels[dir]; ok {
			return l
		}
		parent := filepath.Dir(dir)
		if parent == "." {
			parent = ""
		}
		l := rules.Level(levelOf(parent), filepath.Join(root, dir), nil)
		levels[dir] = l
		return l
	}
	oursSays := map[string]bool{}
	for _, p := range paths {
		isDir := strings.HasSuffix(p, "/")
		rel := strings.TrimSuffix(p, "/")
		dir := filepath.Dir(rel)
		if dir == "." {
			dir = ""
		}
		if rules.Skip(levelOf(dir), filepath.Join(root, rel), rel, filepath.Base(rel), isDir) { // Hidden: only the ignore files decide
			oursSays[rel] = true
		}
	}
	effective := func(says map[string]bool, rel string) bool {
		for p := rel; p != "." && p != ""; p = filepath.Dir(p) {
			if says[p] {
				return true
			}
		}
		return false
	}
	t.Logf("seed %d: %d paths, git ignores %d (its own or a parent's pattern), our rules %d (own patterns only)", seed, len(paths), len(gitSays), len(oursSays))
	var diffs []string
	walkWant := map[string]bool{}
	for _, p := range paths {
		rel := strings.TrimSuffix(p, "/")
		g, o := effective(gitSays, rel), effective(oursSays, rel)
		if g != o {
			diffs = append(diffs, fmt.Sprintf("%s: git ignored=%v, ours=%v", p, g, o))
		}
		if !g && !strings.HasSuffix(p, "/") {
			walkWant[rel] = true
		}
	}
	if len(diffs) > 0 {
		var ig strings.Builder
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && (info.Name() == ".gitignore" || info.Name() == "exclude") {
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&ig, "--- %s\n%s", strings.TrimPrefix(p, root), data)
			}
			return nil
		})
		if global != "" {
			data, _ := os.ReadFile(global)
			fmt.Fprintf(&ig, "--- core.excludesFile\n%s", data)
		}
		t.Fatalf("seed %d: %d disagreements with git:\n%s\nignore files:\n%s", seed, len(diffs), strings.Join(diffs, "\n"), ig.String())
	}
	// and the walk lists exactly the files git does not ignore
	o := ignore.WalkOptions{Hidden: true, SkipGitDir: true, GlobalIgnore: global}
	files, errs := Walk(root, o)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[string]bool{}
	for _, f := range files {
		rel := strings.TrimPrefix(f.Path, root+"/")
		if filepath.Base(rel) == ".gitignore" {
			continue
		}
		got[rel] = true
	}
	for p := range walkWant {
		if filepath.Base(p) == ".gitignore" {
			continue
		}
		if !got[p] {
			t.Errorf("seed %d: walk misses %s", seed, p)
		}
	}
	for p := range got {
		if !walkWant[p] {
			t.Errorf("seed %d: walk lists %s, which git ignores", seed, p)
		}
	}
}

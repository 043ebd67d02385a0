package commit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `# Changelog

Some prose.

## [Unreleased]

Intro text kept.

### Added

- First thing
  wrapped onto a second line
* star bullet

### Internal

- unknown section stays

## [1.0.0] - 2026-01-01

### Fixed

- old fix
`

func TestParseUnreleased(t *testing.T) {
	u, err := ParseUnreleased(sample)
	if err != nil {
		t.Fatal(err)
	}
	want := Unreleased{Start: 4, End: 18, Sections: []Section{
		{Name: "Added", Items: []string{"First thing wrapped onto a second line", "star bullet"}},
		{Name: "Internal", Items: []string{"unknown section stays"}},
	}}
	if d := cmp.Diff(want, u); d != "" {
		t.Error(d)
	}
	if _, err := ParseUnreleased("# x\n## [1.0.0]\n"); err != ErrNoUnreleased {
		t.Errorf("err = %v", err)
	}
}

func TestMerge(t *testing.T) {
	got, err := Merge(sample, map[string][]string{
		"Added":   {"New thing", "first thing wrapped onto a second line"},
		"Fixed":   {"A fix"},
		"Changed": {"A change"},
	}, map[string][]string{"Internal": {"Unknown section stays"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Changelog

Some prose.

## [Unreleased]

Intro text kept.

### Added

- First thing
  wrapped onto a second line
* star bullet
- New thing

### Internal

### Changed

- A change

### Fixed

- A fix

## [1.0.0] - 2026-01-01

### Fixed

- old fix
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Merge (-want +got):\n%s", d)
	}
}

func TestMergeCreate(t *testing.T) {
	if _, err := Merge("# Changelog\n", map[string][]string{"Added": {"x"}}, nil, false); err != ErrNoUnreleased {
		t.Fatalf("err = %v", err)
	}
	got, err := Merge("# Changelog\n\n## [1.0.0]\n\n- old\n", map[string][]string{"Added": {"x"}}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- x\n\n## [1.0.0]\n\n- old\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func FuzzChangelog(f *testing.F) {
	f.Add(sample, "Added", "x")
	f.Add("## Unreleased\n### Fixed\n- a", "Fixed", "b")
	f.Fuzz(func(t *testing.T, text, cat, item string) {
		u, err := ParseUnreleased(text)
		if err != nil {
			return
		}
		out, err := Merge(text, map[string][]string{cat: {item}}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		// Nothing outside [Unreleased] changes, and no line is lost.
		lines := strings.Split(text, "\n")
		if !strings.HasPrefix(out, strings.Join(lines[:u.Start+1], "\n")) {
			t.Fatalf("prefix changed")
		}
		if !strings.HasSuffix(out, strings.Join(lines[u.End:], "\n")) {
			t.Fatalf("suffix changed")
		}
		if len(strings.Split(out, "\n")) < len(lines) {
			t.Fatalf("lines lost")
		}
	})
}

func TestChangelogTargets(t *testing.T) {
	tracked := map[string]bool{"CHANGELOG.md": true, "pkg/x/CHANGELOG.md": true}
	got := ChangelogTargets([]string{"pkg/x/y/z.go", "pkg/a.go", "README.md", "pkg/x/CHANGELOG.md", "docs/changelog.md"},
		func(p string) bool { return tracked[p] })
	want := []ChangelogTarget{{Path: "CHANGELOG.md", Files: []string{"pkg/a.go", "README.md"}}, {Path: "pkg/x/CHANGELOG.md", Files: []string{"pkg/x/y/z.go"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	if p := CheckChangelog(map[string]map[string][]string{"CHANGELOG.md": {"Misc": {"x"}}, "other.md": {}}, want); p !=
		"changelog: missing the entry for pkg/x/CHANGELOG.md (use {} when nothing is user-visible)\nchangelog: not expected: other.md\nchangelog: unknown category for CHANGELOG.md: Misc (use one of Breaking Changes, Added, Changed, Deprecated, Removed, Fixed, Security)" {
		t.Errorf("CheckChangelog = %q", p)
	}
}

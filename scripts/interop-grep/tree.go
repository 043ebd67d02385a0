package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/peerdiff"
)

// compress writes dst, src compressed by the command (gzip -c, zstd -q -c:
// rg -z runs the same commands to read it back).
func compress(dir, src, dst string, argv ...string) error {
	cmd := exec.Command(argv[0], append(argv[1:], src)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	return os.WriteFile(filepath.Join(dir, dst), out, 0o644)
}

// edgeTree writes the edge-case tree in t: nested .gitignore files with
// negations, dir-only and anchored patterns, hidden, binary, CRLF,
// non-UTF-8, long lines, empty files, unicode, compressed files.
func edgeTree(t string) error {
	if err := os.MkdirAll(t, 0o755); err != nil {
		return err
	}
	if err := peerdiff.Git(t, "init", "-q", "."); err != nil {
		return err
	}
	err := peerdiff.WriteTree(t, map[string]string{
		"src/main.go":         "package main\n\nfunc main() {\n\tfmt.Println(\"Hello, World\")\n\t// TODO: more\n}\n",
		"src/sub/helper.go":   "package sub\n\n// todo lower\nfunc helper() int { return 42 }\nfunc HelperTwo() {}\n",
		"docs/README.md":      "# Title\n\nSome text with hello and HELLO.\nA TODO line.\nfoo bar baz\nfoo\nbar\n",
		"docs/x/y/gen.md":     "generated hello\n",
		"docs/x/y/keep.md":    "kept hello\n",
		"build/out.txt":       "generated hello\n",
		"sub/build/inner.txt": "a file named build is not a dir: hello\n",
		"src/build":           "hello from sub build file\n",
		".hidden/h.txt":       "secret hello\n",
		".hiddenrc":           "dotfile hello\n",
		"src/blob.bin":        "hello\x00binary\n",
		"src/late.bin":        "text first hello\nmore\n\x00\x01binary tail hello\n",
		"debug.log":           "hello log\n",
		"keep.log":            "hello kept log\n",
		"top.txt":             "anchored hello\n",
		"sub/top.txt":         "unanchored hello\n",
		"sub/a.tmp":           "tmp hello\n",
		"b.tmp":               "tmp hello\n",
		"sub/local1.txt":      "local hello\n",
		"sub/deep/local2.txt": "deep local hello\n",
		"sub/deep/x.txt":      "deep hello\n",
		"dotign.txt":          "ignored by .ignore hello\n",
		"rgign.txt":           "ignored by .rgignore hello\n",
		"g.globalign":         "global exclude hello\n",
		"info.excl":           "info exclude hello\n",
		"vendor/lib/v.go":     "vendored hello\n",
		"out/o.txt":           "out hello\n",
		"latin1.txt":          "caf\xe9 hello latin1\nplain line\n",
		"crlf.txt":            "crlf hello\r\nsecond line\r\nthird hello\r\n",
		"nonl.txt":            "no newline at end hello",
		"empty.txt":           "",
		"unicode.txt":         "naïve café hello\nÜnïcödé ΣΑΣ σας\nstraße STRASSE\n日本語 hello 世界\n",
		"long.txt":            "start " + strings.Repeat("x", 3000) + " hello end\nshort hello\n",
		"words.txt":           "alpha beta\nbeta gamma\ngamma delta\ndelta alpha\nalpha\n\n\nepsilon\n",
		"nofinal.crlf":        "cr foooo\ncr fo\r\ncr foo",
		"ctx.txt":             "x1\nx2\nx3\nmatch here\nx5\nx6\nx7\nx8\nmatch again\nx10\nx11\nmatch three\nx13\n",
		"meta.txt":            "foo(bar)\n[x]\na.b\na*b\n$HOME\n\\path\n",
		"zdata.txt":           "hello compressed\nbye\nhello twice\n",
		"pats.txt":            "hello\nTODO\n",
		// binary data past rg's first buffer fills (3 bytes, then 64 KiB)
		"bigbin/late-nul.dat":  peerdiff.Lines("row %05d ok\n", 1, 9000) + "\x00tail ok\n",
		"bigbin/early-nul.dat": peerdiff.Lines("row %05d ok\n", 1, 100) + "\x00tail ok\n",
		// -U and --mmap read whole: a NUL after the first 64 KiB is seen only in
		// the lines handed over (ulate/late.dat), one in them stops the search
		// (short lines: rg 13 keeps the buffer a long line grew for its thread's
		// next files, whose first read then holds more; README)
		"ulate/late.dat":    "foo\nbar\nfoo\nbar\n" + peerdiff.Lines("filler %05d\n", 1, 6000) + "\x00\nfoo\nbar\nfoo\nbar\n",
		"ulate/inmatch.dat": "foo\nbar\n" + peerdiff.Lines("filler %05d\n", 1, 6000) + "foo\x00\nbar\nfoo\nbar\n",
		"ulate/early.dat":   "foo\nbar\n\x00\nfoo\nbar\n",
		// text over rg's 64 KiB buffer (read through it when walked): -m with context
		"mtext/m.txt": peerdiff.Lines("entry %06d\n", 1, 20000),
		// -M measures (and previews, in graphemes) the line as printed: replaced with -r
		"wide.txt":  "foo bar foo baz foo\n\xe6\x97\xa5\xe6\x9c\xac hello \xe6\x97\xa5 foo\n  foo indented foo\ne\xcc\x81e\xcc\x81 foo\n",
		"Makefile":  "Makefile hello\n",
		"data.json": "{\"k\": \"hello\"}\n",
		"script.py": "print(\"hello\")\n",
		".gitignore": "# comment line\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/gen.md\n*.tmp\n" +
			"\\#notacomment\nout/*\n!out/o.txt\nvendor\n",
		"sub/.gitignore":      "!a.tmp\nlocal*\n",
		".ignore":             "dotign.txt\n",
		".rgignore":           "rgign.txt\n",
		".git/info/exclude":   "*.excl\n",
		"sub/deep/.gitignore": "x.txt\n",
	})
	if err != nil {
		return err
	}
	if err := compress(t, "zdata.txt", "z.txt.gz", "gzip", "-c"); err != nil {
		return err
	}
	if _, err := exec.LookPath("zstd"); err == nil {
		if err := compress(t, "zdata.txt", "z.txt.zst", "zstd", "-q", "-c"); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(t, "zdata.txt")); err != nil {
		return err
	}
	return spreadTimes(t)
}

// spreadTimes gives every file and directory but .git a distinct
// modification time, in an order unlike the names' (for --sort modified).
func spreadTimes(t string) error {
	var paths []string
	err := filepath.WalkDir(t, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(t, p)
		if rel == ".git" {
			return fs.SkipDir
		}
		if rel == "." {
			paths = append(paths, ".")
		} else {
			paths = append(paths, "./"+rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(paths) // find . | LC_ALL=C sort
	for i, p := range paths {
		mt := time.Unix(1700000000+int64((i+1)*7919%1000), 0)
		if err := os.Chtimes(filepath.Join(t, p), mt, mt); err != nil {
			return err
		}
	}
	return nil
}

// outerTrees writes what the checks use beside the tree: a tree outside any
// git repository (--no-require-git), an --ignore-file, a git worktree (the
// main repository's info/exclude through its commondir), and the files of
// the binary-with-context checks (cb/).
func outerTrees(dir string) error {
	err := peerdiff.WriteTree(dir, map[string]string{
		"nogit/.gitignore": "*.skip\n",
		"nogit/a.skip":     "hello\n",
		"nogit/sub/b.txt":  "hello\n",
		"extra.ign":        "*.md\n/src/\n!keep.log\n",
		"wtm/a.txt":        "hello\n",
		"cb/f":             "one\nfoo two\nthree\n\x00four\nfoo\n",
		"cb/b1":            "foo\x00\n",
		"cb/b2":            "foo\x00\n",
		"cb/t1":            "foo\n",
		"cb/big":           "foo\n" + peerdiff.Lines("filler %05d\n", 1, 6000) + "nul\x00here\nfoo end\n",
		"cb/f2":            "foo\nbar\n\x00\nfoo\nbar\n",
		"cb/big2":          "x\nfoo\n" + peerdiff.Lines("filler %05d\n", 1, 6000) + "a\nb\nfoo\x00x\nc\n",
	})
	if err != nil {
		return err
	}
	wtm := filepath.Join(dir, "wtm")
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"},
		{"worktree", "add", "-q", filepath.Join(dir, "wtw")}} {
		if err := peerdiff.Git(wtm, args...); err != nil {
			return err
		}
	}
	return peerdiff.WriteTree(dir, map[string]string{
		"wtm/.git/info/exclude": "*.log\n",
		"wtw/x.log":             "hello\n",
		"wtw/b.txt":             "hello\n",
	})
}

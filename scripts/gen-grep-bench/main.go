// Command gen-grep-bench writes the inputs of scripts/bench-agent-grep-text,
// the same bytes on every run (a seeded generator): mixed.txt, SIZE MB of
// Greek, Cyrillic and Latin-1 text with planted words (σοφία, straße,
// привет, ärger, the Kelvin sign); long.txt, lines of 10 MB; lits.txt,
// 5,000 literals; words.txt, a 20-word alternation; ignore/, a tree
// whose .gitignore holds 2,000 rules; and npm/, a project's node_modules:
// many small files in deep directories, with a .gitignore.
//
//	go run ./scripts/gen-grep-bench DIR [SIZE_MB]
package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gen-grep-bench DIR [SIZE_MB]")
		os.Exit(2)
	}
	dir, size := os.Args[1], 100
	if len(os.Args) > 2 {
		n, err := strconv.Atoi(os.Args[2])
		if err != nil || n <= 0 {
			fmt.Fprintln(os.Stderr, "gen-grep-bench: SIZE_MB must be a positive number")
			os.Exit(2)
		}
		size = n
	}
	if err := generate(dir, size); err != nil {
		fmt.Fprintln(os.Stderr, "gen-grep-bench:", err)
		os.Exit(1)
	}
}

// syllables of each script: words are two to four of one script.
var scripts = [][]string{
	strings.Fields("σο φι α λο γος κα ται νε ρο με τα πο λη θε ω ει"),
	strings.Fields("при вет мо ло ко да ни ра бо та ся зе мл я ки"),
	strings.Fields("über mä ßig ché ré na ïve ço ça ñan dú öl år æt"),
	strings.Fields("the re ad er wri ter func main go ing ment io on"),
}

var planted = []string{"σοφία", "ΣΟΦΊΑ", "straße", "STRASSE", "привет", "Привет", "ärger", "ÄRGER", "\u212Aelvin", "kelvin"}

func word(r *rand.Rand) string {
	s := scripts[r.IntN(len(scripts))]
	var b strings.Builder
	for n := 2 + r.IntN(3); n > 0; n-- {
		b.WriteString(s[r.IntN(len(s))])
	}
	return b.String()
}

func write(path string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func generate(dir string, sizeMB int) error {
	r := rand.New(rand.NewPCG(38, 1))
	if err := os.MkdirAll(filepath.Join(dir, "ignore"), 0o755); err != nil {
		return err
	}
	err := write(filepath.Join(dir, "mixed.txt"), func(w *bufio.Writer) error {
		for n := 0; n < sizeMB<<20; {
			var line []string
			for k := r.IntN(14); k >= 0; k-- {
				if r.IntN(400) == 0 {
					line = append(line, planted[r.IntN(len(planted))])
				} else {
					line = append(line, word(r))
				}
			}
			s := strings.Join(line, " ") + "\n"
			n += len(s)
			w.WriteString(s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = write(filepath.Join(dir, "long.txt"), func(w *bufio.Writer) error {
		for l := 0; l < 2; l++ {
			for n := 0; n < 10<<20; {
				s := word(r) + " "
				if r.IntN(50) == 0 {
					s = "ioWriter "
				}
				n += len(s)
				w.WriteString(s)
			}
			w.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	err = write(filepath.Join(dir, "lits.txt"), func(w *bufio.Writer) error {
		for len(seen) < 5000 {
			if s := word(r); !seen[s] {
				seen[s] = true
				fmt.Fprintln(w, s)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = write(filepath.Join(dir, "words.txt"), func(w *bufio.Writer) error {
		var ws []string
		for len(ws) < 20 {
			ws = append(ws, word(r))
		}
		fmt.Fprintln(w, strings.Join(ws, "|"))
		return nil
	})
	if err != nil {
		return err
	}
	if err := ignoreTree(r, filepath.Join(dir, "ignore")); err != nil {
		return err
	}
	return npmTree(rand.New(rand.NewPCG(38, 2)), filepath.Join(dir, "npm"))
}

// npmTree: a project whose node_modules holds 400 packages, each with
// package.json, README.md, index.js, lib/ and dist/ (a minified bundle
// and its source map), and under a quarter of them a node_modules of
// their own, three levels deep at most: about 9,400 files in 3,600 directories. The
// project's .gitignore leaves out the maps, coverage/ and .cache/ as
// such projects do.
func npmTree(r *rand.Rand, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.map\ncoverage/\n.cache/\n*.log\n!keep.log\n"), 0o644); err != nil {
		return err
	}
	for i := 0; i < 400; i++ {
		if err := npmPackage(r, filepath.Join(dir, "node_modules"), fmt.Sprintf("pkg%d", i), 0); err != nil {
			return err
		}
	}
	return nil
}

// npmPackage writes the package name under dir, depth levels of
// node_modules down.
func npmPackage(r *rand.Rand, dir, name string, depth int) error {
	p := filepath.Join(dir, name)
	for _, sub := range []string{"lib", "dist", "coverage"} {
		if err := os.MkdirAll(filepath.Join(p, sub), 0o755); err != nil {
			return err
		}
	}
	js := func(lines int) []byte {
		var b strings.Builder
		for k := 0; k < lines; k++ {
			fmt.Fprintf(&b, "  const %s = require('./%s'); // %s %s\n", word(r), word(r), word(r), word(r))
			if r.IntN(40) == 0 {
				b.WriteString("  module.exports.createElement = function createElement(type) { return type; };\n")
			}
		}
		return []byte("'use strict';\n" + b.String())
	}
	files := map[string][]byte{
		"package.json":       []byte(fmt.Sprintf("{\n  \"name\": %q,\n  \"version\": \"1.%d.0\",\n  \"main\": \"index.js\"\n}\n", name, r.IntN(20))),
		"README.md":          []byte("# " + name + "\n\n" + word(r) + " " + word(r) + "\n"),
		"index.js":           js(5 + r.IntN(30)),
		"dist/bundle.min.js": js(20 + r.IntN(60)),
		"dist/bundle.js.map": js(20),
		"coverage/lcov.info": []byte("SF:index.js\nend_of_record\n"),
	}
	for k := 0; k < 2+r.IntN(12); k++ {
		files[fmt.Sprintf("lib/%s%d.js", word(r), k)] = js(10 + r.IntN(80))
	}
	for f, body := range files {
		if err := os.WriteFile(filepath.Join(p, f), body, 0o644); err != nil {
			return err
		}
	}
	if depth < 3 && r.IntN(4) == 0 {
		for k := 0; k < 1+r.IntN(4); k++ {
			if err := npmPackage(r, filepath.Join(p, "node_modules"), fmt.Sprintf("%s-dep%d", name, k), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// ignoreTree: 2,000 rules (names, globs, directories, negations) over a
// tree of 40 directories of 50 files.
func ignoreTree(r *rand.Rand, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	err := write(filepath.Join(dir, ".gitignore"), func(w *bufio.Writer) error {
		for i := 0; i < 2000; i++ {
			switch i % 5 {
			case 0:
				fmt.Fprintf(w, "f%d_%d.txt\n", r.IntN(40), r.IntN(50))
			case 1:
				fmt.Fprintf(w, "*.x%d\n", i)
			case 2:
				fmt.Fprintf(w, "d%d/sub%d/\n", r.IntN(40), i)
			case 3:
				fmt.Fprintf(w, "**/gen%d_*.go\n", i)
			default:
				fmt.Fprintf(w, "!keep%d.txt\n", i)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for d := 0; d < 40; d++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		for f := 0; f < 50; f++ {
			body := fmt.Sprintf("%s needle %s\n%s\n", word(r), word(r), word(r))
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d_%d.txt", d, f)), []byte(body), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

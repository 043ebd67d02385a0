// Command gen-grep-bench writes the inputs of scripts/bench-agent-grep-text,
// the same bytes on every run (a seeded generator): mixed.txt, SIZE MB of
// Greek, Cyrillic and Latin-1 text with planted words (σοφία, straße,
// привет, ärger, the Kelvin sign); long.txt, lines of 10 MB; lits.txt,
// 5,000 literals; words.txt, a 20-word alternation; and ignore/, a tree
// whose .gitignore holds 2,000 rules.
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
	return ignoreTree(r, filepath.Join(dir, "ignore"))
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

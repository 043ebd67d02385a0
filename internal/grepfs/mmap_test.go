//go:build linux

package grepfs

import (
	"bytes"
	"context"
	"fmt"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mapFiles writes the shapes a mapped search must read as a read one
// does: NUL bytes early and late, CRLF, no final newline, an empty file,
// and lines longer than the map's window.
func mapFiles(t *testing.T, dir string) []string {
	text := bytes.NewBuffer(wordLines(rand.New(rand.NewSource(7)), 300<<10, nil))
	long := append([]byte(nil), text.Bytes()[:100<<10]...)
	long = append(long, bytes.Repeat([]byte("x needle y "), 20000)...) // 220 KB: past the window
	long = append(long, "\nafter the long line rare\n"...)
	long = append(long, text.Bytes()[100<<10:]...)
	late := append([]byte(nil), text.Bytes()...)
	copy(late[200<<10:], "zero\x00here needle\x00 rare\n")
	early := append([]byte(nil), text.Bytes()...)
	copy(early[500:], "nul\x00 needle\n")
	files := map[string][]byte{
		"text.txt": text.Bytes(), "late.txt": late, "early.txt": early, "long.txt": long, "empty.txt": nil,
		"crlf.txt": bytes.ReplaceAll(text.Bytes(), []byte("\n"), []byte("\r\n")),
		"nonl.txt": append(bytes.TrimRight(text.Bytes(), "\n"), " needle"...),
	}
	var names []string
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// collect is what a search emits, flattened to text: the parts' lines and
// output, and the final counts and binary fields.
func collect(m *regex.Matcher, files []ignore.File, o search.SearchOptions) string {
	var b strings.Builder
	Search(context.Background(), m, func(yield func(ignore.File) bool) {
		for _, f := range files {
			if !yield(f) {
				return
			}
		}
	}, o, 1, func(r search.FileResult) bool {
		fmt.Fprintf(&b, "%s more=%v err=%v\n", r.Path, r.More, r.Err)
		for _, l := range r.Lines {
			fmt.Fprintf(&b, "  %d %d %v %v %q %v\n", l.Number, l.Offset, l.Match, l.Gap, l.Text, l.Subs)
		}
		if !r.More {
			fmt.Fprintf(&b, "  matched=%d matches=%d searched=%d binary=%d from=%d quit=%v skipped=%v\n",
				r.MatchedLines, r.Matches, r.BytesSearched, r.BinaryOffset, r.BinaryFrom, r.BinaryQuit, r.Skipped)
		}
		return true
	})
	return b.String()
}

// TestMappedSameAsRead searches files in a memory map (a window smaller
// than some lines, so pages are dropped and mapped as the search goes)
// and requires what reading them gives, under rg's whole-file and
// buffered binary rules, named and walked.
func TestMappedSameAsRead(t *testing.T) {
	defer func(w int64) { mapWindow = w }(mapWindow)
	mapWindow = 64 << 10
	dir := t.TempDir()
	names := mapFiles(t, dir)
	opts := map[string][]search.SearchOptions{
		"needle": {{}, {Slice: true}, {SkipBinary: true}, {Text: true}, {Before: 2, After: 3}, {Slice: true, After: 1},
			{CountOnly: true}, {MaxCount: 3}, {SkipBinary: true, Slice: true, Before: 1}},
		".": {{}, {Slice: true}, {Invert: true, NoLineNumbers: true}},
	}
	for pat, sos := range opts {
		m := mustCompile(t, pat)
		for k, so := range sos {
			so.ChunkAbove, so.ChunkSize = 1, 64<<10
			for i, name := range names {
				if raceOn && (i+k)%2 == 1 {
					continue // under -race half the files of each option, in turn
				}
				for _, named := range []bool{true, false} {
					if raceOn && named != (i%4 < 2) {
						continue // and each once, named or walked in turn
					}
					f := ignore.File{Path: name, Abs: filepath.Join(dir, name), Named: named}
					fo, _ := search.FileOptions(so, named, false)
					read := collect(m, []ignore.File{f}, fo)
					fo.MapAbove = 1
					if mapped := collect(m, []ignore.File{f}, fo); mapped != read {
						t.Fatalf("%s %q %+v named=%v: mapped differs from read:\n%s", name, pat, so, named, firstLineDiff(read, mapped))
					}
				}
			}
		}
	}
}

func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\nread:   %.200s\nmapped: %.200s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}

// TestMappedTruncated truncates a file while its search reads it from a
// memory map: the pages past the new end fault, and the search ends with
// an error naming the file and the offset, not a crash; what came before
// stays.
func TestMappedTruncated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.txt")
	line := []byte("a line with a needle in it\n")
	if err := os.WriteFile(path, bytes.Repeat(line, (4<<20)/len(line)), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustCompile(t, "needle")
	so := search.SearchOptions{ChunkAbove: 1, ChunkSize: 64 << 10, MapAbove: 1}
	var parts, lines int
	var last search.FileResult
	files := func(yield func(ignore.File) bool) { yield(ignore.File{Path: "big.txt", Abs: path, Named: true}) }
	Search(context.Background(), m, files, so, 1, func(r search.FileResult) bool {
		if r.More {
			parts++
			lines += len(r.Lines)
			if parts == 1 {
				if err := os.Truncate(path, 4096); err != nil {
					t.Error(err)
				}
			}
		}
		last = r
		return true
	})
	if parts == 0 || lines == 0 {
		t.Fatalf("nothing came before the truncation: %d parts", parts)
	}
	if last.More || last.Err == nil || last.Path != "big.txt" {
		t.Fatalf("the last result is not the file's error: %+v", last)
	}
	if msg := last.Err.Error(); !strings.Contains(msg, "shrank") || !strings.Contains(msg, "past its end") {
		t.Fatalf("error %q", msg)
	}
	// the process goes on: another search of the file (now 4096 bytes)
	var after []search.FileResult
	Search(context.Background(), m, files, search.SearchOptions{ChunkAbove: 1, ChunkSize: 64 << 10, MapAbove: 1}, 1, func(r search.FileResult) bool {
		after = append(after, r)
		return true
	})
	if r := after[len(after)-1]; r.Err != nil || r.MatchedLines != 4096/len(line) {
		t.Fatalf("after the truncation: %+v", r)
	}
}

package printer

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"github.com/google/go-cmp/cmp"
)

// TestStreamSameOutput: the lines a search prints itself (SearchOptions.
// Format) are the lines the printer prints from Lines, byte for byte, in
// every format that streams, for whole files and for files in pieces, and
// with binary data (where the search goes back to Lines).
func TestStreamSameOutput(t *testing.T) {
	var text bytes.Buffer
	words := strings.Fields("alpha  beta gamma Needle needle café ünï x\t")
	for i := 1; text.Len() < 160<<10; i++ {
		fmt.Fprintf(&text, "%d", i)
		for k := 0; k < i%9; k++ {
			text.WriteString(" " + words[(i*7+k)%len(words)])
		}
		text.WriteByte('\n')
	}
	plain := text.Bytes()
	nonl := append(bytes.TrimRight(plain, "\n"), " needle"...)
	late := append([]byte(nil), plain...)
	copy(late[140<<10:], "zero\x00 needle\n")
	early := append([]byte(nil), plain...)
	copy(early[100:], "nul\x00 needle\n")
	inputs := map[string][]byte{"plain": plain, "nonl": nonl, "late": late, "early": early}
	sep := "--"
	prints := map[string]PrintOptions{
		"-n":          {Mode: "standard", LineNumbers: true},
		"plain":       {Mode: "standard"},
		"path --null": {Mode: "standard", Null: true, LineNumbers: true, WithFilename: ptr(true)},
		"path -n -b":  {Mode: "standard", LineNumbers: true, ByteOffset: true, WithFilename: ptr(true)},
		"--column":    {Mode: "standard", LineNumbers: true, Column: true},
		"-o":          {Mode: "standard", LineNumbers: true, Only: true},
		"colour":      {Mode: "standard", LineNumbers: true, Color: true, Colours: DefaultColours()},
		"--vimgrep":   {Mode: "vimgrep"},
		"--heading":   {Mode: "standard", Heading: true, WithFilename: ptr(true), LineNumbers: true, ContextSep: &sep},
		"-M --trim":   {Mode: "standard", MaxColumns: 20, Trim: true, Null: true, WithFilename: ptr(true)},
		"-M preview":  {Mode: "standard", MaxColumns: 20, Preview: true, Color: true, Colours: DefaultColours()},
		"-r":          {Mode: "standard", Replace: ptr("[$0]"), MatchSep: "=", LineNumbers: true},
		"separators":  {Mode: "standard", LineNumbers: true, MatchSep: "::", PathSep: "\\", WithFilename: ptr(true)},
		"context -n":  {Mode: "standard", LineNumbers: true, ContextSep: &sep, WithFilename: ptr(true), CtxField: "-"},
		"context -b":  {Mode: "standard", ByteOffset: true, ContextSep: ptr("@@"), CtxField: "~", Color: true, Colours: DefaultColours()},
	}
	for _, pat := range []string{"(?i)ne+dle|café", `\d+ x`, "^"} {
		m, err := regex.Compile(regex.MatchOptions{Patterns: []string{pat}})
		if err != nil {
			t.Fatal(err)
		}
		for pname, po := range prints {
			sos := []search.SearchOptions{{}, {ChunkAbove: 1, ChunkSize: 1}}
			if pat != "^" && (strings.HasPrefix(pname, "context") || pname == "colour" || pname == "--vimgrep" || pname == "-o") {
				// context and -v: searchContext prints its lines too
				sos = append(sos, search.SearchOptions{Before: 1, After: 1}, search.SearchOptions{Before: 3, Invert: true}, search.SearchOptions{Invert: true}, search.SearchOptions{Invert: true, ChunkAbove: 1, ChunkSize: 1 << 10}, search.SearchOptions{After: 2, ChunkAbove: 1, ChunkSize: 100 << 10})
			}
			if pname == "-n" { // the binary rules: whole files and pieces, read whole or buffered, named or walked
				sos = append(sos, search.SearchOptions{Slice: true}, search.SearchOptions{SkipBinary: true}, search.SearchOptions{ChunkAbove: 1, ChunkSize: 1, SkipBinary: true}, search.SearchOptions{ChunkAbove: 1, ChunkSize: 100 << 10, Slice: true})
			}
			for _, so := range sos {
				for iname, in := range inputs {
					name := fmt.Sprintf("%s %s %+v %s", pat, pname, so, iname)
					kept, streamed, n := printBoth(m, po, so, in)
					if kept != streamed {
						t.Errorf("%s: streamed output differs (-kept +streamed):\n%.3000s", name, cmp.Diff(strings.Split(kept, "\n"), strings.Split(streamed, "\n")))
					}
					if n == 0 && pname == "-n" && (iname == "plain" || iname == "nonl") && (so.ChunkAbove == 0 || so.Before+so.After == 0) {
						t.Errorf("%s: nothing streamed", name)
					}
				}
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// printBoth prints the search of in (as two files, a/x and b/y) with the
// lines kept and with them streamed, and counts the results that came
// streamed.
func printBoth(m *regex.Matcher, po PrintOptions, so search.SearchOptions, in []byte) (kept, streamed string, n int) {
	for _, stream := range []bool{false, true} {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		p := NewPrinter(po, m, w, true)
		so.Spans = p.SpanNeed()
		p.SetSearch(so)
		so.Format = nil
		if stream {
			so.Format = p.LineFormat()
		}
		for _, path := range []string{"a/x", "b/y"} {
			emit := func(r search.FileResult) bool {
				if r.Out != nil {
					n++
				}
				return p.File(p.Prepare(r), 0)
			}
			if so.ChunkAbove > 0 {
				data := bytes.Clone(in) // (a buffered read turns NULs into line ends)
				off := 0
				read := func(b []byte) (int, error) {
					k := copy(b, data[off:])
					off += k
					return k, nil
				}
				search.SearchChunked(m, path, read, so, nil, emit)
			} else {
				emit(search.SearchBuffer(m, path, in, so))
			}
		}
		p.Finish(Stats{}, 0, time.Duration(0))
		w.Flush()
		if stream {
			streamed = out.String()
		} else {
			kept = out.String()
		}
	}
	return kept, streamed, n
}

func TestAppendDecimal(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 4096, 12345, 99999, 100000, 1234567, 1<<31 - 1, 1 << 40} {
		if got, want := string(appendDecimal([]byte("x:"), n)), "x:"+strconv.Itoa(n); got != want {
			t.Errorf("appendDecimal(%d) = %q, want %q", n, got, want)
		}
	}
}

// The output buffers the printer gives back are the ones the next
// searches print into: a search printing many files allocates no new
// ones once it has as many as it holds at a time.
func TestOutBufsReuse(t *testing.T) {
	var ob outBufs
	sizes := []int{10, 1000, 1025, 5000, 70000, 300 << 10}
	for _, n := range sizes { // the first round makes them
		b := ob.get(n)
		if cap(b) < n || len(b) != 0 {
			t.Fatalf("get(%d): len %d cap %d", n, len(b), cap(b))
		}
		ob.put(append(b, make([]byte, n)...))
	}
	allocs := testing.AllocsPerRun(20, func() {
		for _, n := range sizes {
			ob.put(ob.get(n))
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a round, want none", allocs)
	}
	if big := ob.get(maxOut + 1); cap(big) < maxOut+1 {
		t.Fatalf("get(maxOut+1): cap %d", cap(big))
	}
}

// A search with context lines, or with colour, allocates per file, not
// per line or per match: its lines go straight into an output buffer the
// printer gives back (searchContext's scratch, the printer's appends).
func TestStreamAllocsPerFile(t *testing.T) {
	if raceOn {
		t.Skip("sync.Pool drops items at random under -race")
	}
	var text bytes.Buffer
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&text, "line %d with some e and more e\n", i)
		if i%5 == 0 {
			text.WriteString("nothing at all\n")
		}
	}
	in := text.Bytes()
	m, err := regex.Compile(regex.MatchOptions{Patterns: []string{"e"}})
	if err != nil {
		t.Fatal(err)
	}
	sep := "--"
	for name, c := range map[string]struct {
		po PrintOptions
		so search.SearchOptions
	}{
		"-C1":     {PrintOptions{Mode: "standard", LineNumbers: true, ContextSep: &sep, WithFilename: ptr(true)}, search.SearchOptions{Before: 1, After: 1}},
		"-v":      {PrintOptions{Mode: "standard", LineNumbers: true}, search.SearchOptions{Invert: true}},
		"--color": {PrintOptions{Mode: "standard", LineNumbers: true, Color: true, Colours: DefaultColours(), WithFilename: ptr(true)}, search.SearchOptions{}},
	} {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		p := NewPrinter(c.po, m, w, true)
		so := c.so
		so.Spans = p.SpanNeed()
		p.SetSearch(so)
		so.Format = p.LineFormat()
		if so.Format == nil {
			t.Fatalf("%s: no LineFormat", name)
		}
		run := func() {
			out.Reset()
			w.Reset(&out)
			if !p.File(search.SearchBuffer(m, "a/x", in, so), 0) {
				t.Fatalf("%s: stopped", name)
			}
			w.Flush()
		}
		run() // (the scratch and the output buffer made)
		if out.Len() < len(in)/10 {
			t.Fatalf("%s: printed %d bytes", name, out.Len())
		}
		if allocs := testing.AllocsPerRun(10, run); allocs > 16 {
			t.Errorf("%s: %v allocations a file of 2400 lines, want a few", name, allocs)
		}
	}
}

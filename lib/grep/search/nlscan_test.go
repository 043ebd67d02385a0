package search

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/google/go-cmp/cmp"
)

// nlScan and indexNUL against bytes.Count and bytes.IndexByte, with and without the
// AVX2 blocks, on lengths around the block sizes and NULs and newlines
// anywhere.
func TestNLScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	saved := hasAVX2
	defer func() { hasAVX2 = saved }()
	for _, wide := range []bool{false, saved} {
		hasAVX2 = wide
		for _, n := range []int{0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 4095, 4096, 4097, 255 * 64, 255*64 + 1, 256 * 64, 70000} {
			for round := 0; round < 20; round++ {
				p := randomLines(rng, n)
				if round%3 == 0 && n > 0 {
					p[rng.Intn(n)] = 0
				}
				if round%5 == 1 { // all newlines: the byte counters' limit
					for i := range p {
						p[i] = '\n'
					}
				}
				got, nul := nlScan(p)
				if want := bytes.Count(p, []byte{'\n'}); got != want {
					t.Fatalf("wide %v, len %d: %d newlines, want %d", wide, n, got, want)
				}
				if want := bytes.IndexByte(p, 0) >= 0; nul != want {
					t.Fatalf("wide %v, len %d: nul %v, want %v", wide, n, nul, want)
				}
				if got, want := indexNUL(p), bytes.IndexByte(p, 0); got != want {
					t.Fatalf("wide %v, len %d: indexNUL %d, want %d", wide, n, got, want)
				}
			}
		}
	}
}

// randomLines is n bytes of short lines, some with CRLF.
func randomLines(rng *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		switch r := rng.Intn(40); {
		case r == 0:
			p[i] = '\n'
		case r == 1:
			p[i] = '\r'
		default:
			p[i] = byte('a' + rng.Intn(26))
		}
	}
	return p
}

func FuzzNLScan(f *testing.F) {
	f.Add([]byte("a\nb\x00c\n"), 3)
	f.Fuzz(func(t *testing.T, p []byte, rep int) {
		for range rep % 200 {
			p = append(p, p...)
			if len(p) > 1<<16 {
				break
			}
		}
		got, nul := nlScan(p)
		if got != bytes.Count(p, []byte{'\n'}) || nul != (bytes.IndexByte(p, 0) >= 0) {
			t.Fatalf("nlScan(%q) = %d, %v", p, got, nul)
		}
		if got, want := indexNUL(p), bytes.IndexByte(p, 0); got != want {
			t.Fatalf("indexNUL(%q) = %d, want %d", p, got, want)
		}
	})
}

// lineIndex's look-ups give the newlines bytes.Count gives, across cuts.
func TestLineIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	file := randomLines(rng, 200000)
	var x lineIndex
	base := int64(0)
	buf := []byte(nil)
	off := int64(0)
	for off < int64(len(file)) {
		n := min(int64(1+rng.Intn(30000)), int64(len(file))-off)
		x.add(file[off:off+n], off, false)
		buf = append(buf, file[off:off+n]...)
		off += n
		// look-ups forward through what is held
		from := base
		for k := 0; k < 5; k++ {
			pos := from + int64(rng.Intn(int(off-from)+1))
			if got, want := x.lines(buf, base, pos), bytes.Count(file[:pos], []byte{'\n'}); got != want {
				t.Fatalf("lines(%d) = %d, want %d", pos, got, want)
			}
			x.cur = 0
			if cp, nls, ok := x.at(pos, from); ok {
				if cp > pos || cp <= from || nls != bytes.Count(file[:cp], []byte{'\n'}) {
					t.Fatalf("at(%d, %d) = %d, %d", pos, from, cp, nls)
				}
			}
			from = pos
		}
		cut := base + int64(rng.Intn(int(off-base)+1))
		x.cut(cut, bytes.Count(file[:cut], []byte{'\n'}))
		buf = buf[cut-base:]
		base = cut
	}
}

// naiveNotByteLines is byteLines with not, line by line.
func naiveNotByteLines(p []byte, b byte) (lines, total int) {
	for len(p) > 0 {
		end := bytes.IndexByte(p, '\n') + 1
		if end == 0 {
			end = len(p)
		}
		for _, c := range p[:end] {
			if c != b && c != '\n' {
				lines++
				break
			}
		}
		total++
		p = p[end:]
	}
	return lines, total
}

// naiveByteLines is byteLines line by line.
func naiveByteLines(p []byte, b byte) (lines, total int) {
	for len(p) > 0 {
		end := bytes.IndexByte(p, '\n') + 1
		if end == 0 {
			end = len(p)
		}
		if b != '\n' && bytes.IndexByte(p[:end], b) >= 0 {
			lines++
		}
		total++
		p = p[end:]
	}
	return lines, total
}

// byteLines against a count line by line, with and without the AVX2
// blocks: lines holding the byte many times, never, across the 64-byte
// rounds, lines longer than a round, no final newline, the byte '\n'.
func TestByteLines(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	saved := hasAVX2
	defer func() { hasAVX2 = saved }()
	for _, wide := range []bool{false, saved} {
		hasAVX2 = wide
		for _, n := range []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 200, 1000, 4096, 70001} {
			for round := 0; round < 30; round++ {
				p := randomLines(rng, n)
				if round%4 == 1 { // long lines
					p = bytes.ReplaceAll(p, []byte{'\n'}, []byte{'x'})
					for i := 0; i < n; i += 1 + rng.Intn(300) {
						p[i] = '\n'
					}
				}
				for _, b := range []byte{'a', 'q', 'x', '\n', 0} {
					gl, gt := byteLines(p, b, false)
					wl, wt := naiveByteLines(p, b)
					if gl != wl || gt != wt {
						t.Fatalf("wide %v, len %d, byte %q: %d of %d lines, want %d of %d (%q)", wide, n, b, gl, gt, wl, wt, p)
					}
					gl, gt = byteLines(p, b, true)
					wl, wt = naiveNotByteLines(p, b)
					if gl != wl || gt != wt {
						t.Fatalf("wide %v, len %d, not byte %q: %d of %d lines, want %d of %d (%q)", wide, n, b, gl, gt, wl, wt, p)
					}
				}
			}
		}
	}
}

func FuzzByteLines(f *testing.F) {
	f.Add([]byte("a\nbxc\n\nx"), byte('x'), 3)
	f.Fuzz(func(t *testing.T, p []byte, b byte, rep int) {
		for range rep % 100 {
			p = append(p, p...)
			if len(p) > 1<<14 {
				break
			}
		}
		gl, gt := byteLines(p, b, false)
		if wl, wt := naiveByteLines(p, b); gl != wl || gt != wt {
			t.Fatalf("byteLines(%q, %q) = %d, %d; want %d, %d", p, b, gl, gt, wl, wt)
		}
		gl, gt = byteLines(p, b, true)
		if wl, wt := naiveNotByteLines(p, b); gl != wl || gt != wt {
			t.Fatalf("byteLines(%q, %q, not) = %d, %d; want %d, %d", p, b, gl, gt, wl, wt)
		}
	})
}

// -c and -v -c of one byte (byteLines) and of . (dotLines) count as the
// search line by line (without AVX2) does, with binary data, invalid
// UTF-8 and without a final newline.
func TestSearchOneByteCount(t *testing.T) {
	saved := hasAVX2
	defer func() { hasAVX2 = saved }()
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 40; round++ {
		buf := randomLines(rng, 1+rng.Intn(5000))
		if round%5 == 0 {
			buf[rng.Intn(len(buf))] = 0
		}
		if round%2 == 1 { // lines of invalid UTF-8 alone, of valid non-ASCII, mixed
			for _, x := range []string{"\n\xff\xfe\n", "\né\n", "\n\xffa\n", "\n\xef\xbf\xbd\n", "\n\xe9\n", "\xff"} {
				i := rng.Intn(len(buf))
				buf = append(buf[:i], append([]byte(x), buf[i:]...)...)
			}
		}
		for _, pat := range []string{"e", "q", ",", "."} {
			m, err := regex.Compile(regex.MatchOptions{Patterns: []string{pat}})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []SearchOptions{{CountOnly: true, LinesOnly: true}, {CountOnly: true, LinesOnly: true, Invert: true},
				{CountOnly: true, LinesOnly: true, Slice: true}, {CountOnly: true, LinesOnly: true, Invert: true, SkipBinary: true}} {
				hasAVX2 = saved
				got := SearchBuffer(m, "f", bytes.Clone(buf), o)
				hasAVX2 = false
				want := SearchBuffer(m, "f", bytes.Clone(buf), o)
				got.Matches, want.Matches = 0, 0 // (LinesOnly: not counted)
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(FileResult{})); diff != "" {
					t.Fatalf("%q %+v: %s", pat, o, diff)
				}
			}
		}
	}
}

// lastNewline is bytes.LastIndexByte(b, '\n') on lengths around its
// blocks' sizes and newlines anywhere (or none).
func TestLastNewline(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, n := range []int{0, 1, 255, 256, 257, 767, 768, 769, 70000, 200000} {
		for range 20 {
			b := bytes.Repeat([]byte{'x'}, n)
			for k := rng.Intn(3); k > 0 && n > 0; k-- {
				b[rng.Intn(n)] = '\n'
			}
			if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
				t.Fatalf("len %d: lastNewline %d, LastIndexByte %d", n, got, want)
			}
		}
	}
}

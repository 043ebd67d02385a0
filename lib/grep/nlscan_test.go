package grep

import (
	"bytes"
	"math/rand"
	"testing"
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

package grep

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"iter"
	"runtime"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Search searches files in parallel (threads workers, 0: one per CPU) and
// calls emit with each result in the files' order, as soon as it and every
// result before it are ready. files is pulled in a goroutine of its own, so
// a walk (WalkFunc) runs alongside the search. emit returning false stops
// the search.
func Search(ctx context.Context, m *Matcher, files iter.Seq[File], o SearchOptions, threads int, emit func(FileResult) bool) {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	type job struct {
		f   File
		out chan FileResult
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, threads*8)
	// order carries each file's result channel in file order: the results
	// come back in any order, and are handed out in this one.
	order := make(chan chan FileResult, 4096)
	go func() {
		defer close(jobs)
		defer close(order)
		for f := range files {
			j := job{f, make(chan FileResult, 1)}
			select {
			case order <- j.out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := 0; w < threads; w++ {
		go func() {
			var buf []byte // reused: results keep copies of their lines only
			for j := range jobs {
				if ctx.Err() != nil {
					j.out <- FileResult{Path: j.f.Path, Err: ctx.Err(), BinaryOffset: -1}
					continue
				}
				data, err := readInto(buf, j.f.Abs, o.Decompress)
				if err != nil {
					j.out <- FileResult{Path: j.f.Path, Err: err, BinaryOffset: -1}
					continue
				}
				buf = data[:0]
				fo := o
				fo.SkipBinary = !j.f.Named
				r := SearchBuffer(m, j.f.Path, data, fo)
				copyLines(r.Lines)
				j.out <- r
			}
		}()
	}
	for out := range order {
		var r FileResult
		select {
		case r = <-out:
		case <-ctx.Done():
			return
		}
		if !emit(r) {
			return
		}
	}
}

// copyLines gives lines their own copies of their text (one allocation),
// so the read buffer can be reused for the next file.
func copyLines(lines []Line) {
	n := 0
	for _, l := range lines {
		n += len(l.Text)
	}
	all := make([]byte, 0, n)
	for k := range lines {
		s := len(all)
		all = append(all, lines[k].Text...)
		lines[k].Text = all[s:len(all):len(all)]
	}
}

// readInto reads a whole file into buf's storage (grown when needed),
// decompressed when asked and it is .gz or .zst.
func readInto(buf []byte, path string, decompress bool) ([]byte, error) {
	buf, err := readFile(buf, path)
	if err != nil {
		return nil, err
	}
	data := buf
	if !decompress {
		return data, nil
	}
	switch {
	case strings.HasSuffix(path, ".gz"):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	case strings.HasSuffix(path, ".zst"):
		zr, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return io.ReadAll(zr)
	}
	return data, nil
}

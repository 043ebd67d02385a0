package grep

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Search searches files in parallel (threads workers, 0: one per CPU) and
// calls emit with each result in the files' order, as soon as it and every
// result before it are ready. emit returning false stops the search.
func Search(ctx context.Context, m *Matcher, files []File, o SearchOptions, threads int, emit func(FileResult) bool) {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	results := make([]chan FileResult, len(files))
	for i := range results {
		results[i] = make(chan FileResult, 1)
	}
	jobs := make(chan int)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // reused: results keep copies of their lines only
			for i := range jobs {
				f := files[i]
				data, err := readInto(buf, f.Abs, o.Decompress)
				if err != nil {
					results[i] <- FileResult{Path: f.Path, Err: err, BinaryOffset: -1}
					continue
				}
				buf = data[:0]
				fo := o
				fo.SkipBinary = !f.Named && !o.Binary
				if o.Decompress && compressed(f.Abs) {
					fo.Slice = false // rg reads a decompressing process through its buffer
				}
				r := SearchBuffer(m, f.Path, data, fo)
				for k := range r.Lines {
					r.Lines[k].Text = append([]byte(nil), r.Lines[k].Text...)
				}
				results[i] <- r
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range files {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for i := range files {
		select {
		case r := <-results[i]:
			if !emit(r) {
				cancel()
				go func() { wg.Wait() }()
				return
			}
		case <-ctx.Done():
			return
		}
	}
	wg.Wait()
}

// readInto reads a whole file into buf's storage (grown when needed),
// decompressed when asked and it is .gz or .zst.
func readInto(buf []byte, path string, decompress bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, max(64<<10, cap(buf)))...)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	data := buf
	if !decompress {
		return data, nil
	}
	switch {
	case strings.HasSuffix(path, ".bz2"):
		return io.ReadAll(bzip2.NewReader(bytes.NewReader(data)))
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

// compressed reports whether -z decompresses the file (by its name, as rg).
func compressed(path string) bool {
	return strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".zst") || strings.HasSuffix(path, ".bz2")
}

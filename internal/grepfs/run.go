package grepfs

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"github.com/klauspost/compress/zstd"
)

// Search searches files in parallel (threads workers, 0: one per CPU) and
// calls emit with each result in the files' order, as soon as it and every
// result before it are ready. A file larger than o.ChunkAbove comes in
// parts (FileResult.More), each as soon as it is searched once the files
// before it are done. files is pulled in a goroutine of its own, so
// a walk (WalkFunc) runs alongside the search. emit returning false stops
// the search.
func Search(ctx context.Context, m *regex.Matcher, files iter.Seq[ignore.File], o search.SearchOptions, threads int, emit func(search.FileResult) bool) {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	// Files go to the workers in batches, and come back as batches, in
	// order: one channel hand-off per file costs more than searching a
	// small one.
	type job struct {
		files []ignore.File
		out   chan []search.FileResult
		seq   int64 // the batch's place in the order
	}
	ctx, cancel := context.WithCancel(ctx)
	ahead := newAhead(ctx, maxAhead)
	// cancel before the wake: a worker held by ahead sees the search over
	// and ends (stopped first, the wake would never come, and a search
	// that emit stopped early would leave its workers waiting for good).
	defer ahead.stop()
	defer cancel()
	cwd, _ := os.Getwd() // (nothing in the process changes it)
	jobs := make(chan job, threads*4)
	// order carries each batch's result channel in file order: the results
	// come back in any order, and are handed out in this one.
	order := make(chan chan []search.FileResult, 1024)
	go func() {
		defer close(jobs)
		defer close(order)
		var batch []ignore.File
		var seq int64
		send := func() bool {
			j := job{batch, make(chan []search.FileResult, 1), seq}
			batch = nil
			seq++
			select {
			case order <- j.out:
			case <-ctx.Done():
				return false
			}
			select {
			case jobs <- j:
				return true
			case <-ctx.Done():
				return false
			}
		}
		// The first batches are small, so every worker has work at once
		// and the first results come early.
		size := 1
		for f := range files {
			batch = append(batch, f)
			if len(batch) == size {
				if !send() {
					return
				}
				size = min(size*2, searchBatch)
			}
		}
		if len(batch) > 0 {
			send()
		}
	}()
	for w := 0; w < threads; w++ {
		go func() {
			var buf []byte // reused: results keep copies of their lines only
			for j := range jobs {
				send := func(rs []search.FileResult) bool {
					select {
					case j.out <- rs:
						return true
					case <-ctx.Done():
						return false
					}
				}
				rs := make([]search.FileResult, 0, len(j.files))
				for _, f := range j.files {
					ahead.wait(j.seq)
					if ctx.Err() != nil {
						rs = append(rs, search.FileResult{Path: f.Path, Err: ctx.Err(), BinaryOffset: -1})
						continue
					}
					z := o.Decompress && compressed(f.Abs)
					fo, sniff := search.FileOptions(o, f.Named, z)
					var data []byte
					var err error
					if search.Chunkable(m, fo, z) {
						fh, size, oerr := openFile(below(cwd, f.Abs))
						if oerr != nil {
							rs = append(rs, search.FileResult{Path: f.Path, Err: &os.PathError{Op: "open", Path: f.Abs, Err: oerr}, BinaryOffset: -1})
							continue
						}
						if size > o.ChunkAbove {
							// a large file: its parts go out as they come, after
							// the results before it
							if len(rs) > 0 && !send(rs) {
								fh.close()
								return
							}
							rs = rs[len(rs):]
							ok := true
							part := func(r search.FileResult) bool {
								copyLines(r.Lines) // (lines in a map or in buf: copies)
								ahead.add(resultSize(r))
								if r.More {
									ok = send([]search.FileResult{r})
									return ok
								}
								rs = append(rs, r)
								return true
							}
							if o.MapAbove <= 0 || size <= o.MapAbove || !searchMapped(m, f.Path, fh, size, fo, part) {
								buf = search.SearchChunked(m, f.Path, fh.read, fo, buf, part)
								buf = buf[:0]
							}
							fh.close()
							if !ok {
								return
							}
							continue
						}
						data, err = readOpen(fh, size, buf, f.Abs, sniff)
						fh.close()
					} else {
						data, err = readInto(buf, f.Abs, z, sniff)
					}
					if err != nil {
						rs = append(rs, search.FileResult{Path: f.Path, Err: err, BinaryOffset: -1})
						continue
					}
					buf = data[:0]
					r := search.SearchBuffer(m, f.Path, search.DecodeBOM(data), fo)
					copyLines(r.Lines)
					ahead.add(resultSize(r))
					rs = append(rs, r)
				}
				if len(rs) > 0 {
					send(rs)
				}
				close(j.out)
			}
		}()
	}
	for out := range order {
		for {
			var rs []search.FileResult
			var ok bool
			select {
			case rs, ok = <-out:
			case <-ctx.Done():
				return
			}
			if !ok {
				break
			}
			for _, r := range rs {
				n := resultSize(r) // (before the printer has it)
				if !emit(r) {
					return
				}
				ahead.add(-n)
			}
		}
		ahead.next()
	}
}

// below is path relative to dir when it is below it, else path: the
// kernel resolves a file's path one component at a time, and the
// components of the working directory (four of nine on a walk of
// $GOROOT/src) are a sixth of the time an open takes.
func below(dir, path string) string {
	if dir == "" || len(path) <= len(dir)+1 || path[:len(dir)] != dir {
		return path
	}
	if dir == "/" {
		return path[1:]
	}
	if path[len(dir)] != '/' {
		return path
	}
	return path[len(dir)+1:]
}

// searchBatch is how many files a worker takes at a time, at most.
const searchBatch = 16

// copyLines gives lines their own copies of their text (one allocation),
// so the read buffer can be reused for the next file.
func copyLines(lines []search.Line) {
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

// resultSize is about the memory a result holds: its output, or its
// lines with their text and spans.
func resultSize(r search.FileResult) int {
	n := len(r.Out) + len(r.Lines)*int(unsafe.Sizeof(search.Line{}))
	for _, l := range r.Lines {
		n += len(l.Text) + len(l.Subs)*int(unsafe.Sizeof(regex.Span{}))
	}
	return n
}

// maxAhead bounds the bytes of the results searched and waiting to print
// (their lines, their output): past it, the workers on the batches after
// the one printing wait. A search that prints as much as it reads (-n e
// over a tree) then holds about this much output at a time, not the
// tree's, and its output buffers are reused (lib/grep's outBufs) rather
// than left to the collector.
const maxAhead = 1 << 20

// ahead counts the bytes of the results searched and not yet printed, and
// holds back the workers on later batches while they pass max. The
// worker on the batch printing never waits (the printer waits for it),
// so the search always moves on.
type ahead struct {
	max     int64
	held    atomic.Int64
	head    atomic.Int64 // the batch printing
	mu      sync.Mutex
	cond    sync.Cond
	waiting int // (mu)
	ctx     context.Context
	done    func() bool
}

func newAhead(ctx context.Context, max int64) *ahead {
	a := &ahead{ctx: ctx, max: max}
	a.cond.L = &a.mu
	a.done = context.AfterFunc(ctx, a.wake) // a cancelled search stops waiting
	return a
}

func (a *ahead) stop() { a.done() }

// add counts n bytes more (fewer, negative) waiting to print.
func (a *ahead) add(n int) {
	if h := a.held.Add(int64(n)); n < 0 && h <= a.max && h-int64(n) > a.max {
		a.wake()
	}
}

// next moves the printing on to the next batch.
func (a *ahead) next() {
	a.head.Add(1)
	a.wake()
}

func (a *ahead) wake() {
	a.mu.Lock()
	if a.waiting > 0 {
		a.cond.Broadcast()
	}
	a.mu.Unlock()
}

// wait holds a worker on batch seq while the results waiting pass max,
// unless seq is the batch printing.
func (a *ahead) wait(seq int64) {
	if a.held.Load() <= a.max || a.head.Load() == seq {
		return
	}
	a.mu.Lock()
	a.waiting++
	for a.held.Load() > a.max && a.head.Load() != seq && a.ctx.Err() == nil {
		a.cond.Wait()
	}
	a.waiting--
	a.mu.Unlock()
}

// readInto reads a whole file into buf's storage (grown when needed),
// decompressed when asked and it is .gz or .zst.
func readInto(buf []byte, path string, decompress bool, sniff int) ([]byte, error) {
	buf, err := readFile(buf, path, sniff)
	if err != nil {
		return nil, err
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
	if f := unsupportedCompression(path); f != "" {
		// rg runs an external decompressor for these; we refuse by name
		// rather than search the compressed bytes.
		return nil, fmt.Errorf("-z cannot decompress %s files (it reads .gz, .bz2 and .zst); decompress it first, e.g. %s", f, decompressHint[f])
	}
	return data, nil
}

// compressed reports whether -z decompresses the file (by its name, as rg),
// or refuses it (unsupportedCompression).
func compressed(path string) bool {
	return strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".zst") || strings.HasSuffix(path, ".bz2") ||
		unsupportedCompression(path) != ""
}

var decompressHint = map[string]string{"xz": "xz -dc FILE", "lzma": "xz --format=lzma -dc FILE",
	"lz4": "lz4 -dc FILE", "compress (.Z)": "uncompress -c FILE", "brotli": "brotli -dc FILE"}

// unsupportedCompression names the format of a file rg 13's -z decompresses
// and we do not, by its name as rg decides.
func unsupportedCompression(path string) string {
	switch {
	case strings.HasSuffix(path, ".xz"), strings.HasSuffix(path, ".txz"):
		return "xz"
	case strings.HasSuffix(path, ".lzma"):
		return "lzma"
	case strings.HasSuffix(path, ".lz4"):
		return "lz4"
	case strings.HasSuffix(path, ".Z"):
		return "compress (.Z)"
	case strings.HasSuffix(path, ".br"):
		return "brotli"
	}
	return ""
}

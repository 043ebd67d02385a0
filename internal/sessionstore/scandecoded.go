package sessionstore

import (
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/agentutils/agentutils/lib/session"
)

// scanDecoded is ScanLines with every line also decoded
// (session.DecodeLine): the lines are read in batches of about batch
// bytes, decoded by as many workers as the machine runs goroutines at
// once, and handed to fn in the file's order, so that what fn does with
// a line (session.Lines.Classify: the header, ids, problems) sees the
// lines one after the other as ScanLines gives them. raw and d.Raw are
// valid only during the call. An error of fn stops the scan and is
// returned, as ScanLines returns it. ahead (when not nil) is given the
// decoded lines a few dozen at a time before fn is given each of them.
func scanDecoded(r io.Reader, batch int, ahead func([]session.Decoded), fn func(raw []byte, d session.Decoded, off int64, lineNo int, torn bool) error) (whole int64, lines int, err error) {
	workers := max(1, runtime.GOMAXPROCS(0))
	work := make(chan *lineBatch, workers)
	order := make(chan *lineBatch, 2*workers) // bounds the batches read ahead
	stop := make(chan struct{})
	free := make(chan *lineBatch, 3*workers+2) // batches fn is done with, their storage reused
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v session.View
			for b := range work {
				b.decode(&v)
			}
		}()
	}
	var scanErr error
	go func() {
		defer close(order)
		defer close(work)
		next := func() *lineBatch {
			select {
			case b := <-free:
				b.reset()
				return b
			default:
				return newLineBatch(batch)
			}
		}
		cur := next()
		send := func() bool {
			select {
			case order <- cur: // every batch in order goes to the workers too
			case <-stop:
				return false
			}
			work <- cur
			cur = next()
			return true
		}
		whole, lines, scanErr = ScanLines(r, func(raw []byte, off int64, n int, torn bool) error {
			cur.add(raw, off, n, torn)
			if len(cur.buf) >= batch && !send() {
				return errScanStopped
			}
			return nil
		})
		if scanErr == nil && len(cur.lines) > 0 {
			send()
		}
	}()
	var ferr error
	for b := range order {
		<-b.done
		for i := 0; ferr == nil && i < len(b.lines); i++ {
			if ahead != nil && i%aheadLines == 0 {
				ahead(b.dec[i:min(i+aheadLines, len(b.dec))])
			}
			l := b.lines[i]
			if ferr = fn(b.buf[l.start:l.end], b.dec[i], l.off, l.n, l.torn); ferr != nil {
				close(stop)
			}
		}
		select {
		case free <- b:
		default:
		}
	}
	wg.Wait()
	if ferr != nil {
		return whole, lines, ferr
	}
	return whole, lines, scanErr
}

// aheadLines is how many lines scanDecoded's ahead is given at once: a
// few more than the cache misses a core waits for at once.
const aheadLines = 32

var errScanStopped = errors.New("scan stopped")

// lineBatch is lines of a file copied out of the reader's buffer, and
// once done is closed, each one decoded.
type lineBatch struct {
	buf   []byte
	lines []batchLine
	dec   []session.Decoded
	done  chan struct{}
}

type batchLine struct {
	start, end int // in buf
	off        int64
	n          int
	torn       bool
}

func newLineBatch(size int) *lineBatch {
	return &lineBatch{buf: make([]byte, 0, min(size+size/4, 64<<10)), done: make(chan struct{})}
}

func (b *lineBatch) reset() {
	b.buf, b.lines, b.done = b.buf[:0], b.lines[:0], make(chan struct{})
}

func (b *lineBatch) add(raw []byte, off int64, n int, torn bool) {
	start := len(b.buf)
	b.buf = append(b.buf, raw...)
	b.lines = append(b.lines, batchLine{start, len(b.buf), off, n, torn})
}

func (b *lineBatch) decode(v *session.View) {
	b.dec = slices.Grow(b.dec[:0], len(b.lines))[:len(b.lines)]
	for i, l := range b.lines {
		b.dec[i] = session.DecodeLine(v, b.buf[l.start:l.end])
	}
	close(b.done)
}

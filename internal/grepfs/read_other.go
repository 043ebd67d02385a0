//go:build !unix

package grepfs

import (
	"io"
	"os"
)

type rawFile struct{ f *os.File }

func openFile(path string) (rawFile, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return rawFile{}, 0, err
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return rawFile{f}, size, nil
}

func (f rawFile) read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if err == io.EOF {
		return n, nil
	}
	return n, err
}

func (f rawFile) close() { f.f.Close() }

package session

import (
	"bytes"
	"errors"
)

// Skim is Decode's fast path (decodeFast) as a Head: the one pass over
// the bytes that checks the JSON structure and reads the base fields. It
// reports ok=false for anything it does not accept; Peek then decides (it
// is the reference). It is told whether the line holds a control byte as
// DecodeLine tells it (byteClasses).
func Skim(line []byte) (h Head, ok bool) {
	var v View
	ascii, noCtl := byteClasses(line)
	if !decodeFast(&v, line, ascii, noCtl) {
		return h, false
	}
	return Head{Type: v.Type, ID: v.ID, ParentID: v.ParentID, Pending: v.Pending, Time: v.Timestamp, Blob: v.Blob}, true
}

// peekRef is Peek by encoding/json alone, the reference its skimming
// fast path (peekFast) and Skim are held to.
func peekRef(line []byte) (Head, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Head{}, errors.New("not a JSON object")
	}
	return peekDecode(line)
}

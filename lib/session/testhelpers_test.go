package session

// Skim is Decode's fast path (decodeFast) as a Head: the one pass over
// the bytes that checks the JSON structure and reads the base fields. It
// reports ok=false for anything it does not accept; Peek then decides (it
// is the reference).
func Skim(line []byte) (h Head, ok bool) {
	var v View
	if !decodeFast(&v, line) {
		return h, false
	}
	return Head{Type: v.Type, ID: v.ID, ParentID: v.ParentID, Pending: v.Pending, Time: v.Timestamp, Blob: v.Blob}, true
}

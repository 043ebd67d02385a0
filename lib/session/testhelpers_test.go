package session

// Skim reads the base fields of a record fast: one pass over the bytes that
// checks the JSON structure (strings, nesting, separators) without decoding
// anything but the top-level type, id, parentId, timestamp and pending
// members. Large string values are crossed with a vectorised byte search,
// so a session file is indexed at close to disk speed. It reports ok=false
// for anything it does not accept; Peek then decides (it is the reference).
func Skim(line []byte) (h Head, ok bool) { return skim(line, nil) }

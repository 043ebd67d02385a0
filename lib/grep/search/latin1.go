package search

import "github.com/agentutils/agentutils/lib/grep/regex"

// searchLatin1 searches buf with a matcher compiled for its Latin-1 image.
func searchLatin1(m *regex.Matcher, path string, buf []byte, o SearchOptions) FileResult {
	if !regex.HasNonASCII(buf) {
		return SearchBuffer(m.Bytes, path, buf, o)
	}
	img := regex.ToLatin1(buf)
	o.Format = nil // the lines are mapped back to buf below, then printed by the printer
	r := SearchBuffer(m.Bytes, path, img, o)
	c := regex.Latin1Offsets{Img: img}
	for i := range r.Lines {
		l := &r.Lines[i]
		t0 := int(l.Offset)
		o0 := c.Orig(t0)
		for j, s := range l.Subs {
			l.Subs[j] = regex.Span{Start: c.Orig(t0+s.Start) - o0, End: c.Orig(t0+s.End) - o0}
		}
		o1 := c.Orig(t0 + len(l.Text))
		l.Offset, l.Text = int64(o0), buf[o0:o1]
	}
	for _, p := range []*int64{&r.BytesSearched, &r.BinaryOffset, &r.BinaryFrom} {
		if *p > 0 {
			*p = int64(c.Orig(int(min(*p, int64(len(img))))))
		}
	}
	return r
}

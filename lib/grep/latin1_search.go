package grep

// searchLatin1 searches buf with a matcher compiled for its Latin-1 image.
func searchLatin1(m *Matcher, path string, buf []byte, o SearchOptions) FileResult {
	if !hasNonASCII(buf) {
		return SearchBuffer(m.bytes, path, buf, o)
	}
	img := toLatin1(buf)
	o.Format = nil // the lines are mapped back to buf below, then printed by the printer
	r := SearchBuffer(m.bytes, path, img, o)
	c := latin1Offsets{img: img}
	for i := range r.Lines {
		l := &r.Lines[i]
		t0 := int(l.Offset)
		o0 := c.orig(t0)
		for j, s := range l.Subs {
			l.Subs[j] = Span{c.orig(t0+s.Start) - o0, c.orig(t0+s.End) - o0}
		}
		o1 := c.orig(t0 + len(l.Text))
		l.Offset, l.Text = int64(o0), buf[o0:o1]
	}
	for _, p := range []*int64{&r.BytesSearched, &r.BinaryOffset, &r.BinaryFrom} {
		if *p > 0 {
			*p = int64(c.orig(int(min(*p, int64(len(img))))))
		}
	}
	return r
}

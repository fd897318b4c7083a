package endless

// Reader gives Prefix, then Fill for ever; N counts the bytes given.
type Reader struct {
	Prefix []byte
	Fill   byte
	N      int64
}

func (e *Reader) Read(p []byte) (int, error) {
	k := copy(p, e.Prefix)
	e.Prefix = e.Prefix[k:]
	for i := k; i < len(p); i++ {
		p[i] = e.Fill
	}
	e.N += int64(len(p))
	return len(p), nil
}

// Rows gives Head, then Row again and again for ever; N counts the bytes
// given.
type Rows struct {
	Head, Row []byte
	N         int64
}

func (r *Rows) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.Head) == 0 {
			r.Head = r.Row
		}
		k := copy(p[n:], r.Head)
		r.Head = r.Head[k:]
		n += k
	}
	r.N += int64(n)
	return n, nil
}

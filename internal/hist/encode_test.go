package hist

import (
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestSnapshotIsHdrhistogramsEncoding: the pooled encoder writes, byte for
// byte, what hdrhistogram-go's Encode writes, for empty, tiny, wide and
// extreme histograms, with runs of zeros of every length, and its output
// decodes to the same counts.
func TestSnapshotIsHdrhistogramsEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := map[string][]time.Duration{
		"empty":   nil,
		"one":     {time.Millisecond},
		"ends":    {Lowest, Highest},
		"exactly": {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144},
	}
	var wide, heavy []time.Duration
	for range 20000 {
		wide = append(wide, time.Duration(rng.ExpFloat64()*float64(5*time.Millisecond)))
		heavy = append(heavy, time.Duration(rng.Int64N(int64(time.Hour))))
	}
	cases["wide"], cases["heavy"] = wide, heavy
	for name, vals := range cases {
		h := New()
		for _, v := range vals {
			h.Record(v)
		}
		got, err := h.Snapshot()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := h.counts()
		if c == nil {
			c = newHdr()
		}
		want, err := c.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: the encoding differs from hdrhistogram-go's (%d vs %d bytes)", name, len(got), len(want))
		}
		back, err := FromSnapshot(got)
		if err != nil || back.Count() != int64(len(vals)) || back.Max() != h.Max() || back.Quantile(0.99) != h.Quantile(0.99) {
			t.Errorf("%s: decoded %v, %d values", name, err, back.Count())
		}
	}
}

func TestAppendZigZag(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, 1 << 20, -(1 << 40), 1<<62 - 1, -1 << 63, 1<<63 - 1} {
		var want []byte
		u := uint64(v<<1) ^ uint64(v>>63)
		for i := 0; ; i++ {
			if i == 8 {
				want = append(want, byte(u))
				break
			}
			if u < 0x80 {
				want = append(want, byte(u))
				break
			}
			want = append(want, byte(u)|0x80)
			u >>= 7
		}
		if got := appendZigZag(nil, v); string(got) != string(want) || len(got) > 9 {
			t.Errorf("%d: % x, want % x", v, got, want)
		}
	}
}

// BenchmarkSnapshot: the garbage of one encoding (was about 1.3 MB with
// hdrhistogram-go's Encode).
func BenchmarkSnapshot(b *testing.B) {
	h := New()
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100000 {
		h.Record(time.Duration(rng.ExpFloat64() * float64(time.Millisecond)))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResetShrinksTheBuffer: a burst of values grows the buffer; once the
// intervals are small again it is cut back within two rounds of resets.
func TestResetShrinksTheBuffer(t *testing.T) {
	h := New()
	for range 3000 {
		h.Record(time.Millisecond)
	}
	h.Reset()
	if cap(h.small) < 3000 {
		t.Fatalf("the buffer holds %d after a burst of 3000", cap(h.small))
	}
	for range 2 * idleResets {
		for range 10 {
			h.Record(time.Millisecond)
		}
		h.Reset()
	}
	if c := cap(h.small); c > 64 {
		t.Errorf("after %d resets of 10 values the buffer still holds %d", 2*idleResets, c)
	}
	// Steady use keeps its buffer: no churn.
	for range 3 * idleResets {
		for range 500 {
			h.Record(time.Millisecond)
		}
		h.Reset()
	}
	before := cap(h.small)
	for range 2 * idleResets {
		for range 500 {
			h.Record(time.Millisecond)
		}
		h.Reset()
	}
	if c := cap(h.small); c != before || c < 500 {
		t.Errorf("steady 500 a reset: the buffer went from %d to %d", before, c)
	}
}

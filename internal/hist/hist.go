// Package hist records latencies in HDR histograms with one fixed geometry, so
// that every histogram in rightsize can be merged with every other one.
//
// Geometry: values in nanoseconds with 1 ns resolution at the bottom, highest
// trackable 1 h, 3 significant digits: every value from 1 µs to 1 h (a 120 µs
// NVMe read, a 2.5 s stall) is kept to 0.1 %, values under 2 µs exactly.
// Values above 1 h are clamped to 1 h and counted in Clamped (the count lives
// in memory only: the V2 snapshot format has no field for it).
//
// Quantiles are asked as q in [0, 1] (0.99, not 99), unlike hdrhistogram-go's
// ValueAtQuantile, whose 0..100 argument invites p0.9-for-p90 mistakes.
//
// A Histogram is not safe for concurrent use, reads included (a read may
// move buffered values into the HDR counts); the runner gives each virtual
// user its own and merges them on each interval tick.
//
// Cost: the HDR counts take about 256 KB and merging them walks every bucket
// up to the largest value (about 20,000 for values of a second), so a
// Histogram keeps its first values in a small buffer and allocates the
// counts only past smallMax values; Reset lets counts go that stayed unused
// for idleResets resets. A virtual user's histogram of one report interval
// usually holds a few values: merging it costs a few records, not a walk
// (with 1,000 virtual users, a tick took about 1 s of CPU without the
// buffer), and it holds no 256 KB for long (a burst of values once does not
// keep them allocated for the rest of a run).
package hist

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// Lowest is the histogram's resolution at the bottom of its range.
	Lowest = time.Nanosecond
	// Highest is the largest value recorded as itself; larger ones are clamped.
	Highest = time.Hour
	// Digits is the number of significant decimal digits kept.
	Digits = 3
)

// ErrSnapshot wraps every problem decoding a snapshot.
var ErrSnapshot = errors.New("bad histogram snapshot")

const (
	// smallMax is how many values a Histogram buffers before it allocates
	// its HDR counts (the buffer grows to 32 KB at most, an eighth of the
	// counts). A virtual user's histogram of one report interval stays under
	// it up to about 4,000 events a second.
	smallMax = 4096
	// idleResets is how many resets in a row HDR counts may stay empty
	// before Reset lets them go.
	idleResets = 8
)

// Histogram is a latency histogram of the package's fixed geometry.
type Histogram struct {
	h       *hdr.Histogram // nil until more than smallMax values were held
	small   []int64        // values not yet in h, at most smallMax
	clamped int64
	idle    int // resets since h last held a value
	// smallPeak is the most values the buffer held at a reset within the
	// current round of idleResets resets; resets counts them.
	smallPeak, resets int
}

// New returns an empty histogram.
func New() *Histogram { return &Histogram{} }

func newHdr() *hdr.Histogram { return hdr.New(int64(Lowest), int64(Highest), Digits) }

// Record adds one duration. Negative durations count as zero.
func (h *Histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	if d > Highest {
		d = Highest
		h.clamped++
	}
	h.add(int64(d))
}

// add buffers v (within range), moving the buffer into the counts when full.
func (h *Histogram) add(v int64) {
	if len(h.small) == smallMax {
		h.flush()
	}
	if h.small == nil {
		h.small = make([]int64, 0, 64)
	}
	h.small = append(h.small, v)
}

// flush moves the buffered values into the HDR counts, allocating them.
func (h *Histogram) flush() {
	if h.h == nil {
		h.h = newHdr()
	}
	for _, v := range h.small {
		// The value is within range by construction, so RecordValue cannot fail.
		_ = h.h.RecordValue(v)
	}
	h.small = h.small[:0]
}

// counts returns the HDR counts holding every value (nil when empty).
func (h *Histogram) counts() *hdr.Histogram {
	if len(h.small) > 0 {
		h.flush()
	}
	return h.h
}

// Merge adds every value of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil {
		return
	}
	if o.h != nil && o.h.TotalCount() > 0 {
		if h.h == nil {
			h.h = newHdr()
		}
		h.h.Merge(o.h)
	}
	for _, v := range o.small {
		h.add(v)
	}
	h.clamped += o.clamped
}

// Reset empties h, keeping its memory unless its HDR counts were left
// unused for idleResets resets in a row.
func (h *Histogram) Reset() {
	if h.h != nil {
		if h.h.TotalCount() > 0 {
			h.h.Reset()
			h.idle = 0
		} else if h.idle++; h.idle >= idleResets {
			h.h, h.idle = nil, 0
		}
	}
	// The buffer grows to the largest interval it has held (a report tick
	// that fired late holds several intervals' values); every idleResets
	// resets it is cut back to twice the round's largest, so that a burst
	// does not keep it large for the rest of a run (with 1,000 virtual
	// users the buffers' ratchet grew the live heap by a third in 4
	// minutes).
	h.smallPeak = max(h.smallPeak, len(h.small))
	if h.resets++; h.resets >= idleResets {
		if c := cap(h.small); c > 64 && c > 2*h.smallPeak {
			h.small = make([]int64, 0, max(64, 2*h.smallPeak))
		}
		h.smallPeak, h.resets = 0, 0
	}
	h.small = h.small[:0]
	h.clamped = 0
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 {
	n := int64(len(h.small))
	if h.h != nil {
		n += h.h.TotalCount()
	}
	return n
}

// Clamped is the number of values above Highest that were recorded as Highest.
func (h *Histogram) Clamped() int64 { return h.clamped }

// Quantile returns the value at quantile q, q in [0, 1] (0.99 is p99). It
// returns 0 for an empty histogram; q outside [0, 1] is clamped.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.Count() == 0 {
		return 0
	}
	if math.IsNaN(q) || q < 0 {
		q = 0
	}
	if q > 1 {
		q = 1
	}
	return time.Duration(h.counts().ValueAtQuantile(q * 100))
}

// Mean is the average recorded value (0 when empty).
func (h *Histogram) Mean() time.Duration { return stat(h, (*hdr.Histogram).Mean) }

// Max is the largest recorded value (to the histogram's precision; 0 when
// empty).
func (h *Histogram) Max() time.Duration { return stat(h, (*hdr.Histogram).Max) }

// Min is the smallest recorded value (to the histogram's precision; 0 when
// empty).
func (h *Histogram) Min() time.Duration { return stat(h, (*hdr.Histogram).Min) }

// StdDev is the standard deviation of recorded values (0 when empty).
func (h *Histogram) StdDev() time.Duration { return stat(h, (*hdr.Histogram).StdDev) }

// stat is f of h's HDR counts in nanoseconds, 0 when h is empty (its
// counts may not exist yet).
func stat[T int64 | float64](h *Histogram, f func(*hdr.Histogram) T) time.Duration {
	if h.Count() == 0 {
		return 0
	}
	return time.Duration(f(h.counts()))
}

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram {
	c := &Histogram{clamped: h.clamped}
	if h.h != nil {
		c.h = h.h.Clone()
	}
	if len(h.small) > 0 {
		c.small = append([]int64(nil), h.small...)
	}
	return c
}

// Snapshot encodes h in the standard HdrHistogram V2 compressed format, as
// base64 text: the form used in HdrHistogram log files, so other HDR tools can
// read rightsize's histograms.
func (h *Histogram) Snapshot() (string, error) {
	c := h.counts()
	if c == nil {
		c = newHdr()
	}
	s, err := encodeV2(c.Export())
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return s, nil
}

// FromSnapshot decodes a Snapshot. The decoded histogram must have the
// package's geometry, so that it merges exactly with others.
func FromSnapshot(s string) (*Histogram, error) {
	if s == "" {
		return New(), nil
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		return nil, fmt.Errorf("%w: not base64: %v", ErrSnapshot, err)
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if h.SignificantFigures() != Digits || h.LowestTrackableValue() != int64(Lowest) || h.HighestTrackableValue() != int64(Highest) {
		return nil, fmt.Errorf("%w: geometry %d digits from %d to %d ns, want %d digits from %d to %d ns",
			ErrSnapshot, h.SignificantFigures(), h.LowestTrackableValue(), h.HighestTrackableValue(), Digits, int64(Lowest), int64(Highest))
	}
	out := &Histogram{h: newHdr()}
	if dropped := out.h.Merge(h); dropped != 0 {
		return nil, fmt.Errorf("%w: %d values out of range", ErrSnapshot, dropped)
	}
	return out, nil
}

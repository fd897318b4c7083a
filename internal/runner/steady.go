package runner

import (
	"math"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// detector watches the aggregate warm-up intervals for steady state
// (Load.SteadyState). It is the ticker goroutine's alone.
type detector struct {
	window time.Duration
	tol    float64
	need   int     // intervals that fill the window
	pts    []point // aggregate warm-up intervals not yet older than the window
	done   bool    // decided: the measured window's start is fixed
	res    result.SteadyState
}

// point is one aggregate warm-up interval: its span as offsets from the
// run's start, its throughput (events per second) and its p99 (ms).
type point struct {
	from, to  time.Duration
	rate, p99 float64
}

func newDetector(s SteadyState, interval time.Duration) *detector {
	return &detector{
		window: s.Window, tol: s.Tolerance, need: int(s.Window / interval),
		res: result.SteadyState{
			WindowS: s.Window.Seconds(),
			// Rounded so that 0.07 shows as 7, not 7.000000000000001.
			TolerancePct: math.Round(s.Tolerance*100*1e6) / 1e6,
			// Not a number until a full window has been seen.
			ThroughputDriftPct: math.NaN(), P99DriftPct: math.NaN(),
		},
	}
}

// add records an aggregate warm-up interval.
func (d *detector) add(from, to time.Duration, iv result.Interval) {
	d.pts = append(d.pts, point{from: from, to: to, rate: iv.Rate, p99: iv.Latency.P99Ms})
}

// check measures the drifts over the intervals that lie within the window
// ending at the offset at (a tick), and reports whether the window was full,
// some event ended in it and both drifts are under the tolerance. It keeps
// the drifts it measured in d.res.
func (d *detector) check(at time.Duration) bool {
	// Intervals are added in order; those that start before this window
	// are no use to this check or any later one.
	first := 0
	for first < len(d.pts) && d.pts[first].from < at-d.window {
		first++
	}
	d.pts = d.pts[first:]
	var xs, rates, p99s []float64
	busy := false
	for _, p := range d.pts {
		if p.to > at {
			break
		}
		xs = append(xs, (p.from+p.to).Seconds()/2)
		rates = append(rates, p.rate)
		p99s = append(p99s, p.p99)
		busy = busy || p.rate > 0
	}
	if len(xs) < d.need || len(xs) < 2 {
		return false
	}
	w := d.window.Seconds()
	tp, lat := drift(xs, rates, w), drift(xs, p99s, w)
	d.res.ThroughputDriftPct, d.res.P99DriftPct = 100*tp, 100*lat
	// A window in which no event ended is flat but says nothing: the
	// system may still be starting (or every event outlasts the window).
	return busy && tp < d.tol && lat < d.tol // false for NaN
}

// checkSteady runs the detector at the warm-up tick at (ticker only, not
// after the stop). When the window ending at a tick is steady, the warm-up
// ends at the next tick: VUs put each event in a phase when it starts, by the
// warm-up's end as they read it then, and the ticker decides only after the
// tick, so a boundary at the tick itself would already have gone by for the
// events that started between the tick and the decision. The next tick is
// still ahead unless the ticker is a whole interval late; then the warm-up
// goes on and the next tick decides again.
func (r *run) checkSteady(at time.Time) {
	d := r.steady
	ms := r.measureStart()
	if d.done || at.After(ms) {
		return
	}
	steady := d.check(at.Sub(r.start))
	if at.Equal(ms) {
		// The longest warm-up's last tick: the measured window starts here
		// whatever the verdict; the drifts are the last full window's.
		d.done = true
		if steady {
			d.res.Reached, d.res.AtS = true, at.Sub(r.start).Seconds()
		}
		return
	}
	if !steady {
		return
	}
	next := r.nextTick(at) // the next warm-up tick, at most the planned end
	// Half an interval of margin: the store below must land before any VU
	// can read the clock past next, even if the ticker is descheduled in
	// between; with less, the next tick decides again.
	if time.Until(next) <= r.cfg.Interval/2 {
		return
	}
	// Nothing has started at or after next yet, so nothing is in the
	// wrong phase. (Strictly, a VU could read the clock past next between
	// this check and the store; that needs the ticker to stall for the rest
	// of an interval between two statements.)
	r.warmup.Store(int64(next.Sub(r.start)))
	d.done = true
	d.res.Reached, d.res.AtS = true, next.Sub(r.start).Seconds()
}

// drift is how far the least-squares line through the points (xs[i], ys[i])
// moves over window (in the units of xs), relative to the mean of ys:
// |slope × window| / |mean|. It is 0 for a flat series; when the mean is 0 it
// is 0 if every y is 0 and +Inf otherwise; NaN when xs has fewer than two
// distinct values (no slope) or the lengths differ.
func drift(xs, ys []float64, window float64) float64 {
	n := len(xs)
	if n != len(ys) || n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy float64
	for i := range xs {
		dx := xs[i] - mx
		sxx += dx * dx
		sxy += dx * (ys[i] - my)
	}
	if sxx == 0 {
		return math.NaN()
	}
	if my == 0 {
		for _, y := range ys {
			if y != 0 {
				return math.Inf(1)
			}
		}
		return 0
	}
	return math.Abs(sxy/sxx*window) / math.Abs(my)
}

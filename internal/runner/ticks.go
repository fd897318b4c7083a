package runner

import (
	"math"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// Interval ticks: the tick boundaries, phases, and the interval figures of each tick.

// nextTick returns the first tick boundary after t: multiples of Interval
// from the start during warm-up, from the warm-up end after it, and the end.
func (r *run) nextTick(t time.Time) time.Time {
	iv := r.cfg.Interval
	ms := r.measureStart()
	if t.Before(ms) {
		n := t.Sub(r.start)/iv + 1
		return minTime(r.start.Add(n*iv), ms)
	}
	n := t.Sub(ms)/iv + 1
	return minTime(ms.Add(n*iv), ms.Add(r.cfg.Duration))
}

func minTime(a, b time.Time) time.Time {
	if a.After(b) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// phaseOf returns the phase of a start intended at t (warm or meas). Safe
// for concurrent use; for a t that has passed the answer is final (see
// run.warmup).
func (r *run) phaseOf(t time.Time) int {
	if t.Before(r.measureStart()) {
		return warm
	}
	return meas
}

// phaseAt returns the phase of an event completing at t: warm up to the
// window's start, meas up to its end or the stop, whichever is first, tail
// after it (each phase holds the instant it ends at, as its last tick
// does). Safe for concurrent use;
// for a t that has passed the answer is final.
func (r *run) phaseAt(t time.Time) int {
	ms := r.measureStart()
	switch {
	case t.After(r.cutoff()):
		return tail
	case t.After(ms) || r.cfg.Warmup == 0:
		return meas
	}
	return warm
}

// cutoff is when the measured window ends: its end, or the stop when that
// came first. Safe for concurrent use.
func (r *run) cutoff() time.Time {
	cut := r.end()
	if ns := r.stopNs.Load(); ns != math.MaxInt64 {
		cut = minTime(cut, r.start.Add(time.Duration(ns)))
	}
	return cut
}

// abort stops the run because a virtual user met an error that does not
// heal; the first reason given is kept.
func (r *run) abort(reason string) {
	r.failMu.Lock()
	if r.failure == "" || !r.aborting {
		r.failure, r.aborting = reason, true
	}
	r.failMu.Unlock()
	r.abortOnce.Do(func() { close(r.aborted) })
}

// tick merges every VU's stats since the last tick into the phase totals and
// into one interval per instance. from and to are the nominal boundaries, so
// that a tick firing a little late does not shift the phases: events that
// started in the measured window and ended before the late tick at the
// warm-up's end are carried into the first measured interval.
func (r *run) tick(from, to time.Time) {
	nops := len(r.cfg.Ops)
	phase := r.phaseOf(from)
	tail := !from.Before(r.end()) || !to.After(from) // merged into totals, not an interval
	agg := newStats(nops, len(r.cfg.Counters))
	per := make([]result.Interval, len(r.insts))
	for i, in := range r.insts {
		iv := newStats(nops, len(r.cfg.Counters))
		for _, v := range in.vus {
			v.mu.Lock()
			v.st, v.spare = v.spare, v.st
			v.mu.Unlock()
			if v.spare[warm].events()+v.spare[meas].events() > 0 {
				iv.active++
			}
			for p, s := range v.spare {
				in.total[p].merge(s)
				// Intervals report events: the sub-operations' histograms
				// go to the totals only.
				if phase == warm && p == meas {
					in.carry.mergeEvents(s)
				} else {
					iv.mergeEvents(s)
				}
				if p == warm && phase == meas {
					// The warm-up is over: let its histograms go; a late
					// warm-up event allocates anew.
					v.spare[p] = newStats(nops, len(r.cfg.Counters))
				} else {
					s.reset()
				}
			}
		}
		if phase == meas {
			iv.mergeEvents(in.carry)
			in.carry.reset()
		}
		if tail {
			continue
		}
		per[i] = r.interval(iv, from, to, phase)
		in.series = append(in.series, per[i])
		agg.mergeEvents(iv)
	}
	if tail {
		return
	}
	a := r.interval(agg, from, to, phase)
	if r.open {
		a.Offered = r.cfg.Rate * float64(len(r.insts))
		for i := range per {
			per[i].Offered = r.cfg.Rate
		}
	}
	if r.steady != nil && phase == warm {
		r.steady.add(from.Sub(r.start), to.Sub(r.start), a)
	}
	if r.cfg.Sample != nil {
		a.Host = r.cfg.Sample(to.Sub(from).Seconds())
	}
	r.series = append(r.series, a)
	if r.cfg.OnTick != nil {
		r.cfg.OnTick(a, per)
	}
	if r.cfg.Snapshot != nil && to.Before(r.end()) {
		r.cfg.Snapshot(to, func() (*result.Run, error) { return r.snapshot(to) })
	}
}

// summary summarises a phase's totals; a shard keeps their histograms.
func (r *run) summary(s *stats, secs float64, dropped int64) (result.Summary, error) {
	sum := s.summary(r.cfg.Unit, secs, r.open, dropped, r.cfg.Counters)
	if r.cfg.Part == nil {
		return sum, nil
	}
	var err error
	if sum.Histogram, err = snapshot(s.responses()); err == nil && r.open {
		sum.ServiceTimeHistogram, err = snapshot(s.svc)
	}
	return sum, err
}

// snapshot encodes h, nil being empty.
func snapshot(h *hist.Histogram) (string, error) {
	if h == nil {
		h = hist.New()
	}
	return h.Snapshot()
}

func (r *run) interval(s *stats, from, to time.Time, phase int) result.Interval {
	name := "measure"
	if phase == warm {
		name = "warmup"
	}
	secs := to.Sub(from).Seconds()
	return result.Interval{
		EndS: to.Sub(r.start).Seconds(), DurationS: secs, Phase: name,
		Events: s.events(), Rate: rate(s.events(), secs),
		Reads: s.kinds[workload.Read], Writes: s.kinds[workload.Write], Other: s.kinds[workload.Other],
		Errors: s.evErr.Total(), ErrorsByClass: nilIfEmpty(s.evErr.Map()), Retries: s.retry.Total(),
		Reconnects: s.reconn, ReconnectFailures: s.reconnFail.Total(), Late: s.late,
		ActiveVUs: s.active, Latency: latencyOf(s.ev), Histogram: r.intervalHistogram(s),
	}
}

// intervalHistogram is a shard's interval histogram ("" otherwise, or when
// it cannot be encoded: the merge then says the interval lacks it).
func (r *run) intervalHistogram(s *stats) string {
	if r.cfg.Part == nil {
		return ""
	}
	h, _ := snapshot(s.ev)
	return h
}

// stoppedNow reports whether VUs must stop starting events.
func (r *run) stoppedNow() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return !time.Now().Before(r.end())
	}
}

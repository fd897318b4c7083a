package runner

import (
	"slices"
	"time"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// The run's figures: the final result, snapshots, the client's cost and the load offered.

func (r *run) finish() (*result.Run, error) {
	cfg := r.cfg
	ms := r.measureStart() // final: the ticker moves it during the warm-up only
	cut := minTime(ms.Add(cfg.Duration), r.stopAt)
	dropped := make([][2]int64, len(r.insts))
	for i, in := range r.insts {
		if in.pacer != nil {
			dropped[i] = in.pacer.drain(r, cut)
		}
	}
	out, err := r.figures(cut, dropped, cfg.Ops)
	if err != nil {
		return nil, err
	}
	out.Partial, out.PartialReason = r.partial, r.reason
	out.Summary.Partial = r.partial
	for i := range out.Instances {
		out.Instances[i].Summary.Partial = r.partial
	}
	if cfg.CPUTime != nil {
		out.Client = r.client(r.cpu[1], r.heap[1], out.Summary.Count, r.stopAt.Sub(ms).Seconds())
	}
	return out, nil
}

// snapshot returns the figures up to the tick at, marked partial (see
// Settings.Snapshot). Ticker goroutine only.
func (r *run) snapshot(at time.Time) (*result.Run, error) {
	dropped := make([][2]int64, len(r.insts))
	for i, in := range r.insts {
		if in.pacer != nil {
			dropped[i] = in.pacer.missedBefore(r, at)
		}
	}
	out, err := r.figures(at, dropped, r.cfg.Ops)
	if err != nil {
		return nil, err
	}
	out.Partial, out.Summary.Partial = true, true
	for i := range out.Instances {
		out.Instances[i].Summary.Partial = true
	}
	// Slices the ticker goes on appending to are copied.
	out.Intervals = slices.Clone(out.Intervals)
	for i := range out.Instances {
		out.Instances[i].Intervals = slices.Clone(out.Instances[i].Intervals)
	}
	if r.cfg.CPUTime != nil && at.After(r.measureStart()) {
		u, s := r.cfg.CPUTime()
		out.Client = r.client([2]time.Duration{u, s}, readHeap(), out.Summary.Count, at.Sub(r.measureStart()).Seconds())
	}
	return out, nil
}

// client reports the CPU used from the measured window's start to now
// (user, sys), and the heap's allocations and collections (heap: the counts
// now), secs of wall time, over n events.
func (r *run) client(now [2]time.Duration, heap heapCounts, n int64, secs float64) *result.Client {
	u := (now[0] - r.cpu[0][0]).Seconds()
	s := (now[1] - r.cpu[0][1]).Seconds()
	c := &result.Client{CPUUserS: u, CPUSysS: s, GCCycles: int64(heap.gcs - r.heap[0].gcs)}
	if n > 0 {
		c.CPUPerEventUs = (u + s) * 1e6 / float64(n)
		c.AllocsPerEvent = float64(heap.objects-r.heap[0].objects) / float64(n)
	}
	if r.cfg.CPUs > 0 && secs > 0 {
		c.HostSharePct = 100 * (u + s) / (secs * float64(r.cfg.CPUs))
	}
	return c
}

// figures renders the phase totals as a run cut at cut: dropped[i] is
// instance i's dropped starts by phase; ops are the sub-operations listed
// after the event. The totals are read, not changed.
func (r *run) figures(cut time.Time, dropped [][2]int64, ops []workload.Op) (*result.Run, error) {
	cfg := r.cfg
	out := &result.Run{
		Event:     cfg.Event,
		Started:   r.start,
		Ended:     time.Now(),
		Intervals: r.series,
		Load:      r.load(),
	}
	ms := r.measureStart()
	warmSecs := clampSecs(cut.Sub(r.start), ms.Sub(r.start))
	measSecs := clampSecs(cut.Sub(ms), cfg.Duration)
	if r.steady != nil {
		ss := r.steady.res
		out.Load.SteadyState = &ss
	}
	// The instances' totals added up, in stats kept from one call to the
	// next: a checkpoint takes figures every second, and new ones would
	// allocate every histogram's counts anew each time.
	if r.aggScratch[0] == nil {
		r.aggScratch = [2]*stats{newStats(len(cfg.Ops), len(cfg.Counters)), newStats(len(cfg.Ops), len(cfg.Counters))}
	} else {
		r.aggScratch[warm].reset()
		r.aggScratch[meas].reset()
	}
	aggTotal := r.aggScratch
	var aggDropped [2]int64
	var err error
	fi, _ := r.firsts()
	for i, in := range r.insts {
		for p := range aggDropped {
			aggDropped[p] += dropped[i][p]
		}
		ri := result.InstancePart{Index: fi + i, Intervals: in.series}
		if ri.Summary, err = r.summary(in.total[meas], measSecs, dropped[i][meas]); err != nil {
			return nil, err
		}
		iops, err := in.total[meas].opResults(cfg.Event, ops, measSecs)
		if err != nil {
			return nil, err
		}
		ri.Ops = iops
		if cfg.Warmup > 0 {
			w, err := r.summary(in.total[warm], warmSecs, dropped[i][warm])
			if err != nil {
				return nil, err
			}
			ri.Warmup = &w
		}
		out.Instances = append(out.Instances, ri)
		aggTotal[warm].merge(in.total[warm])
		aggTotal[meas].merge(in.total[meas])
	}
	if out.Summary, err = r.summary(aggTotal[meas], measSecs, aggDropped[meas]); err != nil {
		return nil, err
	}
	var each []float64
	for _, in := range out.Instances {
		each = append(each, in.Summary.Throughput)
	}
	out.Fairness = result.FairnessOf(each)
	aops, err := aggTotal[meas].opResults(cfg.Event, ops, measSecs)
	if err != nil {
		return nil, err
	}
	out.Ops = aops
	if cfg.Warmup > 0 {
		w, err := r.summary(aggTotal[warm], warmSecs, aggDropped[warm])
		if err != nil {
			return nil, err
		}
		out.Warmup = &w
	}
	var measured []*result.Host
	for _, iv := range r.series {
		if iv.Phase == "measure" {
			measured = append(measured, iv.Host)
		}
	}
	out.Host = result.MeanHost(measured)
	out.DeriveTypes()
	if r.lateTicks > 0 {
		out.TickerLag = &result.TickerLag{Ticks: r.ticks, Late: r.lateTicks, MaxS: r.maxLag.Seconds()}
	}
	return out, nil
}

// load reports the effective settings (defaults applied).
func (r *run) load() result.Load {
	cfg := r.cfg
	l := result.Load{
		Mode: "closed", Threads: cfg.Threads,
		WarmupS: cfg.Warmup.Seconds(), DurationS: cfg.Duration.Seconds(),
		IntervalS: cfg.Interval.Seconds(), GraceS: cfg.Grace.Seconds(), Seed: cfg.Seed,
	}
	for _, c := range cfg.Retry {
		l.Retry = append(l.Retry, c.String())
	}
	if len(cfg.Retry) > 0 {
		l.MaxRetries = cfg.MaxRetries
	}
	l.MaxErrorPct = cfg.MaxErrorPct
	if r.open {
		l.Mode, l.Rate, l.Arrival = "open", cfg.Rate, string(cfg.Arrival)
		l.LateS = cfg.LateThreshold.Seconds()
	}
	if cfg.Think.Mean > 0 {
		l.ThinkS = cfg.Think.Mean.Seconds()
		l.ThinkDist = "fixed"
		if cfg.Think.Exponential {
			l.ThinkDist = "exponential"
		}
	}
	return l
}

func clampSecs(d, max time.Duration) float64 {
	if d < 0 {
		d = 0
	}
	if d > max {
		d = max
	}
	return d.Seconds()
}

func nilIfEmpty(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	return m
}

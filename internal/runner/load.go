package runner

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/shard"
)

// How load is offered: the value, its checks and its scaling for a shard.

// Load is how one run offers load: virtual users, rate and arrivals, think
// time, warm-up (and steady state) and duration, and the run's share of a
// sharded run. A plan fills it once from the flags (per step of its
// schedule); Shard scales it for one shard; the runner reads it (k6's
// executor configuration and ExecutionTuple are the model).
type Load struct {
	// Threads is the number of VUs per instance: the concurrency of a closed
	// loop, the most events in flight at once in an open loop. 1..MaxThreads.
	Threads int
	// Rate > 0 selects the open loop: intended starts per second per
	// instance, MinRate..MaxRate.
	Rate    float64
	Arrival pace.Arrival
	// Think is the closed loop's pause between a VU's events (not timed).
	Think pace.Think
	// Warmup precedes the measured window and is reported apart from it.
	// With SteadyState on it is the longest warm-up.
	Warmup time.Duration
	// SteadyState, when its Window is > 0, ends the warm-up early once the
	// load has settled (fio's ss=).
	SteadyState SteadyState
	// Duration is the measured window. Must be > 0.
	Duration time.Duration
	// Part, when set, makes this run one shard of a larger one (run
	// --shard): its instances are the run's FirstInstance.., its Threads
	// virtual users per instance are the run's FirstVU... Virtual users get
	// their number in the whole run (NewVU's id) and the random streams
	// that number has in it, so that the shards together drive what one
	// process would; the result numbers the instances in the whole run and
	// keeps the histograms of every summary and interval for the merge.
	Part *Part
}

// Shard is l for shard part p of a run whose instances run l.Threads virtual
// users each: p's virtual users, and, when p is a share of each instance's
// virtual users (not whole instances), that share of each instance's rate.
// It is the one place a rate is scaled.
func (l Load) Shard(p shard.Part) Load {
	l.Part = &Part{FirstInstance: p.FirstInstance, FirstVU: p.FirstVU}
	if !p.ByInstance && l.Rate > 0 {
		l.Rate = l.Rate * float64(p.VUs) / float64(l.Threads)
	}
	l.Threads = p.VUs
	return l
}

// problems lists what is wrong with the load's size: its virtual users,
// duration, warm-up, rate and arrivals (Settings.Validate words them as the
// CLI's flags are named).
func (l *Load) problems() []error {
	var errs []error
	if l.Threads < 1 || l.Threads > MaxThreads {
		errs = append(errs, fmt.Errorf("threads %d: want 1 to %d", l.Threads, MaxThreads))
	}
	if l.Duration <= 0 {
		errs = append(errs, fmt.Errorf("time %v: want a positive duration", l.Duration))
	}
	if l.Warmup < 0 {
		errs = append(errs, fmt.Errorf("warmup %v: want 0 or more", l.Warmup))
	}
	if math.IsNaN(l.Rate) || l.Rate < 0 || (l.Rate > 0 && (l.Rate < MinRate || l.Rate > MaxRate)) {
		errs = append(errs, fmt.Errorf("rate %v: want 0 (closed loop) or %g to %g starts per second", l.Rate, MinRate, MaxRate))
	}
	if l.Rate > 0 {
		if _, err := pace.ParseArrival(string(l.Arrival)); err != nil && l.Arrival != "" {
			errs = append(errs, err)
		}
	}
	return errs
}

// thinkProblems lists what is wrong with the think time.
func (l *Load) thinkProblems() []error {
	var errs []error
	if l.Think.Mean < 0 {
		errs = append(errs, fmt.Errorf("think-time %v: want 0 or more", l.Think.Mean))
	}
	if l.Rate > 0 && l.Think.Mean > 0 {
		errs = append(errs, errors.New("think-time applies to the closed loop; with a rate the schedule sets the pace"))
	}
	return errs
}

// SteadyState ends the warm-up as soon as the aggregate throughput and p99
// latency have settled. At every report tick of the warm-up, the runner fits
// a least-squares line through each of the two series over the warm-up
// intervals that lie within the last Window (the window must be full); the
// drift of a series is |slope × Window| / its mean. When both drifts are
// below Tolerance, the measured window starts at the next tick (a decision
// made at a tick takes effect at the next one, so that no event is counted in
// the wrong phase) and lasts Duration. Otherwise the warm-up lasts Warmup.
type SteadyState struct {
	// Window is the span the drifts are measured over: 0 (off) or at least
	// three report intervals, at most Warmup.
	Window time.Duration
	// Tolerance is the largest drift that counts as steady, a fraction in
	// (0, 1): 0.05 is 5 %.
	Tolerance float64
}

// Part is a shard's place in the whole run (Load.Part).
type Part struct {
	FirstInstance int
	FirstVU       int
}

// problems lists what is wrong with s for a warm-up of warmup and a report
// interval of interval (0 meaning the default, 1 s).
func (s SteadyState) problems(warmup, interval time.Duration) []error {
	if s.Window < 0 {
		return []error{fmt.Errorf("steady-state window %v: want 0 (off) or more", s.Window)}
	}
	if s.Window == 0 {
		return nil
	}
	var errs []error
	if interval == 0 {
		interval = time.Second
	}
	switch {
	case warmup <= 0:
		errs = append(errs, errors.New("steady-state needs --warmup, the longest warm-up"))
	case s.Window > warmup:
		errs = append(errs, fmt.Errorf("steady-state window %v: longer than the warm-up (%v)", s.Window, warmup))
	}
	if interval > 0 && s.Window < 3*interval {
		errs = append(errs, fmt.Errorf("steady-state window %v: want at least three report intervals (%v)", s.Window, 3*interval))
	}
	if !(s.Tolerance > 0 && s.Tolerance < 1) {
		errs = append(errs, fmt.Errorf("steady-state tolerance %g%%: want more than 0 and less than 100 %%", 100*s.Tolerance))
	}
	return errs
}

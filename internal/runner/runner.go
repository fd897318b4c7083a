package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// Config is how load is offered. Durations are wall-clock.
type Config struct {
	// Threads is the number of VUs per instance: the concurrency of a closed
	// loop, the most events in flight at once in an open loop. Must be >= 1.
	Threads int
	// Rate > 0 selects the open loop: intended starts per second per instance.
	Rate    float64
	Arrival pace.Arrival
	// Think is the closed loop's pause between a VU's events (not timed).
	Think pace.Think
	// Warmup precedes the measured window and is reported apart from it.
	Warmup time.Duration
	// Duration is the measured window. Must be > 0.
	Duration time.Duration
	// Interval is the report interval (a tick); default 1 s.
	Interval time.Duration
	// Grace is how long events in flight at the end may run before their
	// context is cancelled; zero means the default, 5 s; negative cancels them
	// at once.
	Grace time.Duration
	// LateThreshold: an open-loop start this much after its intended time is
	// counted late; default 1 ms.
	LateThreshold time.Duration
	// Seed seeds VU random sources and Poisson schedules.
	Seed uint64
	// Ops are the workload's sub-operations; Event names one Step; Unit names
	// what throughput counts ("transactions", "ios").
	Ops   []workload.Op
	Event string
	Unit  string
	// OnTick, if set, is called after every tick with the aggregate interval and
	// each instance's, from the runner's ticker goroutine.
	OnTick func(agg result.Interval, perInstance []result.Interval)
	// Backoff bounds the pause between reconnect attempts; defaults 100 ms and 5 s.
	BackoffMin, BackoffMax time.Duration
}

// Instance is what the runner needs of one opened target.
type Instance struct {
	NewVU    func(ctx context.Context, id int, seed uint64) (workload.VU, error)
	Classify func(error) errclass.Class
}

// ErrConfig wraps invalid configurations.
var ErrConfig = errors.New("invalid runner configuration")

// Validate returns every problem of the configuration at once (wrapping
// ErrConfig). Messages name the fields as the CLI's flags do.
func (c *Config) Validate() error {
	var errs []error
	if c.Threads < 1 {
		errs = append(errs, fmt.Errorf("threads %d: want 1 or more", c.Threads))
	}
	if c.Duration <= 0 {
		errs = append(errs, fmt.Errorf("time %v: want a positive duration", c.Duration))
	}
	if c.Warmup < 0 {
		errs = append(errs, fmt.Errorf("warmup %v: want 0 or more", c.Warmup))
	}
	if c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		errs = append(errs, fmt.Errorf("rate %v: want 0 (closed loop) or a positive rate", c.Rate))
	}
	if c.Interval < 0 {
		errs = append(errs, fmt.Errorf("report-interval %v: want a positive duration", c.Interval))
	}
	if c.Think.Mean < 0 {
		errs = append(errs, fmt.Errorf("think-time %v: want 0 or more", c.Think.Mean))
	}
	if c.Rate > 0 && c.Think.Mean > 0 {
		errs = append(errs, errors.New("think-time applies to the closed loop; with a rate the schedule sets the pace"))
	}
	if c.LateThreshold < 0 {
		errs = append(errs, fmt.Errorf("late-threshold %v: want 0 or more", c.LateThreshold))
	}
	if len(errs) > 0 {
		return &ConfigError{Problems: errs}
	}
	return nil
}

// ConfigError lists every problem of a Config; errors.Is(err, ErrConfig) holds.
type ConfigError struct{ Problems []error }

func (e *ConfigError) Error() string        { return errors.Join(e.Problems...).Error() }
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// defaults validates c and fills in the defaults of zero fields.
func (c *Config) defaults() error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Interval == 0 {
		c.Interval = time.Second
	}
	switch {
	case c.Grace == 0:
		c.Grace = 5 * time.Second
	case c.Grace < 0:
		c.Grace = 0
	}
	if c.LateThreshold == 0 {
		c.LateThreshold = time.Millisecond
	}
	if c.BackoffMin <= 0 {
		c.BackoffMin = 100 * time.Millisecond
	}
	if c.BackoffMax < c.BackoffMin {
		c.BackoffMax = 5 * time.Second
	}
	if c.Event == "" {
		c.Event = "event"
	}
	if c.Unit == "" {
		c.Unit = c.Event + "s"
	}
	return nil
}

const (
	warm = iota
	meas
)

// vu is one virtual user's state; mu guards st against the ticker.
type vu struct {
	mu       sync.Mutex
	st       [2]*stats
	cur      int // phase of the event in flight, for sub-operations
	ops      []workload.Op
	classify func(error) errclass.Class
}

// Start implements workload.Meter.
func (v *vu) Start(op int) workload.Span { return workload.Span{Op: op, Start: time.Now()} }

// End implements workload.Meter.
func (v *vu) End(s workload.Span, err error) {
	d := time.Since(s.Start)
	var class errclass.Class
	if err != nil {
		class = v.classify(err)
	}
	kind := workload.Other
	if s.Op >= 0 && s.Op < len(v.ops) {
		kind = v.ops[s.Op].Kind
	}
	v.mu.Lock()
	v.st[v.cur].recordOp(s.Op, kind, d, class)
	v.mu.Unlock()
}

var _ workload.Meter = (*vu)(nil)

// pacer hands out intended starts of one instance's open-loop schedule.
type pacer struct {
	mu      sync.Mutex
	sched   pace.Schedule
	claimed [2]int64 // intended starts handed out, by phase
}

// inst is one instance during a run.
type inst struct {
	spec    Instance
	vus     []*vu
	pacer   *pacer
	started [2]int64   // open loop: starts that began, by phase (atomic via mu)
	mu      sync.Mutex // guards started
	total   [2]*stats
	series  []result.Interval
}

// Run drives the instances and returns the run's figures: Summary, Ops,
// Warmup, Intervals and Instances (with Summary, Ops, Warmup, Intervals); the
// caller fills in what identifies the run. When ctx is cancelled (a signal),
// the run stops early and the result is marked partial; an error is returned
// only when the run could not start.
func Run(ctx context.Context, cfg Config, insts []Instance) (*result.Run, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if len(insts) == 0 {
		return nil, &ConfigError{Problems: []error{errors.New("no instance to run")}}
	}
	open := cfg.Rate > 0
	r := &run{cfg: cfg, open: open}
	// Connect every VU before the clock starts, so connection time is not measured.
	vus := make([][]workload.VU, len(insts))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i, spec := range insts {
		in := &inst{spec: spec, total: [2]*stats{newStats(len(cfg.Ops)), newStats(len(cfg.Ops))}}
		vus[i] = make([]workload.VU, cfg.Threads)
		for j := 0; j < cfg.Threads; j++ {
			in.vus = append(in.vus, &vu{st: [2]*stats{newStats(len(cfg.Ops)), newStats(len(cfg.Ops))}, ops: cfg.Ops, classify: spec.Classify})
			wg.Add(1)
			go func(i, j int) {
				defer wg.Done()
				v, err := spec.NewVU(ctx, j, r.seed(i, j))
				mu.Lock()
				defer mu.Unlock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("instance %d, virtual user %d: %w", i+1, j+1, err)
				}
				vus[i][j] = v
			}(i, j)
		}
		if open {
			s, err := pace.New(cfg.Arrival, cfg.Rate, r.seed(i, -1))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrConfig, err)
			}
			in.pacer = &pacer{sched: s}
		}
		r.insts = append(r.insts, in)
	}
	wg.Wait()
	if firstErr != nil {
		for _, row := range vus {
			for _, v := range row {
				if v != nil {
					_ = v.Close()
				}
			}
		}
		return nil, firstErr
	}
	return r.drive(ctx, vus)
}

type run struct {
	cfg   Config
	open  bool
	insts []*inst

	start, measureStart, end time.Time
	// stopped is closed when VUs must stop starting events (end of window or signal).
	stopped chan struct{}
	stopAt  time.Time // when stop happened; read only after stopped is closed
	partial bool
	reason  string
	series  []result.Interval
}

func (r *run) seed(i, j int) uint64 {
	return r.cfg.Seed*0x9e3779b97f4a7c15 + uint64(i+1)<<32 + uint64(j+2)
}

func (r *run) drive(ctx context.Context, vus [][]workload.VU) (*result.Run, error) {
	cfg := r.cfg
	r.start = time.Now()
	r.measureStart = r.start.Add(cfg.Warmup)
	r.end = r.measureStart.Add(cfg.Duration)
	r.stopped = make(chan struct{})

	// stepCtx is cancelled Grace after the stop, ending events still in flight.
	stepCtx, cancelSteps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSteps()

	var wg sync.WaitGroup
	for i, in := range r.insts {
		for j, w := range vus[i] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.loop(stepCtx, in, j, w)
			}()
		}
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()

	// The ticker: report intervals aligned on the start and on the warm-up end.
	lastTick := r.start
	tickAt := r.nextTick(r.start)
	timer := time.NewTimer(time.Until(tickAt))
	defer timer.Stop()
	var graceTimer <-chan time.Time
	stopping, vusDone := false, false
	stop := func(reason string) {
		if stopping {
			return
		}
		stopping = true
		r.stopAt = time.Now()
		if reason != "" {
			r.partial, r.reason = true, reason
		}
		close(r.stopped)
		graceTimer = time.After(cfg.Grace)
	}
	ctxDone := ctx.Done()
	for {
		select {
		case <-ctxDone:
			ctxDone = nil
			stop("interrupted: " + context.Cause(ctx).Error())
			if vusDone {
				r.tick(lastTick, time.Now())
				return r.finish()
			}
		case <-timer.C:
			now := time.Now()
			r.tick(lastTick, now)
			lastTick = now
			if !now.Before(r.end) {
				stop("")
				if vusDone {
					return r.finish()
				}
			} else {
				tickAt = r.nextTick(now)
				timer.Reset(time.Until(tickAt))
			}
		case <-graceTimer:
			cancelSteps()
			graceTimer = nil
		case <-allDone:
			allDone = nil
			vusDone = true
			if !stopping && r.open {
				// The schedule's last start has been served before the window's
				// end: keep ticking until the end, so the window keeps its length.
				continue
			}
			if !stopping {
				if time.Now().Before(r.end) {
					// Closed-loop VUs only leave early when stopped; a safety net.
					stop("every virtual user stopped")
				} else {
					// The VUs saw the end before the ticker's last tick fired.
					stop("")
				}
			}
			// Events that were in flight at the stop are added to the totals
			// (they started in the window); a tail past the end is not an interval.
			r.tick(lastTick, time.Now())
			return r.finish()
		}
	}
}

// nextTick returns the first tick boundary after t: multiples of Interval
// from the start during warm-up, from the warm-up end after it, and the end.
func (r *run) nextTick(t time.Time) time.Time {
	iv := r.cfg.Interval
	if t.Before(r.measureStart) {
		n := t.Sub(r.start)/iv + 1
		next := r.start.Add(n * iv)
		if next.After(r.measureStart) {
			next = r.measureStart
		}
		return next
	}
	n := t.Sub(r.measureStart)/iv + 1
	next := r.measureStart.Add(n * iv)
	if next.After(r.end) {
		next = r.end
	}
	return next
}

func (r *run) phaseOf(t time.Time) int {
	if t.Before(r.measureStart) {
		return warm
	}
	return meas
}

// tick merges every VU's stats since the last tick into one interval per
// instance and into the phase totals.
func (r *run) tick(from, to time.Time) {
	phase := r.phaseOf(from)
	secs := to.Sub(from).Seconds()
	tail := !from.Before(r.end) || !to.After(from) // merged into totals, not an interval
	agg := newStats(len(r.cfg.Ops))
	per := make([]result.Interval, len(r.insts))
	for i, in := range r.insts {
		iv := newStats(len(r.cfg.Ops))
		for _, v := range in.vus {
			v.mu.Lock()
			for p := range v.st {
				iv.merge(v.st[p])
				in.total[p].merge(v.st[p])
				v.st[p].reset()
			}
			v.mu.Unlock()
		}
		per[i] = r.interval(iv, from, to, phase, secs)
		if tail {
			continue
		}
		in.series = append(in.series, per[i])
		agg.merge(iv)
	}
	if tail {
		return
	}
	a := r.interval(agg, from, to, phase, secs)
	r.series = append(r.series, a)
	if r.cfg.OnTick != nil {
		r.cfg.OnTick(a, per)
	}
}

func (r *run) interval(s *stats, from, to time.Time, phase int, secs float64) result.Interval {
	name := "measure"
	if phase == warm {
		name = "warmup"
	}
	return result.Interval{
		EndS: to.Sub(r.start).Seconds(), DurationS: secs, Phase: name,
		Events: s.events(), Rate: rate(s.events(), secs),
		Reads: s.kinds[workload.Read], Writes: s.kinds[workload.Write], Other: s.kinds[workload.Other],
		Errors: s.evErr.Total(), Reconnects: s.reconn, Latency: latencyOf(s.ev),
		ErrorsByClass: nilIfEmpty(s.evErr.Map()),
	}
}

// stoppedNow reports whether VUs must stop starting events.
func (r *run) stoppedNow() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return !time.Now().Before(r.end)
	}
}

// loop is one VU's life: events until the stop, reconnecting when the
// connection is lost.
func (r *run) loop(ctx context.Context, in *inst, id int, w workload.VU) {
	v := in.vus[id]
	rng := rand.New(rand.NewPCG(r.seed(len(r.insts)+1, id), uint64(id)))
	defer func() {
		if w != nil {
			_ = w.Close()
		}
	}()
	for !r.stoppedNow() {
		var intended, actual time.Time
		if r.open {
			var ok bool
			intended, ok = in.pacer.claim(r)
			if !ok {
				return
			}
			if !r.sleepUntil(intended) {
				// Stopped while waiting: the start is dropped, unless it was
				// not even due when an interrupt stopped the run.
				select {
				case <-r.stopped:
					if !intended.Before(r.stopAt) {
						in.pacer.unclaim(r, intended)
					}
				default:
				}
				return
			}
			actual = time.Now()
		} else {
			actual = time.Now()
			intended = actual
		}
		phase := r.phaseOf(intended)
		if r.open {
			in.mu.Lock()
			in.started[phase]++
			in.mu.Unlock()
		}
		v.mu.Lock()
		v.cur = phase
		if r.open && actual.Sub(intended) > r.cfg.LateThreshold {
			v.st[phase].late++
		}
		v.mu.Unlock()

		err := w.Step(ctx, v)
		done := time.Now()
		var class errclass.Class
		if err != nil {
			class = in.spec.Classify(err)
			if class == errclass.Canceled && ctx.Err() != nil {
				return // the run ended this event; it is neither a success nor an error
			}
		}
		v.mu.Lock()
		if class == errclass.None {
			v.st[phase].recordEvent(done.Sub(intended), done.Sub(actual), r.open)
		} else {
			v.st[phase].evErr.Add(class)
		}
		v.mu.Unlock()

		if class == errclass.Connection {
			_ = w.Close()
			w = r.reconnect(ctx, in, id, v)
			if w == nil {
				return
			}
			continue
		}
		if !r.open && r.cfg.Think.Mean > 0 {
			if !r.sleepUntil(time.Now().Add(r.cfg.Think.Draw(rng))) {
				return
			}
		}
	}
}

// reconnect replaces a lost VU connection, backing off between attempts, until
// it succeeds or the run stops (then it returns nil).
func (r *run) reconnect(ctx context.Context, in *inst, id int, v *vu) workload.VU {
	backoff := r.cfg.BackoffMin
	for attempt := 1; ; attempt++ {
		if !r.sleepUntil(time.Now().Add(backoff)) {
			return nil
		}
		w, err := in.spec.NewVU(ctx, id, r.seed(0, id)+uint64(attempt)<<48)
		if err == nil {
			v.mu.Lock()
			v.st[r.phaseOf(time.Now())].reconn++
			v.mu.Unlock()
			return w
		}
		backoff *= 2
		if backoff > r.cfg.BackoffMax {
			backoff = r.cfg.BackoffMax
		}
	}
}

// sleepUntil waits until t; it returns false if the run stopped first. It
// never sleeps past the window's end.
func (r *run) sleepUntil(t time.Time) bool {
	if r.stoppedNow() {
		return false
	}
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	past := !t.Before(r.end)
	if past {
		d = time.Until(r.end)
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return !past && !r.stoppedNow()
	case <-r.stopped:
		return false
	}
}

// claim returns the next intended start of the instance's schedule, or false
// once it lies at or past the window's end.
func (p *pacer) claim(r *run) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := r.start.Add(p.sched.Next())
	if !t.Before(r.end) {
		return t, false
	}
	p.claimed[r.phaseOf(t)]++
	return t, true
}

// unclaim gives back a start that was handed out but not yet due at the stop.
func (p *pacer) unclaim(r *run, t time.Time) {
	p.mu.Lock()
	p.claimed[r.phaseOf(t)]--
	p.mu.Unlock()
}

// drain counts the intended starts still unclaimed before the window's end
// (the cutoff: the stop time when the run was interrupted).
func (p *pacer) drain(r *run, cutoff time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		t := r.start.Add(p.sched.Next())
		if !t.Before(cutoff) {
			return
		}
		p.claimed[r.phaseOf(t)]++
	}
}

func (r *run) finish() (*result.Run, error) {
	cfg := r.cfg
	out := &result.Run{
		Event:   cfg.Event,
		Started: r.start,
		Ended:   time.Now(),
		Partial: r.partial, PartialReason: r.reason,
		Intervals: r.series,
	}
	cut := r.end
	if r.stopAt.Before(cut) {
		cut = r.stopAt
	}
	warmSecs := clampSecs(cut.Sub(r.start), cfg.Warmup)
	measSecs := clampSecs(cut.Sub(r.measureStart), cfg.Duration)

	aggTotal := [2]*stats{newStats(len(cfg.Ops)), newStats(len(cfg.Ops))}
	var aggDropped [2]int64
	for i, in := range r.insts {
		var dropped [2]int64
		if in.pacer != nil {
			in.pacer.drain(r, cut)
			for p := range dropped {
				dropped[p] = in.pacer.claimed[p] - in.started[p]
				aggDropped[p] += dropped[p]
			}
		}
		ri := result.Instance{Index: i, Intervals: in.series}
		ri.Summary = in.total[meas].summary(cfg.Unit, measSecs, r.open, dropped[meas])
		ri.Summary.Partial = r.partial
		ops, err := in.total[meas].opResults(cfg.Event, cfg.Ops, measSecs)
		if err != nil {
			return nil, err
		}
		ri.Ops = ops
		if cfg.Warmup > 0 {
			w := in.total[warm].summary(cfg.Unit, warmSecs, r.open, dropped[warm])
			ri.Warmup = &w
		}
		out.Instances = append(out.Instances, ri)
		aggTotal[warm].merge(in.total[warm])
		aggTotal[meas].merge(in.total[meas])
	}
	out.Summary = aggTotal[meas].summary(cfg.Unit, measSecs, r.open, aggDropped[meas])
	out.Summary.Partial = r.partial
	ops, err := aggTotal[meas].opResults(cfg.Event, cfg.Ops, measSecs)
	if err != nil {
		return nil, err
	}
	out.Ops = ops
	if cfg.Warmup > 0 {
		w := aggTotal[warm].summary(cfg.Unit, warmSecs, r.open, aggDropped[warm])
		out.Warmup = &w
	}
	return out, nil
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

package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// inst is one instance during a run.
type inst struct {
	idx    int // its number in this run (from 0)
	spec   Opened
	vus    []*vu
	pacer  *pacer
	total  [2]*stats // ticker only
	carry  *stats    // ticker only: see tick
	series []result.Interval
}

// Run drives the instances and returns the run's figures: Load, Summary, Ops,
// Warmup, Intervals, Client (with CPUTime) and Instances (with Summary, Ops,
// Warmup, Intervals); the caller fills in what identifies the run. When ctx is
// cancelled (a signal), the run stops early and the result is marked partial;
// an error is returned only when the run could not start.
func Run(ctx context.Context, cfg Settings, insts []Opened) (*result.Run, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if len(insts) == 0 {
		return nil, &SettingsError{Problems: []error{errors.New("no instance to run")}}
	}
	r := &run{cfg: cfg, open: cfg.Rate > 0}
	for i, spec := range insts {
		in := &inst{idx: i, spec: spec, total: [2]*stats{newStats(len(cfg.Ops), len(cfg.Counters)), newStats(len(cfg.Ops), len(cfg.Counters))}, carry: newStats(len(cfg.Ops), len(cfg.Counters))}
		for j := 0; j < cfg.Threads; j++ {
			v := newVU(spec, cfg.Ops, len(cfg.Counters))
			v.phaseAt = r.phaseAt
			in.vus = append(in.vus, v)
		}
		if r.open {
			fi, fv := r.firsts()
			// A shard of an instance's virtual users has a schedule of its
			// own (its share of the rate), seeded apart from the others'.
			s, err := pace.New(cfg.Arrival, cfg.Rate, r.seed(fi+i, -1-fv))
			if err != nil {
				return nil, &SettingsError{Problems: []error{err}}
			}
			in.pacer = &pacer{sched: s}
		}
		r.insts = append(r.insts, in)
	}
	every := yieldInterval(len(insts)*cfg.Threads, runtime.GOMAXPROCS(0))
	for _, in := range r.insts {
		for _, v := range in.vus {
			v.yieldEvery = every
		}
	}
	vus, err := r.connect(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Ready != nil {
		if err := r.await(ctx); err != nil {
			closeVUs(vus)
			return nil, err
		}
	}
	return r.drive(ctx, vus)
}

// interruption is the partial reason of a run whose context was cancelled
// before the window's end, judged by the cause's stamp when it has one (else
// by now); "" when the context is live or was cancelled after the end.
func (r *run) interruption(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	cause := context.Cause(ctx)
	at := time.Now()
	if st, ok := errors.AsType[Stamped](cause); ok && st.At().Before(at) {
		at = st.At()
	}
	if !at.Before(r.end()) {
		return ""
	}
	return "interrupted: " + cause.Error()
}

// connect opens every VU before the clock starts, so connection time is not
// measured, at most connectParallel at a time.
func (r *run) connect(ctx context.Context) ([][]workload.VU, error) {
	vus := make([][]workload.VU, len(r.insts))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, connectParallel)
	for i, in := range r.insts {
		vus[i] = make([]workload.VU, len(in.vus))
		for j := range in.vus {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				mu.Lock()
				failed := firstErr != nil
				mu.Unlock()
				if failed {
					return
				}
				fi, fv := r.firsts()
				v, err := in.spec.NewVU(ctx, fv+j, r.seed(fi+i, fv+j))
				mu.Lock()
				defer mu.Unlock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("instance %d, virtual user %d: %w", i+1, j+1, err)
				}
				vus[i][j] = v
			}()
		}
	}
	wg.Wait()
	if firstErr != nil {
		closeVUs(vus)
		return nil, firstErr
	}
	return vus, nil
}

func closeVUs(vus [][]workload.VU) {
	for _, row := range vus {
		for _, v := range row {
			if v != nil {
				_ = v.Close()
			}
		}
	}
}

// await asks Settings.Ready when to start and waits until then.
func (r *run) await(ctx context.Context) error {
	at, err := r.cfg.Ready(ctx)
	if err != nil {
		return err
	}
	if d := time.Until(at); !at.IsZero() && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting to start at %s: %w", at.Format(time.RFC3339), context.Cause(ctx))
		case <-t.C:
		}
	}
	return nil
}

type run struct {
	cfg   Settings
	open  bool
	insts []*inst

	// ticks, lateTicks and maxLag count the ticker's report ticks and those
	// that fired more than an interval late (ticker goroutine only).
	ticks, lateTicks int
	maxLag           time.Duration

	start time.Time
	// warmup is the length of the warm-up (a time.Duration from start):
	// Settings.Warmup, or less once steady state is reached. Only the ticker
	// moves it (checkSteady), once, earlier, and only to a tick that is still
	// ahead: so the phase of an instant that has passed never changes, and
	// a VU can put an event in its phase when it starts. (A start that is
	// still to come, an open-loop one handed out early, can change phase; the
	// pacer counts those at the end.) Everyone reads it through measureStart
	// and end, so comparisons stay on the monotonic clock.
	warmup atomic.Int64
	// steady is the steady-state detector (Load.SteadyState on); ticker only.
	steady *detector
	// aggScratch holds the instances' totals added up, by figures (ticker
	// goroutine only).
	aggScratch [2]*stats
	// stopped is closed when VUs must stop starting events (end of window or signal).
	stopped chan struct{}
	stopAt  time.Time // when stop happened; read only after stopped is closed
	// stopNs is stopAt as nanoseconds from start, for phaseAt (MaxInt64
	// until the stop).
	stopNs atomic.Int64
	// aborted is closed (abortOnce) when a virtual user met an error no
	// retry can heal: the run stops at once with failure as its reason.
	aborted   chan struct{}
	abortOnce sync.Once
	partial   bool
	reason    string
	// maxStall is the longest service time so far of a censored sample
	// (ns): how long the system had held an event, unfinished, at the
	// window's end.
	maxStall atomic.Int64
	// failure is the first error a Pipeline VU stopped with (failMu).
	failMu   sync.Mutex
	failure  string
	aborting bool // failure is an abort's reason (abort)
	series   []result.Interval
	cpu      [2][2]time.Duration // user, sys at the measured window's start and at the stop
	heap     [2]heapCounts       // the heap's allocations and collections, at the same times
}

// measureStart returns when the measured window starts.
func (r *run) measureStart() time.Time { return r.start.Add(time.Duration(r.warmup.Load())) }

// end returns when the measured window ends.
func (r *run) end() time.Time { return r.measureStart().Add(r.cfg.Duration) }

// seed is the seed of the run's instance i, virtual user j (-1: the
// instance's arrival schedule), numbered in the whole run.
func (r *run) seed(i, j int) uint64 {
	return r.cfg.Seed*0x9e3779b97f4a7c15 + uint64(i+1)<<32 + uint64(j+2)
}

// firsts returns the number of this run's first instance and virtual user
// in the whole run (0, 0 unless it is a shard).
func (r *run) firsts() (inst, vu int) {
	if p := r.cfg.Part; p != nil {
		return p.FirstInstance, p.FirstVU
	}
	return 0, 0
}

func (r *run) readCPU(at int) {
	if r.cfg.CPUTime != nil {
		u, s := r.cfg.CPUTime()
		r.cpu[at] = [2]time.Duration{u, s}
		r.heap[at] = readHeap()
	}
}

// heapCounts are the Go runtime's cumulative heap allocations and
// completed garbage collections of this process.
type heapCounts struct{ objects, gcs uint64 }

// readHeap reads them with runtime.ReadMemStats, which counts every object
// (runtime/metrics' heap allocation count leaves out the tiny ones, packed
// 16 bytes to a block, and lags the processors' caches). It stops the world
// for a moment; it is read at the window's start and end, and at snapshots.
func readHeap() heapCounts {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return heapCounts{objects: m.Mallocs, gcs: uint64(m.NumGC)}
}

// drive runs the virtual users and the ticker until the run has stopped and
// every virtual user is done (or abandoned), and returns the run's figures.
func (r *run) drive(ctx context.Context, vus [][]workload.VU) (*result.Run, error) {
	r.begin()
	// stepCtx is cancelled Grace after the stop, ending events still in flight.
	stepCtx, cancelSteps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSteps()
	d := &driver{r: r, ctx: ctx, allDone: r.startVUs(stepCtx, vus)}
	// The ticker: report intervals aligned on the start and on the warm-up end.
	d.lastTick, d.tickAt = r.start, r.nextTick(r.start)
	d.timer = time.NewTimer(time.Until(d.tickAt))
	defer d.timer.Stop()
	ctxDone, aborted := ctx.Done(), r.aborted
	for {
		select {
		case <-aborted:
			aborted = nil
			d.stop(r.failed())
		case <-ctxDone:
			ctxDone = nil
			// Once the window is over (its last tick not yet run: a late
			// ticker), the run is complete, not interrupted.
			d.stop(r.interruption(ctx))
		case <-d.timer.C:
			d.tick()
		case <-d.grace:
			d.grace = nil
			cancelSteps()
			d.abandon = time.After(abandonAfter)
		case <-d.abandon:
			r.partial = true
			r.reason = fmt.Sprintf("events still running %v after they were cancelled were abandoned", abandonAfter)
			d.vusDone = true
		case <-d.allDone:
			d.allDone = nil
			d.vusDone = true
			d.vusEnded()
		}
		if d.stopping && d.vusDone {
			return d.end()
		}
	}
}

// begin starts the run's clock: the host sampler's first interval, the
// warm-up, the steady-state detector, the stop and abort signals, and the
// client's CPU when there is no warm-up.
func (r *run) begin() {
	cfg := r.cfg
	if cfg.Sample != nil {
		// The first interval's host figures start here, not at the
		// sampler's creation (before connecting and preparing) nor at the
		// previous step's end: rates over those would count that time too.
		cfg.Sample(0)
	}
	r.start = time.Now()
	r.warmup.Store(int64(cfg.Warmup))
	if cfg.SteadyState.Window > 0 {
		r.steady = newDetector(cfg.SteadyState, cfg.Interval)
	}
	r.stopped = make(chan struct{})
	r.aborted = make(chan struct{})
	r.stopNs.Store(math.MaxInt64)
	if cfg.Warmup == 0 {
		r.readCPU(0)
	}
}

// startVUs starts every virtual user's loop with ctx; the channel is closed
// once they have all returned.
func (r *run) startVUs(ctx context.Context, vus [][]workload.VU) chan struct{} {
	var wg sync.WaitGroup
	for i, in := range r.insts {
		for j, w := range vus[i] {
			in.vus[j].ctx = ctx
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.loop(ctx, in, j, w)
			}()
		}
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	return allDone
}

// failed is the first error a virtual user stopped with ("": none).
func (r *run) failed() string {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	return r.failure
}

// driver is the ticker's state while drive runs (the ticker goroutine's
// alone).
type driver struct {
	r   *run
	ctx context.Context
	// lastTick is the previous report tick, tickAt the next one, due on timer.
	lastTick, tickAt time.Time
	timer            *time.Timer
	// grace fires Grace after the stop, abandon abandonAfter after that;
	// allDone is closed once every virtual user has returned (nil once seen).
	grace, abandon <-chan time.Time
	allDone        chan struct{}
	// stopping: the stop happened; vusDone: the virtual users are done or
	// abandoned.
	stopping, vusDone bool
}

// stop stops the run (once): virtual users start no more events, the
// client's CPU is read and Grace starts. A reason marks the run partial.
func (d *driver) stop(reason string) {
	if d.stopping {
		return
	}
	r := d.r
	d.stopping = true
	r.stopAt = time.Now()
	r.stopNs.Store(int64(r.stopAt.Sub(r.start)))
	r.readCPU(1)
	if reason != "" {
		r.partial, r.reason = true, reason
	}
	close(r.stopped)
	d.grace = time.After(r.cfg.Grace)
}

// tick is a report tick: the interval's figures, the lateness of the
// ticker, the client's CPU at the warm-up's end, the steady-state check,
// and the stop at the window's end.
func (d *driver) tick() {
	r := d.r
	r.ticks++
	if lag := time.Since(d.tickAt); lag > r.cfg.Interval {
		r.lateTicks++
		r.maxLag = max(r.maxLag, lag)
	}
	if d.tickAt.Equal(r.measureStart()) && r.cfg.Warmup > 0 {
		r.readCPU(0)
	}
	r.tick(d.lastTick, d.tickAt)
	if r.steady != nil && !d.stopping {
		r.checkSteady(d.tickAt)
	}
	d.lastTick = d.tickAt
	if !d.tickAt.Before(r.end()) {
		// A signal received before the end and not yet seen (both
		// ready at once) still interrupts the run.
		d.stop(r.interruption(d.ctx))
	} else {
		d.tickAt = r.nextTick(d.tickAt)
		d.timer.Reset(time.Until(d.tickAt))
	}
}

// vusEnded is called once every virtual user has returned: it stops the
// run if it has not stopped, and says why.
func (d *driver) vusEnded() {
	r := d.r
	if failed := r.failed(); !d.stopping && failed != "" {
		d.stop("every virtual user stopped: " + failed)
	}
	switch {
	case d.stopping:
	case r.open:
		// The schedule's last start was served before the window's end:
		// keep ticking until the end, so the window keeps its length.
	case time.Now().Before(r.end()):
		// Closed-loop VUs only leave early when stopped or failed.
		d.stop("every virtual user stopped")
	default:
		// The VUs saw the end before the ticker's last tick fired.
		d.stop(r.interruption(d.ctx))
	}
}

// end finishes a run that has stopped and whose virtual users are done:
// the last figures, and the result.
func (d *driver) end() (*result.Run, error) {
	r := d.r
	r.failMu.Lock()
	if r.failure != "" && !r.partial {
		// Some virtual users stopped on an error while others ran on:
		// the figures lack their share of the window.
		r.partial, r.reason = true, "a virtual user stopped early: "+r.failure
	}
	r.failMu.Unlock()
	r.censorAbandoned()
	if quiet := r.quietAtEnd(); !r.partial && stalled(quiet, time.Duration(r.maxStall.Load()), r.cfg.Duration) {
		r.partial, r.reason = true, fmt.Sprintf("stalled: no event completed in the last %v of the %v window while one had been running %v (counted with its time so far in the latency figures)",
			quiet.Round(time.Millisecond), r.cfg.Duration, time.Duration(r.maxStall.Load()).Round(time.Millisecond))
	}
	// Events in flight at the stop are added to the totals (they
	// started in the window); a tail past the end is not an interval.
	r.tick(d.lastTick, maxTime(d.lastTick, time.Now()))
	return r.finish()
}

// stalled reports whether a run stalled: no event completed in the last
// quiet of its window while an event had been running, unfinished, for
// held when it ended, both over half the window and at least StallFloor
// (so that a short test window on a busy host is not called stalled for a
// scheduling hiccup). One slow event among others that completed is no
// stall: the latency figures show it.
func stalled(quiet, held, window time.Duration) bool {
	return quiet > window/2 && held > window/2 && min(quiet, held) >= StallFloor
}

// quietAtEnd is how long before the measured window's end (or the stop)
// no virtual user completed an event within the window (from the window's
// start when none did). Called once the virtual users are done or
// abandoned.
func (r *run) quietAtEnd() time.Duration {
	cut, last := r.cutoff(), r.measureStart()
	for _, in := range r.insts {
		for _, v := range in.vus {
			v.mu.Lock()
			if v.lastDone.After(last) && !v.lastDone.After(cut) {
				last = v.lastDone
			}
			v.mu.Unlock()
		}
	}
	return cut.Sub(last)
}

// StallFloor is the shortest unfinished event that can make a run stalled
// (stalled).
const StallFloor = time.Second

// censorAbandoned records the events of virtual users abandoned in flight
// (they never returned) as censored samples.
func (r *run) censorAbandoned() {
	for _, in := range r.insts {
		for _, v := range in.vus {
			v.mu.Lock()
			if ns := v.inflight.Load(); ns >= 0 {
				r.censor(v, r.start.Add(time.Duration(ns)), r.start.Add(time.Duration(v.inflightSvc.Load())))
			}
			v.mu.Unlock()
		}
	}
}

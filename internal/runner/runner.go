package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// Limits of the load settings.
const (
	MinRate     = 1e-3 // starts per second: one in 1000 s
	MaxRate     = 1e7  // starts per second per instance
	MinInterval = 10 * time.Millisecond
	MaxThreads  = 100000
	// yieldEvery is how often a VU yields its P to the scheduler (see
	// vu.yield): under the 10 ms after which the runtime forces a hand-off,
	// and rarely enough that the wake-ups a yield causes stay few (each wakes
	// an idle thread to look for work). Measured on PostgreSQL point selects:
	// every 1 ms, 7,000 futex calls a second and 22 µs client CPU per query;
	// every 5 ms, 1,800 and 15 µs; never, 4,500 timer wake-ups a second and
	// 24 µs. Checked at every sub-operation, not only between events, 9 ms
	// is safe and cost 4 % less client CPU per point select than 5 ms
	// (medians of 4 alternating runs on PostgreSQL, 3 on MariaDB, issue 18).
	yieldEvery = 9 * time.Millisecond
	// connectParallel bounds how many VUs connect at once (no connection storm).
	connectParallel = 16
	// abandonAfter: events still running this long after their context was
	// cancelled are abandoned and the run ends without them (partial).
	abandonAfter = 5 * time.Second
)

// Config is how load is offered. Durations are wall-clock.
type Config struct {
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
	// Interval is the report interval (a tick); zero means 1 s; at least MinInterval.
	Interval time.Duration
	// Grace is how long events in flight at the end may run before their
	// context is cancelled; zero means the default, 5 s; negative cancels them
	// at once.
	Grace time.Duration
	// LateThreshold: an open-loop start more than this after its intended
	// time is counted late; zero means 1 ms.
	LateThreshold time.Duration
	// Retry lists the error classes after which an event is run again, as
	// sysbench restarts events on the errors it ignores; the event's latency
	// spans every attempt and the failed attempts are counted as retries.
	// An event in flight at the stop is retried within Grace too.
	// Connection errors are never retried (the VU reconnects instead).
	Retry []errclass.Class
	// MaxRetries bounds the re-runs of one event (at most MaxRetries+1
	// attempts); zero means 100. An event whose last attempt fails with a
	// retried class fails for good and is counted in the summary's GaveUp
	// as well as among its errors.
	MaxRetries int
	// Seed seeds VU random sources and Poisson schedules.
	Seed uint64
	// Ops are the workload's sub-operations; Event names what one VU.Event runs; Unit names
	// what throughput counts ("transactions", "ios").
	Ops   []workload.Op
	Event string
	Unit  string
	// Counters names the workload's own counters (workload.Counting); VUs
	// add to them by index through Meter.Count.
	Counters []string
	// Part, when set, makes this run one shard of a larger one (run
	// --shard): its instances are the run's FirstInstance.., its Threads
	// virtual users per instance are the run's FirstVU... Virtual users get
	// their number in the whole run (NewVU's id) and the random streams
	// that number has in it, so that the shards together drive what one
	// process would; the result numbers the instances in the whole run and
	// keeps the histograms of every summary and interval for the merge.
	Part *Part
	// Ready, if set, is called once every virtual user has connected and
	// returns when the warm-up is to start (the zero time: at once); the
	// runner waits until then (a start barrier for shards).
	Ready func(ctx context.Context) (time.Time, error)
	// OnTick, if set, is called after every tick with the aggregate interval and
	// each instance's, from the runner's ticker goroutine.
	OnTick func(agg result.Interval, perInstance []result.Interval)
	// Snapshot, if set, is called after OnTick at every tick but the measured
	// window's last (the result follows it), from the ticker goroutine, with
	// the tick's nominal time (Interval multiples, however late the tick
	// fired) and take: a function that builds the run's figures up to that tick, marked
	// partial, as Run would return them had the run stopped there (Summary
	// and Warmup, Ops with their histograms, from the HDR totals, Intervals,
	// Instances, Client, Host, TickerLag), except that open-loop Dropped
	// counts only the starts virtual users gave up (those never handed out
	// are counted at the end). take may be called only during Snapshot; it
	// costs a few histogram merges and encodings, so a caller should use it
	// about once a second at most. The returned Run shares nothing the run
	// goes on to change.
	Snapshot func(at time.Time, take func() (*result.Run, error))
	// Sample, if set, returns the host's figures since its previous call
	// (secs seconds of wall time); the run calls it with secs 0 as it starts
	// (and drops what it returns) so that the first interval begins there,
	// then the ticker calls it at each tick and keeps them in the aggregate
	// interval, and the run's Host is their mean over the measured window.
	Sample func(secs float64) *result.Host
	// CPUTime, if set, returns the process's user and system CPU time; the
	// runner reads it when the measured window starts and when it stops, and
	// reports the client's CPU per event (over the events that completed in
	// that window) and, with CPUs, as a share of the host.
	CPUTime func() (user, sys time.Duration)
	// CPUs is the host's CPU count, for the client's share of it (0: not
	// reported).
	CPUs int
	// Backoff bounds the pause between reconnect attempts, which doubles from
	// BackoffMin up to BackoffMax; defaults 100 ms and 1 s. The cap bounds how
	// long after a restarted server accepts connections again a virtual user
	// may still be waiting to retry (with 5 s, VUs came back up to 3 s late
	// after a 3.5 s outage).
	BackoffMin, BackoffMax time.Duration
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

// Part is a shard's place in the whole run (Config.Part).
type Part struct {
	FirstInstance int
	FirstVU       int
}

// A Stamped cancellation cause knows when it happened. When the context a
// run is driven with is cancelled with such a cause (context.CancelCauseFunc),
// the runner judges the stop by that moment: a signal received before the
// window's end interrupts the run even when a busy ticker sees it only after
// the end. Other causes are judged when the runner sees them.
type Stamped interface {
	error
	At() time.Time
}

// Instance is what the runner needs of one opened target.
type Instance struct {
	NewVU    func(ctx context.Context, id int, seed uint64) (workload.VU, error)
	Classify func(error) errclass.Class
}

// ErrConfig is matched (errors.Is) by every configuration error.
var ErrConfig = errors.New("invalid runner configuration")

// ConfigError lists every problem of a Config; errors.Is(err, ErrConfig) holds.
type ConfigError struct{ Problems []error }

func (e *ConfigError) Error() string        { return errors.Join(e.Problems...).Error() }
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Validate returns every problem of the configuration at once. Messages name
// the fields as the CLI's flags do.
func (c *Config) Validate() error {
	var errs []error
	if c.Threads < 1 || c.Threads > MaxThreads {
		errs = append(errs, fmt.Errorf("threads %d: want 1 to %d", c.Threads, MaxThreads))
	}
	if c.Duration <= 0 {
		errs = append(errs, fmt.Errorf("time %v: want a positive duration", c.Duration))
	}
	if c.Warmup < 0 {
		errs = append(errs, fmt.Errorf("warmup %v: want 0 or more", c.Warmup))
	}
	if math.IsNaN(c.Rate) || c.Rate < 0 || (c.Rate > 0 && (c.Rate < MinRate || c.Rate > MaxRate)) {
		errs = append(errs, fmt.Errorf("rate %v: want 0 (closed loop) or %g to %g starts per second", c.Rate, MinRate, MaxRate))
	}
	if c.Rate > 0 {
		if _, err := pace.ParseArrival(string(c.Arrival)); err != nil && c.Arrival != "" {
			errs = append(errs, err)
		}
	}
	if c.Interval < 0 || (c.Interval > 0 && c.Interval < MinInterval) {
		errs = append(errs, fmt.Errorf("report-interval %v: want %v or more", c.Interval, MinInterval))
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
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("max retries %d: want 0 or more", c.MaxRetries))
	}
	if slices.Contains(c.Retry, errclass.Connection) {
		errs = append(errs, errors.New("retry: connection errors are not retried (the virtual user reconnects)"))
	}
	errs = append(errs, c.SteadyState.problems(c.Warmup, c.Interval)...)
	if len(errs) > 0 {
		return &ConfigError{Problems: errs}
	}
	return nil
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
	if c.MaxRetries == 0 {
		c.MaxRetries = 100
	}
	if c.BackoffMin <= 0 {
		c.BackoffMin = 100 * time.Millisecond
	}
	if c.BackoffMax < c.BackoffMin {
		c.BackoffMax = max(time.Second, c.BackoffMin)
	}
	if c.Event == "" {
		c.Event = "event"
	}
	if c.Unit == "" {
		c.Unit = c.Event + "s"
	}
	if c.Arrival == "" {
		c.Arrival = pace.Constant
	}
	return nil
}

// Phases. An event belongs to the phase in which it completes (the window
// counts what the system did within it); its latency counts from its
// intended start. A start's own figures (late, dropped, offered) belong to
// the phase of its intended start.
const (
	warm = iota
	meas
	// tail is past the measured window's end (or an interrupted run's
	// stop): an event completing there is counted in stats.after, apart.
	tail
)

// vu is one virtual user's state. mu guards st, which the VU records into
// and the ticker swaps with spare (so merging happens outside the lock and
// never stalls the VU).
type vu struct {
	mu      sync.Mutex
	st      [2]*stats
	spare   [2]*stats // owned by the ticker
	attempt int       // attempt of the event in flight (VU goroutine only)
	// lastYield is when the VU last yielded its processor (VU goroutine only).
	lastYield time.Time
	phaseAt   func(time.Time) int
	ctx       context.Context
	ops       []workload.Op
	classify  func(error) errclass.Class
	// pending holds the sub-operations, counts and failed attempts of the
	// event in flight (VU goroutine only): they go to the phase the event
	// completes in, or nowhere when it completes past the window, so that
	// statements, counters and retries always match the events counted.
	pending       []pendingOp
	pendingCounts []int64
	pendingRetry  errclass.Counts
}

// pendingOp is a sub-operation of the event in flight.
type pendingOp struct {
	op    int
	kind  workload.OpKind
	d     time.Duration
	class errclass.Class
}

func newVU(spec Instance, ops []workload.Op, nc int) *vu {
	n := len(ops)
	return &vu{
		st:    [2]*stats{newStats(n, nc), newStats(n, nc)},
		spare: [2]*stats{newStats(n, nc), newStats(n, nc)},
		ops:   ops, classify: spec.Classify, pendingCounts: make([]int64, nc),
	}
}

// settle puts the event in flight's sub-operations, counts and failed
// attempts in st (none when st is nil: the event completed past the window,
// or was cancelled) and empties them. The caller holds mu.
func (v *vu) settle(st *stats) {
	if st != nil {
		for _, p := range v.pending {
			st.recordOp(p.op, p.kind, p.d, p.class)
		}
		for c, n := range v.pendingCounts {
			st.counts[c] += n
		}
		st.retry.Merge(&v.pendingRetry)
	}
	v.pending = v.pending[:0]
	clear(v.pendingCounts)
	v.pendingRetry = errclass.Counts{}
}

// Start implements workload.Meter. It is also where a VU yields its
// processor within a long event (see yield).
func (v *vu) Start(op int) workload.Span {
	now := time.Now()
	if v.yield(now) {
		now = time.Now()
	}
	return workload.Span{Op: op, Start: now}
}

// yield gives the VU's processor back to the scheduler when it has not done
// so for yieldEvery, and reports whether it did. Blocking I/O never parks the
// goroutine, so the scheduler sees no progress on its processor; after 10 ms
// the runtime's monitor forces a hand-off of that processor and then polls
// every 20 µs for a while (thousands of timer interrupts a second). Checked
// at each event and each sub-operation, so that long events yield too.
func (v *vu) yield(now time.Time) bool {
	if now.Sub(v.lastYield) <= yieldEvery {
		return false
	}
	runtime.Gosched()
	v.lastYield = now
	return true
}

// at returns the VU's stats of the phase an event completing at t belongs
// to, nil past the window (the caller holds mu).
func (v *vu) at(t time.Time) *stats {
	if p := v.phaseAt(t); p != tail {
		return v.st[p]
	}
	return nil
}

// End implements workload.Meter. A sub-operation that failed because the run
// cancelled it is not counted, like its event; it goes to the phase its
// event completes in (settle).
func (v *vu) End(s workload.Span, err error) {
	d := time.Since(s.Start)
	var class errclass.Class
	if err != nil {
		if v.ctx != nil && v.ctx.Err() != nil {
			return
		}
		class = v.classify(err)
	}
	if s.Op >= 0 && s.Op < len(v.ops) { // an unknown op is not counted
		v.pending = append(v.pending, pendingOp{op: s.Op, kind: v.ops[s.Op].Kind, d: d, class: class})
	}
}

// Count implements workload.Meter: it adds n to counter c in the phase the
// event in flight completes in (none past the window). An unknown counter
// is ignored.
func (v *vu) Count(c int, n int64) {
	if c >= 0 && c < len(v.pendingCounts) {
		v.pendingCounts[c] += n
	}
}

// Retrying implements workload.Meter.
func (v *vu) Retrying() bool { return v.attempt > 1 }

var _ workload.Meter = (*vu)(nil)

// pacer hands out intended starts of one instance's open-loop schedule.
// Starts are put in a phase only at the end of the run (drain), when the
// warm-up's end can no longer move.
type pacer struct {
	mu    sync.Mutex
	sched pace.Schedule
	// missed are intended starts handed out that never began (the VU was
	// stopped while waiting for them): at most one per VU.
	missed []time.Time
}

// inst is one instance during a run.
type inst struct {
	idx    int // its number in this run (from 0)
	spec   Instance
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
func Run(ctx context.Context, cfg Config, insts []Instance) (*result.Run, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if len(insts) == 0 {
		return nil, &ConfigError{Problems: []error{errors.New("no instance to run")}}
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
				return nil, &ConfigError{Problems: []error{err}}
			}
			in.pacer = &pacer{sched: s}
		}
		r.insts = append(r.insts, in)
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

// await asks Config.Ready when to start and waits until then.
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
	cfg   Config
	open  bool
	insts []*inst

	// ticks, lateTicks and maxLag count the ticker's report ticks and those
	// that fired more than an interval late (ticker goroutine only).
	ticks, lateTicks int
	maxLag           time.Duration

	start time.Time
	// warmup is the length of the warm-up (a time.Duration from start):
	// Config.Warmup, or less once steady state is reached. Only the ticker
	// moves it (checkSteady), once, earlier, and only to a tick that is still
	// ahead: so the phase of an instant that has passed never changes, and
	// a VU can put an event in its phase when it starts. (A start that is
	// still to come, an open-loop one handed out early, can change phase; the
	// pacer counts those at the end.) Everyone reads it through measureStart
	// and end, so comparisons stay on the monotonic clock.
	warmup atomic.Int64
	// steady is the steady-state detector (Config.SteadyState on); ticker only.
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

func (r *run) drive(ctx context.Context, vus [][]workload.VU) (*result.Run, error) {
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

	// stepCtx is cancelled Grace after the stop, ending events still in flight.
	stepCtx, cancelSteps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSteps()

	var wg sync.WaitGroup
	for i, in := range r.insts {
		for j, w := range vus[i] {
			in.vus[j].ctx = stepCtx
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
	lastTick, tickAt := r.start, r.nextTick(r.start)
	timer := time.NewTimer(time.Until(tickAt))
	defer timer.Stop()
	var graceTimer, abandonTimer <-chan time.Time
	stopping, vusDone := false, false
	stop := func(reason string) {
		if stopping {
			return
		}
		stopping = true
		r.stopAt = time.Now()
		r.stopNs.Store(int64(r.stopAt.Sub(r.start)))
		r.readCPU(1)
		if reason != "" {
			r.partial, r.reason = true, reason
		}
		close(r.stopped)
		graceTimer = time.After(cfg.Grace)
	}
	ctxDone, aborted := ctx.Done(), r.aborted
	for {
		select {
		case <-aborted:
			aborted = nil
			r.failMu.Lock()
			reason := r.failure
			r.failMu.Unlock()
			stop(reason)
		case <-ctxDone:
			ctxDone = nil
			// Once the window is over (its last tick not yet run: a late
			// ticker), the run is complete, not interrupted.
			stop(r.interruption(ctx))
		case <-timer.C:
			r.ticks++
			if lag := time.Since(tickAt); lag > cfg.Interval {
				r.lateTicks++
				r.maxLag = max(r.maxLag, lag)
			}
			if tickAt.Equal(r.measureStart()) && cfg.Warmup > 0 {
				r.readCPU(0)
			}
			r.tick(lastTick, tickAt)
			if r.steady != nil && !stopping {
				r.checkSteady(tickAt)
			}
			lastTick = tickAt
			if !tickAt.Before(r.end()) {
				// A signal received before the end and not yet seen (both
				// ready at once) still interrupts the run.
				stop(r.interruption(ctx))
			} else {
				tickAt = r.nextTick(tickAt)
				timer.Reset(time.Until(tickAt))
			}
		case <-graceTimer:
			graceTimer = nil
			cancelSteps()
			abandonTimer = time.After(abandonAfter)
		case <-abandonTimer:
			r.partial = true
			r.reason = fmt.Sprintf("events still running %v after they were cancelled were abandoned", abandonAfter)
			vusDone = true
		case <-allDone:
			allDone = nil
			vusDone = true
			r.failMu.Lock()
			failed := r.failure
			r.failMu.Unlock()
			if !stopping && failed != "" {
				stop("every virtual user stopped: " + failed)
			}
			if !stopping && r.open {
				// The schedule's last start was served before the window's end:
				// keep ticking until the end, so the window keeps its length.
				continue
			}
			if !stopping {
				if time.Now().Before(r.end()) {
					// Closed-loop VUs only leave early when stopped or failed.
					stop("every virtual user stopped")
				} else {
					// The VUs saw the end before the ticker's last tick fired.
					stop(r.interruption(ctx))
				}
			}
		}
		if stopping && vusDone {
			r.failMu.Lock()
			if r.failure != "" && !r.partial {
				// Some virtual users stopped on an error while others ran on:
				// the figures lack their share of the window.
				r.partial, r.reason = true, "a virtual user stopped early: "+r.failure
			}
			r.failMu.Unlock()
			// Events in flight at the stop are added to the totals (they
			// started in the window); a tail past the end is not an interval.
			r.tick(lastTick, maxTime(lastTick, time.Now()))
			return r.finish()
		}
	}
}

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
	cut := ms.Add(r.cfg.Duration)
	if ns := r.stopNs.Load(); ns != math.MaxInt64 {
		cut = minTime(cut, r.start.Add(time.Duration(ns)))
	}
	switch {
	case t.After(cut):
		return tail
	case t.After(ms) || r.cfg.Warmup == 0:
		return meas
	}
	return warm
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
	if sum.Histogram, err = snapshot(s.ev); err == nil && r.open {
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

func (r *run) retryable(c errclass.Class) bool { return slices.Contains(r.cfg.Retry, c) }

// loop is one VU's life: events until the stop, reconnecting when the
// connection is lost.
func (r *run) loop(ctx context.Context, in *inst, id int, w workload.VU) {
	v := in.vus[id]
	if p, ok := w.(workload.Pipeline); ok {
		r.pipeline(ctx, v, id, p)
		return
	}
	fi, fv := r.firsts()
	rng := rand.New(rand.NewPCG(r.seed(fi+len(r.insts)+1, fv+id), uint64(fv+id)))
	defer func() {
		if w != nil {
			_ = w.Close()
		}
	}()
	tm := time.NewTimer(time.Hour) // the VU's one timer for every wait
	tm.Stop()
	v.lastYield = time.Now()
	for !r.stoppedNow() {
		var intended, actual time.Time
		idle := false // waiting for its intended start (open loop)
		if r.open {
			var ok bool
			intended, ok = in.pacer.claim(r)
			if !ok {
				return
			}
			idle = time.Now().Before(intended)
			if !r.sleepUntil(tm, intended) {
				// Stopped while waiting: the start is dropped if it was due
				// in the window (drain decides).
				in.pacer.miss(intended)
				return
			}
			actual = time.Now()
		} else {
			actual = time.Now()
			intended = actual
		}
		v.yield(actual)
		if r.open {
			v.mu.Lock()
			st := v.st[r.phaseOf(intended)] // the start's phase
			st.begun++
			if actual.Sub(intended) > r.cfg.LateThreshold {
				st.late++
			}
			if idle {
				if st.wake == nil {
					st.wake = hist.New()
				}
				st.wake.Record(actual.Sub(intended))
			}
			v.mu.Unlock()
		}

		var class errclass.Class
		for attempt := 1; ; attempt++ {
			v.attempt = attempt
			err := w.Event(ctx, v)
			if err == nil {
				class = errclass.None
				break
			}
			class = in.spec.Classify(err)
			if ctx.Err() != nil {
				// The run ended this event: neither a success nor an error,
				// it is counted as cancelled.
				v.mu.Lock()
				v.st[r.phaseOf(intended)].cancel++
				v.settle(nil)
				v.mu.Unlock()
				return
			}
			// A retry is part of the event: after the stop it goes on
			// within --grace, like any event in flight, and is cancelled with
			// it (had it stopped here, a failure the event would have
			// retried past would count as a final one).
			if !r.retryable(class) || attempt > r.cfg.MaxRetries {
				break
			}
			v.pendingRetry.Add(class)
		}
		done := time.Now()
		v.mu.Lock()
		st := v.at(done)
		v.settle(st)
		switch {
		case st == nil:
			v.st[meas].after++
		case class == errclass.None:
			st.recordEvent(done.Sub(intended), done.Sub(actual), r.open)
		default:
			st.evErr.Add(class)
			if r.retryable(class) { // only its last allowed attempt ends the loop so
				st.gaveUp++
			}
		}
		v.mu.Unlock()

		if class == errclass.Connection {
			w = r.reconnect(ctx, in, id, v, w, tm)
			if w == nil {
				return
			}
			continue
		}
		if !r.open {
			var pause time.Duration
			if p, ok := w.(workload.Pacer); ok {
				pause = p.Pause()
			} else if r.cfg.Think.Mean > 0 {
				pause = r.cfg.Think.Draw(rng)
			}
			if pause > 0 && !r.sleepUntil(tm, time.Now().Add(pause)) {
				return
			}
		}
	}
}

// pipeline runs a VU that keeps its own events in flight (workload.Pipeline)
// until the stop; an error it returns is counted and ends that VU.
func (r *run) pipeline(ctx context.Context, v *vu, id int, p workload.Pipeline) {
	defer p.Close()
	var err error
	if r.open {
		err = errors.New("this workload keeps its own queue depth and runs in the closed loop only (no --rate)")
	} else {
		err = p.Run(ctx, v, func() bool { return !r.stoppedNow() })
	}
	if err == nil || ctx.Err() != nil {
		return
	}
	// The failed event itself came through Event; the error only ends the VU.
	r.failMu.Lock()
	if r.failure == "" {
		r.failure = fmt.Sprintf("virtual user %d: %v", id, err)
	}
	r.failMu.Unlock()
}

// Event implements workload.Recorder for Pipeline VUs: one event of op,
// attributed to a phase by its start.
func (v *vu) Event(op int, start, end time.Time, err error) {
	d := end.Sub(start)
	var class errclass.Class
	if err != nil {
		if v.ctx != nil && v.ctx.Err() != nil {
			v.mu.Lock()
			v.st[min(v.phaseAt(start), meas)].cancel++ // cancelled by the run's end, like an event
			v.mu.Unlock()
			return
		}
		class = v.classify(err)
	}
	kind := workload.Other
	if op >= 0 && op < len(v.ops) {
		kind = v.ops[op].Kind
	}
	v.mu.Lock()
	st := v.at(end)
	if st == nil {
		v.st[meas].after++
		v.mu.Unlock()
		return
	}
	if class == errclass.None {
		st.recordEvent(d, d, false)
	} else {
		st.evErr.Add(class)
	}
	st.recordOp(op, kind, d, class)
	v.mu.Unlock()
}

// reconnect replaces w's lost connection, backing off between attempts,
// until it succeeds or the run stops (then it returns nil, w closed). A VU
// that can (workload.Reconnector) reconnects in place and keeps its state;
// another is opened anew with the number and seed of its first connection.
// Each failed attempt is counted by class; one that cannot heal (a failed
// authentication, a missing privilege or database) ends the run.
func (r *run) reconnect(ctx context.Context, in *inst, id int, v *vu, w workload.VU, tm *time.Timer) workload.VU {
	fi, fv := r.firsts()
	rc, inPlace := w.(workload.Reconnector)
	if !inPlace {
		_ = w.Close()
		w = nil
	}
	giveUp := func() workload.VU {
		if w != nil {
			_ = w.Close()
		}
		return nil
	}
	backoff := r.cfg.BackoffMin
	for {
		if !r.sleepUntil(tm, time.Now().Add(backoff)) {
			return giveUp()
		}
		var err error
		if inPlace {
			err = rc.Reconnect(ctx)
		} else {
			w, err = in.spec.NewVU(ctx, fv+id, r.seed(fi+in.idx, fv+id))
		}
		class := errclass.None
		if err != nil {
			class = in.spec.Classify(err)
		}
		v.mu.Lock()
		if st := v.at(time.Now()); st != nil {
			if err == nil {
				st.reconn++
			} else {
				st.reconnFail.Add(class)
			}
		}
		v.mu.Unlock()
		if err == nil {
			return w
		}
		if ctx.Err() != nil {
			return giveUp()
		}
		if !class.Heals() {
			r.abort(fmt.Sprintf("instance %d, virtual user %d could not reconnect (%s, which retrying cannot mend): %v", fi+in.idx+1, fv+id+1, class, err))
			return giveUp()
		}
		backoff = min(backoff*2, r.cfg.BackoffMax)
	}
}

// sleepUntil waits until t on the VU's own timer tm (reused, so waiting
// allocates nothing); it returns false if the run stopped first. It never
// sleeps past the window's end.
func (r *run) sleepUntil(tm *time.Timer, t time.Time) bool {
	if r.stoppedNow() {
		return false
	}
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	end := r.end()
	past := !t.Before(end)
	if past {
		d = time.Until(end)
	}
	tm.Reset(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return !past && !r.stoppedNow()
	case <-r.stopped:
		return false
	}
}

// claim returns the next intended start of the instance's schedule, or false
// once it lies at or past the window's end. (The end may move earlier after
// a start was handed out; drain does not count such a start.)
func (p *pacer) claim(r *run) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := r.start.Add(p.sched.Next())
	if !t.Before(r.end()) {
		return t, false
	}
	return t, true
}

// miss records a start that was handed out but never began.
func (p *pacer) miss(t time.Time) {
	p.mu.Lock()
	p.missed = append(p.missed, t)
	p.mu.Unlock()
}

// missedBefore returns, by phase, the starts handed out before at that
// virtual users gave up so far (a checkpoint's part of drain's count).
func (p *pacer) missedBefore(r *run, at time.Time) [2]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n [2]int64
	for _, t := range p.missed {
		if t.Before(at) {
			n[r.phaseOf(t)]++
		}
	}
	return n
}

// drain returns, by phase, the intended starts before cutoff (the window's
// end, or the stop when the run was interrupted) that never began: those
// handed out and missed, and those never handed out. It is called once the
// run has stopped, when the phases can no longer move.
func (p *pacer) drain(r *run, cutoff time.Time) [2]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var dropped [2]int64
	for _, t := range p.missed {
		if t.Before(cutoff) {
			dropped[r.phaseOf(t)]++
		}
	}
	for _, ph := range []struct {
		phase int
		until time.Time
	}{{warm, minTime(r.measureStart(), cutoff)}, {meas, cutoff}} {
		dropped[ph.phase] += p.sched.Skip(ph.until.Sub(r.start))
	}
	return dropped
}

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
// Config.Snapshot). Ticker goroutine only.
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
		ri := result.Instance{Index: fi + i, Intervals: in.series}
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

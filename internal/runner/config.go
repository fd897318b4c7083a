package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// The run's configuration: the load settings, their limits and validation.

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
	// yieldEveryBusy replaces yieldEvery when the virtual users are at
	// least as many as the processors (see yieldInterval): a yield then
	// wakes no idle thread, and yielding more often keeps the runtime's
	// monitor from taking the processor of a virtual user blocked in a
	// read. Measured on pgbench select-only, 8 virtual users on 8
	// processors (perf stat, per transaction, 2 runs each): every 9 ms,
	// 0.007 hand-offs, 0.027 nanosleep, 0.02 futex, 1.06-1.07 context
	// switches, 19.3-19.7 µs client CPU; every 3 ms, 0.001-0.003, 0.005-0.013,
	// 0.005-0.013, 1.02-1.04, 16.9-18.8 µs; on tpcb-like 0.2 hand-offs and
	// 0.6-0.7 forced preemptions per transaction against 0.05-0.07 and
	// 0.05-0.2. With processors to spare (oltp_point_select, 4 virtual
	// users on 6), 3 ms cost more (futex 0.07 against 0.02 per query, 16-20
	// against 15-17 µs, 3 alternating runs each).
	yieldEveryBusy = 3 * time.Millisecond
	// connectParallel bounds how many VUs connect at once (no connection storm).
	connectParallel = 16
	// abandonAfter: events still running this long after their context was
	// cancelled are abandoned and the run ends without them (partial).
	abandonAfter = 5 * time.Second
)

// Settings is one run: the load it offers (Load) and how it is measured and
// reported. Durations are wall-clock.
type Settings struct {
	// Load is how load is offered: virtual users, rate, think time, warm-up
	// and duration, and the run's share of a sharded run.
	Load
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
	// MaxErrorPct, when set, is recorded in the result as the share of
	// events that may fail (result.Load.MaxErrorPct); the runner itself
	// does not act on it.
	MaxErrorPct *float64
	// Seed seeds VU random sources and Poisson schedules.
	Seed uint64
	// Ops are the workload's sub-operations; Event names what one VU.Event runs; Unit names
	// what throughput counts ("transactions", "ios").
	Ops   []workload.Op
	Event string
	Unit  string
	// Counters names the workload's own counters (workload.Meta.Counters); VUs
	// add to them by index through Meter.Count.
	Counters []string
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

// A Stamped cancellation cause knows when it happened. When the context a
// run is driven with is cancelled with such a cause (context.CancelCauseFunc),
// the runner judges the stop by that moment: a signal received before the
// window's end interrupts the run even when a busy ticker sees it only after
// the end. Other causes are judged when the runner sees them.
type Stamped interface {
	error
	At() time.Time
}

// Opened is what the runner needs of one opened target.
type Opened struct {
	NewVU    func(ctx context.Context, id int, seed uint64) (workload.VU, error)
	Classify func(error) errclass.Class
}

// ErrSettings is matched (errors.Is) by every invalid Settings.
var ErrSettings = exitcode.New("invalid runner configuration", exitcode.Usage)

// SettingsError lists every problem of a Settings; errors.Is(err, ErrSettings) holds.
type SettingsError struct{ Problems []error }

func (e *SettingsError) Error() string        { return errors.Join(e.Problems...).Error() }
func (e *SettingsError) Is(target error) bool { return target == ErrSettings }

// ExitCode: the command line is wrong (exit 2).
func (e *SettingsError) ExitCode() exitcode.Code { return exitcode.Usage }

// Validate returns every problem of the configuration at once. Messages name
// the fields as the CLI's flags do.
func (c *Settings) Validate() error {
	errs := c.Load.problems()
	if c.Interval < 0 || (c.Interval > 0 && c.Interval < MinInterval) {
		errs = append(errs, fmt.Errorf("report-interval %v: want %v or more", c.Interval, MinInterval))
	}
	errs = append(errs, c.Load.thinkProblems()...)
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
		return &SettingsError{Problems: errs}
	}
	return nil
}

// defaults validates c and fills in the defaults of zero fields.
func (c *Settings) defaults() error {
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

package runner

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// fakeVU runs one "query" op per step, taking what work says.
type fakeVU struct {
	work   func(ctx context.Context) error
	closed *atomic.Int64
}

func (f *fakeVU) Event(ctx context.Context, m workload.Meter) error {
	s := m.Start(0)
	err := f.work(ctx)
	m.End(s, err)
	return err
}

func (f *fakeVU) Close() error {
	if f.closed != nil {
		f.closed.Add(1)
	}
	return nil
}

var errLost = errors.New("connection lost")

func classify(err error) errclass.Class {
	if errors.Is(err, errLost) {
		return errclass.Connection
	}
	return errclass.Generic(err)
}

// errTx is a transaction's failure that txInstance classifies as it is told.
var errTx = errors.New("transaction failed")

// txInstance is an instance of fake VUs doing work, whose errTx failures
// are of class c.
func txInstance(c errclass.Class, work func(ctx context.Context) error) Opened {
	return Opened{
		NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
			return &fakeVU{work: work}, nil
		},
		Classify: func(err error) errclass.Class {
			if errors.Is(err, errTx) {
				return c
			}
			return errclass.Generic(err)
		},
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func instance(work func(ctx context.Context) error) Opened {
	return Opened{
		NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
			return &fakeVU{work: work}, nil
		},
		Classify: classify,
	}
}

var ops = []workload.Op{{Name: "query", Kind: workload.Read}}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %v, want %v ± %v", what, got, want, tol)
	}
}

func TestClosedLoopCountsAndWarmupExclusion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		warmup := time.Second
		// Slow (100 ms) during warm-up, fast (10 ms) after it.
		work := func(ctx context.Context) error {
			if time.Since(start) < warmup {
				return sleepCtx(ctx, 100*time.Millisecond)
			}
			return sleepCtx(ctx, 10*time.Millisecond)
		}
		var ticks int
		res, err := Run(context.Background(), Settings{
			Load:   Load{Threads: 2, Warmup: warmup, Duration: 2 * time.Second},
			Ops:    ops,
			Event:  "transaction",
			Unit:   "transactions",
			OnTick: func(agg result.Interval, per []result.Interval) { ticks++ },
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		// 2 VUs × 2 s / 10 ms = 400 events.
		within(t, "measured count", float64(s.Count), 400, 2)
		within(t, "throughput", s.Throughput, 200, 1)
		within(t, "avg latency ms", s.Latency.AvgMs, 10, 0.1)
		if s.Latency.P99Ms > 10.1 {
			t.Errorf("p99 %v ms includes warm-up events (100 ms)", s.Latency.P99Ms)
		}
		if res.Warmup == nil {
			t.Fatal("no warm-up summary")
		}
		within(t, "warm-up count", float64(res.Warmup.Count), 20, 2)
		within(t, "warm-up avg ms", res.Warmup.Latency.AvgMs, 100, 1)
		if ticks != 3 || len(res.Intervals) != 3 {
			t.Errorf("ticks = %d, intervals = %d, want 3 (1 warm-up + 2 measured)", ticks, len(res.Intervals))
		}
		if res.Intervals[0].Phase != "warmup" || res.Intervals[1].Phase != "measure" {
			t.Errorf("phases %q %q", res.Intervals[0].Phase, res.Intervals[1].Phase)
		}
		if s.Reads != s.Count {
			t.Errorf("reads %d, want one per event (%d)", s.Reads, s.Count)
		}
		if res.Partial {
			t.Error("complete run marked partial")
		}
		if len(res.Ops) != 2 || res.Ops[0].Name != "transaction" || res.Ops[1].Name != "query" || res.Ops[0].Histogram == "" {
			t.Errorf("ops = %+v", res.Ops)
		}
	})
}

// TestOpenLoopStallIntendedStart is the coordinated-omission test: a system
// that stalls for 2 s at 200/s must show it in p99 of response time, while
// service time stays near the normal 1 ms.
func TestOpenLoopStallIntendedStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		stallFrom, stallTo := start.Add(2*time.Second), start.Add(4*time.Second)
		work := func(ctx context.Context) error {
			now := time.Now()
			if !now.Before(stallFrom) && now.Before(stallTo) {
				if err := sleepCtx(ctx, stallTo.Sub(now)); err != nil {
					return err
				}
			}
			return sleepCtx(ctx, time.Millisecond)
		}
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 4, Rate: 200, Arrival: pace.Constant, Duration: 10 * time.Second},
			Ops:  ops,
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.ServiceTime != nil {
			t.Logf("response-time p99 %.1f ms, service-time p99 %.2f ms, late %d, dropped %d", s.Latency.P99Ms, s.ServiceTime.P99Ms, s.Late, s.Dropped)
		}
		if s.Latency.P99Ms < 900 {
			t.Errorf("response-time p99 = %.1f ms, want >= 900 ms (latency from intended start)", s.Latency.P99Ms)
		}
		if s.ServiceTime == nil {
			t.Fatal("no service time in an open-loop run")
		}
		if s.ServiceTime.P99Ms > 5 {
			t.Errorf("service-time p99 = %.1f ms, want about 1 ms", s.ServiceTime.P99Ms)
		}
		within(t, "count", float64(s.Count), 2000, 2)
		if s.Dropped != 0 {
			t.Errorf("dropped = %d, want 0 (the backlog is served after the stall)", s.Dropped)
		}
		// 400 starts fall in the stall, and a few more while the backlog drains.
		if s.Late < 400 || s.Late > 450 {
			t.Errorf("late = %d, want 400..450", s.Late)
		}
	})
}

func TestOpenLoopDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := func(ctx context.Context) error { return sleepCtx(ctx, 50*time.Millisecond) }
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 1, Rate: 100, Duration: 2 * time.Second},
			Ops:  ops,
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		// One VU serves 20/s of the 100/s asked: 40 of 200 start, 160 never do.
		within(t, "count", float64(s.Count), 40, 1)
		within(t, "dropped", float64(s.Dropped), 160, 1)
		if s.Count+s.Dropped != 200 {
			t.Errorf("count %d + dropped %d != 200 scheduled", s.Count, s.Dropped)
		}
		within(t, "throughput", s.Throughput, 20, 0.5)
	})
}

func TestPoissonRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := func(ctx context.Context) error { return sleepCtx(ctx, time.Millisecond) }
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 8, Rate: 500, Arrival: pace.Poisson, Duration: 20 * time.Second},
			Ops:  ops,
			Seed: 7,
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		// 10,000 expected; Poisson sd = 100.
		within(t, "count", float64(res.Summary.Count), 10000, 400)
	})
}

func TestReconnectAfterConnectionLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var opened, closed atomic.Int64
		var once sync.Once
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				opened.Add(1)
				return &fakeVU{closed: &closed, work: func(ctx context.Context) error {
					var err error
					once.Do(func() { err = errLost })
					if err != nil {
						return err
					}
					return sleepCtx(ctx, 10*time.Millisecond)
				}}, nil
			},
			Classify: classify,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: time.Second}, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.Reconnects != 1 || opened.Load() != 2 || closed.Load() != 2 {
			t.Errorf("reconnects %d, opened %d, closed %d; want 1, 2, 2", s.Reconnects, opened.Load(), closed.Load())
		}
		if s.ErrorsByClass["connection"] != 1 || s.Errors != 1 {
			t.Errorf("errors %v", s.ErrorsByClass)
		}
		// 100 ms back-off, then 10 ms events for the rest of the second.
		within(t, "count", float64(s.Count), 90, 1)
	})
}

func TestInterruptMarksPartial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(3*time.Second, func() { cancel(errors.New("SIGTERM")) })
		work := func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) }
		res, err := Run(ctx, Settings{Load: Load{Threads: 1, Warmup: time.Second, Duration: 10 * time.Second}, Ops: ops}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Partial || !res.Summary.Partial || res.PartialReason == "" {
			t.Errorf("partial = %v %v %q", res.Partial, res.Summary.Partial, res.PartialReason)
		}
		within(t, "measured seconds", res.Summary.DurationS, 2, 0.01)
		within(t, "throughput", res.Summary.Throughput, 100, 1)
	})
}

func TestGraceCancelsStuckEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		work := func(ctx context.Context) error {
			if time.Since(start) > 500*time.Millisecond {
				<-ctx.Done() // stuck until cancelled
				return ctx.Err()
			}
			return sleepCtx(ctx, 100*time.Millisecond)
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: time.Second}, Grace: 2 * time.Second, Ops: ops},
			[]Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("run took %v, want window 1 s + grace 2 s", got)
		}
		if res.Summary.Errors != 0 {
			t.Errorf("the event cancelled at the end counted as an error: %v", res.Summary.ErrorsByClass)
		}
		if res.Summary.Cancelled != 1 {
			t.Errorf("cancelled %d, want the one event stuck at the end reported", res.Summary.Cancelled)
		}
		within(t, "count", float64(res.Summary.Count), 6, 0)
	})
}

func TestSeveralInstancesAggregate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fast := instance(func(ctx context.Context) error { return sleepCtx(ctx, 5*time.Millisecond) })
		slow := instance(func(ctx context.Context) error { return sleepCtx(ctx, 20*time.Millisecond) })
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 2, Duration: time.Second}, Ops: ops}, []Opened{fast, slow})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Instances) != 2 {
			t.Fatalf("%d instances", len(res.Instances))
		}
		within(t, "fast count", float64(res.Instances[0].Summary.Count), 400, 2)
		within(t, "slow count", float64(res.Instances[1].Summary.Count), 100, 2)
		within(t, "aggregate", float64(res.Summary.Count), 500, 3)
		if res.Summary.Latency.P99Ms < 19 || res.Summary.Latency.P50Ms > 6 {
			t.Errorf("aggregate latency %+v does not mix both instances", res.Summary.Latency)
		}
	})
}

func TestSettingsErrorsAllAtOnce(t *testing.T) {
	_, err := Run(context.Background(), Settings{Load: Load{Threads: 0, Duration: 0, Rate: -1}}, []Opened{instance(nil)})
	if !errors.Is(err, ErrSettings) {
		t.Fatalf("err = %v, want ErrSettings", err)
	}
	for _, want := range []string{"threads", "time", "rate"} {
		if !contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub)))
}

// TestOpenLoopKeepsWindowLength: with more VUs than needed, every scheduled
// start is served before the end; the run must still last the whole window,
// be complete, and stop promptly when interrupted in that state.
func TestOpenLoopKeepsWindowLength(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		work := func(ctx context.Context) error { return sleepCtx(ctx, time.Millisecond) }
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 8, Rate: 10, Duration: 2 * time.Second}, Ops: ops},
			[]Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Partial || time.Since(start) != 2*time.Second || res.Summary.Count != 20 || len(res.Intervals) != 2 {
			t.Errorf("partial %v (%s), took %v, count %d, intervals %d", res.Partial, res.PartialReason, time.Since(start), res.Summary.Count, len(res.Intervals))
		}
	})
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ctx, cancel := context.WithCancelCause(context.Background())
		// Starts at 0, 1 and 2 s are all served by 2.001 s; the signal comes at 2.5 s.
		time.AfterFunc(2500*time.Millisecond, func() { cancel(errors.New("SIGINT")) })
		work := func(ctx context.Context) error { return sleepCtx(ctx, time.Millisecond) }
		res, err := Run(ctx, Settings{Load: Load{Threads: 2, Rate: 1, Duration: 3 * time.Second}, Ops: ops}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Partial || time.Since(start) != 2500*time.Millisecond || res.Summary.Count != 3 {
			t.Errorf("partial %v, took %v, count %d", res.Partial, time.Since(start), res.Summary.Count)
		}
	})
}

// TestEndRaceIsNotPartial: VUs see the window's end by the clock and may all
// leave before the ticker's last tick is handled; the run is still complete.
func TestEndRaceIsNotPartial(t *testing.T) {
	for i := 0; i < 30; i++ {
		synctest.Test(t, func(t *testing.T) {
			work := func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) }
			res, err := Run(context.Background(), Settings{Load: Load{Threads: 2, Duration: 100 * time.Millisecond}, Ops: ops}, []Opened{instance(work)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Partial {
				t.Fatalf("run %d marked partial: %s", i, res.PartialReason)
			}
		})
	}
}

// stamped is a cancellation cause that says when it happened (Stamped).
type stamped struct{ at time.Time }

func (s stamped) Error() string { return "received terminated" }
func (s stamped) At() time.Time { return s.at }

// TestLateSeenSignalInterrupts: a signal received before the window's end,
// while the ticker is busy until after the end, still marks the run partial
// when its cause carries the moment it was received; a cause without a stamp
// is judged when the runner sees it, after the end, and the run is complete.
// The busy ticker is a Snapshot that takes the window's last second; the
// runner then finds both the cancelled context and its last tick ready, and
// must give the same answer whichever it takes first.
func TestLateSeenSignalInterrupts(t *testing.T) {
	for _, withStamp := range []bool{true, false} {
		for i := range 20 {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				busy := false
				snap := func(at time.Time, take func() (*result.Run, error)) {
					if busy {
						return
					}
					busy = true
					var cause error = errors.New("received terminated")
					if withStamp {
						cause = stamped{time.Now()}
					}
					cancel(cause)
					time.Sleep(1500 * time.Millisecond) // past the window's end
				}
				work := func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) }
				res, err := Run(ctx, Settings{Load: Load{Threads: 1, Duration: 2 * time.Second}, Ops: ops, Snapshot: snap}, []Opened{instance(work)})
				if err != nil {
					t.Fatal(err)
				}
				if withStamp && (!res.Partial || !strings.Contains(res.PartialReason, "interrupted: received terminated")) {
					t.Errorf("stamped #%d: partial %v, reason %q", i, res.Partial, res.PartialReason)
				}
				if !withStamp && res.Partial {
					t.Errorf("unstamped #%d: partial, reason %q", i, res.PartialReason)
				}
			})
		}
	}
}

func TestIntervalsOnNominalBoundaries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := func(ctx context.Context) error { return sleepCtx(ctx, 7*time.Millisecond) }
		res, err := Run(context.Background(), Settings{
			Load:     Load{Threads: 1, Warmup: time.Second, Duration: time.Second},
			Interval: 300 * time.Millisecond,
			Ops:      ops,
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			end   float64
			phase string
		}{{0.3, "warmup"}, {0.6, "warmup"}, {0.9, "warmup"}, {1.0, "warmup"}, {1.3, "measure"}, {1.6, "measure"}, {1.9, "measure"}, {2.0, "measure"}}
		if len(res.Intervals) != len(want) {
			t.Fatalf("%d intervals, want %d: %+v", len(res.Intervals), len(want), res.Intervals)
		}
		var measured int64
		for i, w := range want {
			iv := res.Intervals[i]
			if math.Abs(iv.EndS-w.end) > 1e-9 || iv.Phase != w.phase {
				t.Errorf("interval %d ends at %v (%s), want %v (%s)", i, iv.EndS, iv.Phase, w.end, w.phase)
			}
			if iv.Phase == "measure" {
				measured += iv.Events
			}
		}
		if measured != res.Summary.Count {
			t.Errorf("measured intervals hold %d events, the summary %d", measured, res.Summary.Count)
		}
	})
}

func TestRetryableErrorsRerunTheEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		inst := txInstance(errclass.Deadlock, func(ctx context.Context) error {
			if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
				return err
			}
			if n.Add(1)%2 == 1 { // every other attempt deadlocks
				return errTx
			}
			return nil
		})
		res, err := Run(context.Background(), Settings{
			Load:  Load{Threads: 1, Duration: time.Second},
			Ops:   ops,
			Retry: []errclass.Class{errclass.Deadlock},
		}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.Errors != 0 || s.Retries != 50 || s.RetriesByClass["deadlock"] != 50 {
			t.Errorf("errors %d, retries %d %v; want 0 and 50", s.Errors, s.Retries, s.RetriesByClass)
		}
		within(t, "count", float64(s.Count), 50, 0)
		// Each event spans both of its attempts.
		within(t, "avg latency ms", s.Latency.AvgMs, 20, 0.1)
		if res.Ops[1].ErrorsByClass["deadlock"] != 50 {
			t.Errorf("the failed attempts' statements are not counted: %+v", res.Ops[1])
		}
		if got := res.Load.Retry; len(got) != 1 || got[0] != "deadlock" {
			t.Errorf("load.retry = %v", got)
		}
	})
}

// TestRetryWithinGrace: an event in flight at the end of the window that
// fails with a retryable error is retried within the grace period, as the
// event it is part of; its failure is not a final one. Completed after the
// window, it is counted apart (AfterWindow), with its retry.
func TestRetryWithinGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var failed atomic.Bool
		inst := txInstance(errclass.Deadlock, func(ctx context.Context) error {
			if err := sleepCtx(ctx, 300*time.Millisecond); err != nil {
				return err
			}
			if time.Since(start) > time.Second && failed.CompareAndSwap(false, true) {
				return errTx // the event started at 0.9 s fails at 1.2 s, once
			}
			return nil
		})
		res, err := Run(context.Background(), Settings{
			Load:  Load{Threads: 1, Duration: time.Second},
			Grace: 2 * time.Second,
			Ops:   ops,
			Retry: []errclass.Class{errclass.Deadlock},
		}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.Errors != 0 || s.Retries != 0 || s.Count != 3 || s.AfterWindow != 1 || s.Cancelled != 0 {
			t.Errorf("count %d, after the window %d, errors %d %v, retries %d, cancelled %d; want 3, 1, 0, 0 and 0",
				s.Count, s.AfterWindow, s.Errors, s.ErrorsByClass, s.Retries, s.Cancelled)
		}
		if got := time.Since(start); got != 1500*time.Millisecond {
			t.Errorf("run took %v, want 1.5 s: the retry ends within the grace period", got)
		}
	})
}

// TestRetriesRunOut: an event that keeps failing with a retried class is
// run MaxRetries+1 times, then fails for good: one error of that class and
// one gave-up event, its failed re-runs counted as retries.
func TestRetriesRunOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var attempts atomic.Int64
		inst := txInstance(errclass.Serialization, func(ctx context.Context) error {
			if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
				return err
			}
			if attempts.Add(1) <= 8 { // two whole events fail, then all succeed
				return errTx
			}
			return nil
		})
		res, err := Run(context.Background(), Settings{
			Load:       Load{Threads: 1, Duration: time.Second},
			Ops:        ops,
			MaxRetries: 3,
			Retry:      []errclass.Class{errclass.Serialization},
		}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.GaveUp != 2 || s.Errors != 2 || s.ErrorsByClass["serialization"] != 2 || s.Retries != 6 {
			t.Errorf("gave up %d, errors %d %v, retries %d; want 2, 2 serialization and 6", s.GaveUp, s.Errors, s.ErrorsByClass, s.Retries)
		}
		within(t, "count", float64(s.Count), 100-8, 0)
		if res.Load.MaxRetries != 3 {
			t.Errorf("load.max_retries = %d, want 3", res.Load.MaxRetries)
		}
	})
}

// TestActiveVUs: an interval counts the virtual users that completed an
// event in it; one held by a slow event is missing from it.
func TestActiveVUs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				d := 100 * time.Millisecond
				if id == 0 {
					d = 2500 * time.Millisecond // one event, ending at 2.5 s
				}
				return &fakeVU{work: func(ctx context.Context) error { return sleepCtx(ctx, d) }}, nil
			},
			Classify: classify,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 3, Duration: 3 * time.Second}, Grace: -1, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, iv := range res.Intervals {
			got = append(got, iv.ActiveVUs)
		}
		if !slices.Equal(got, []int64{2, 2, 3}) {
			t.Errorf("active virtual users per interval %v, want [2 2 3]", got)
		}
		if a := res.Instances[0].Intervals[2].ActiveVUs; a != 3 {
			t.Errorf("the instance's last interval has %d active, want 3", a)
		}
	})
}

func TestRateBounds(t *testing.T) {
	for _, r := range []float64{math.NaN(), math.Inf(1), -1, 1e-12, 1e12} {
		_, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: time.Second, Rate: r}}, []Opened{instance(nil)})
		if !errors.Is(err, ErrSettings) {
			t.Errorf("rate %v: err = %v, want ErrSettings", r, err)
		}
	}
}

// TestDroppedCountedInClosedForm: a huge backlog of never-served starts is
// counted without walking it one by one.
func TestDroppedCountedInClosedForm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := func(ctx context.Context) error { return sleepCtx(ctx, time.Second) }
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Rate: 1e7, Duration: 10 * time.Second}, Ops: ops},
			[]Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		// The starts of the window's last millisecond (the late threshold:
		// not late yet at its end) are not dropped.
		if s := res.Summary; s.Count != 10 || s.Dropped != 1e8-10-1e4 {
			t.Errorf("count %d dropped %d, want 10 and %d", s.Count, s.Dropped, int64(1e8-10-1e4))
		}
	})
}

func TestStuckEventsAreAbandoned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		block := make(chan struct{})
		defer close(block)
		work := func(ctx context.Context) error {
			if time.Since(start) > 500*time.Millisecond {
				<-block // ignores its context
			}
			return sleepCtx(ctx, 100*time.Millisecond)
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: time.Second}, Grace: time.Second, Ops: ops},
			[]Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Partial || time.Since(start) != time.Second+time.Second+abandonAfter {
			t.Errorf("partial %v (%s) after %v", res.Partial, res.PartialReason, time.Since(start))
		}
		within(t, "count", float64(res.Summary.Count), 6, 0)
	})
}

func TestClientCPUOverTheMeasuredWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		// A fake CPU clock: 1 ms of user CPU per elapsed 10 ms, sys twice that.
		cpu := func() (time.Duration, time.Duration) {
			e := time.Since(start)
			return e / 10, e / 5
		}
		work := func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) }
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Warmup: time.Second, Duration: 2 * time.Second}, Ops: ops, CPUTime: cpu},
			[]Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Client
		if c == nil {
			t.Fatal("no client figures")
		}
		within(t, "user s", c.CPUUserS, 0.2, 1e-9)
		within(t, "sys s", c.CPUSysS, 0.4, 1e-9)
		within(t, "µs per event", c.CPUPerEventUs, 0.6e6/200, 1)
	})
}

// pacedVU counts one thing per step and asks for its own pause.
type pacedVU struct{ pause time.Duration }

func (p *pacedVU) Event(ctx context.Context, m workload.Meter) error {
	s := m.Start(0)
	err := sleepCtx(ctx, 10*time.Millisecond)
	m.End(s, err)
	if err == nil {
		m.Count(1, 2)
	}
	return err
}
func (p *pacedVU) Close() error         { return nil }
func (p *pacedVU) Pause() time.Duration { return p.pause }

func TestPacerAndCounters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := Run(context.Background(), Settings{
			// --think-time is ignored for a VU that paces itself.
			Load:     Load{Threads: 2, Warmup: time.Second, Duration: 2 * time.Second, Think: pace.Think{Mean: time.Second}},
			Ops:      ops,
			Counters: []string{"unused", "things"},
		}, []Opened{{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				return &pacedVU{pause: 90 * time.Millisecond}, nil
			},
			Classify: classify,
		}})
		if err != nil {
			t.Fatal(err)
		}
		// Each VU: 10 ms step + 90 ms pause = 10 events a second.
		within(t, "measured count", float64(res.Summary.Count), 40, 2)
		if got, want := res.Summary.Counters["things"], 2*res.Summary.Count; got != want {
			t.Errorf("counter things = %d, want 2 per measured event = %d", got, want)
		}
		if res.Summary.Counters["unused"] != 0 {
			t.Errorf("counter unused = %d", res.Summary.Counters["unused"])
		}
		if res.Warmup == nil || res.Warmup.Counters["things"] != 2*res.Warmup.Count {
			t.Errorf("warm-up counters %v for %d events", res.Warmup.Counters, res.Warmup.Count)
		}
		if got := res.Instances[0].Summary.Counters["things"]; got != res.Summary.Counters["things"] {
			t.Errorf("instance counter %d, run %d", got, res.Summary.Counters["things"])
		}
	})
}

// retryingVU fails its first attempt of every event with a deadlock and
// records what Meter.Retrying said on each attempt.
type retryingVU struct {
	mu   *sync.Mutex
	seen *[]bool
	odd  bool
}

var errDeadlockRetry = errors.New("deadlock")

func (r *retryingVU) Event(ctx context.Context, m workload.Meter) error {
	r.mu.Lock()
	*r.seen = append(*r.seen, m.Retrying())
	r.mu.Unlock()
	r.odd = !r.odd
	if r.odd {
		return errDeadlockRetry
	}
	return sleepCtx(ctx, 10*time.Millisecond)
}
func (r *retryingVU) Close() error { return nil }

func TestMeterSaysWhenAStepIsARetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var seen []bool
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				return &retryingVU{mu: &mu, seen: &seen}, nil
			},
			Classify: func(err error) errclass.Class {
				if errors.Is(err, errDeadlockRetry) {
					return errclass.Deadlock
				}
				return errclass.Generic(err)
			},
		}
		if _, err := Run(context.Background(), Settings{
			Load:  Load{Threads: 1, Duration: 100 * time.Millisecond},
			Ops:   ops,
			Retry: []errclass.Class{errclass.Deadlock},
		}, []Opened{inst}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) < 6 {
			t.Fatalf("only %d attempts", len(seen))
		}
		for i, r := range seen {
			if want := i%2 == 1; r != want {
				t.Fatalf("attempt %d: Retrying() = %v, want %v (first attempts false, re-runs true): %v", i, r, want, seen)
			}
		}
	})
}

// pipeVU keeps depth events of 10 ms in flight from one goroutine, and
// fails after failAfter events when that is set.
type pipeVU struct {
	depth, failAfter int
}

func TestOnePipelineVUFailingMakesThePartialReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				if id == 1 {
					return &pipeVU{depth: 2, failAfter: 10}, nil
				}
				return &pipeVU{depth: 2}, nil
			},
			Classify: classify,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 2, Duration: time.Second}, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Partial || !strings.Contains(res.PartialReason, "no space left on device") || res.Summary.Errors != 1 {
			t.Errorf("partial %v reason %q errors %d: a VU that failed while another ran on must make the run partial", res.Partial, res.PartialReason, res.Summary.Errors)
		}
		within(t, "duration", res.Summary.DurationS, 1, 0.01)
	})
}

var errDiskFull = errors.New("no space left on device")

func (p *pipeVU) Event(ctx context.Context, m workload.Meter) error { return nil }
func (p *pipeVU) Close() error                                      { return nil }
func (p *pipeVU) Run(ctx context.Context, rec workload.Recorder, more func() bool) error {
	var inflight []time.Time
	done := 0
	for {
		for len(inflight) < p.depth && more() {
			inflight = append(inflight, time.Now())
		}
		if len(inflight) == 0 {
			return nil
		}
		// The oldest finishes 10 ms after it started.
		if err := sleepCtx(ctx, time.Until(inflight[0].Add(10*time.Millisecond))); err != nil {
			return err
		}
		if done++; p.failAfter > 0 && done > p.failAfter {
			// The failed event is reported, then the error ends the VU.
			rec.Event(0, inflight[0], time.Now(), errDiskFull)
			return errDiskFull
		}
		rec.Event(0, inflight[0], time.Now(), nil)
		inflight = inflight[1:]
	}
}

func TestPipelineVUs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				return &pipeVU{depth: 4}, nil
			},
			Classify: classify,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 2, Warmup: time.Second, Duration: 2 * time.Second}, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		// 2 VUs x 4 in flight x 100 a second x 2 s.
		within(t, "measured events", float64(res.Summary.Count), 1600, 16)
		within(t, "warm-up events", float64(res.Warmup.Count), 800, 16)
		within(t, "avg latency ms", res.Summary.Latency.AvgMs, 10, 0.01)
		if res.Summary.Reads != res.Summary.Count || res.Partial {
			t.Errorf("reads %d for %d events, partial %v", res.Summary.Reads, res.Summary.Count, res.Partial)
		}
	})
}

func TestPipelineFailureEndsTheRunWithItsReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				return &pipeVU{depth: 2, failAfter: 50}, nil
			},
			Classify: classify,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: 10 * time.Second}, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Partial || !strings.Contains(res.PartialReason, "no space left on device") {
			t.Errorf("partial %v, reason %q: want the VU's error", res.Partial, res.PartialReason)
		}
		if res.Summary.Count != 50 || res.Summary.Errors != 1 {
			t.Errorf("count %d errors %d, want 50 and 1", res.Summary.Count, res.Summary.Errors)
		}
		if res.Summary.DurationS > 1 {
			t.Errorf("the run went on %.1f s after every VU failed", res.Summary.DurationS)
		}
	})
}

func TestPipelineRefusesTheOpenLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				return &pipeVU{depth: 2}, nil
			},
			Classify: classify,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Rate: 100, Duration: time.Second}, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Partial || !strings.Contains(res.PartialReason, "closed loop only") {
			t.Errorf("partial %v reason %q", res.Partial, res.PartialReason)
		}
	})
}

// The host is sampled once when the run starts (the first interval's
// figures begin there, not at the sampler's creation or the previous step)
// and then at each tick.
func TestHostSampledEachTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var at []time.Time
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 1, Warmup: time.Second, Duration: 2 * time.Second},
			Ops:  ops,
			Sample: func(secs float64) *result.Host {
				at = append(at, time.Now())
				if len(at) == 1 {
					within(t, "the start's seconds", secs, 0, 0)
					return nil
				}
				within(t, "sampled seconds", secs, 1, 1e-9)
				calls := len(at) - 1
				return &result.Host{CPUs: 2, CPU: result.CPUPct{User: float64(10 * calls), Idle: 100 - float64(10*calls)}}
			},
		}, []Opened{instance(func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) })})
		if err != nil {
			t.Fatal(err)
		}
		if len(at) != 4 {
			t.Fatalf("%d samples for the start and 3 ticks", len(at))
		}
		if d := at[1].Sub(at[0]); d != time.Second {
			t.Errorf("first tick %v after the start's sample, want 1s", d)
		}
		for i, iv := range res.Intervals {
			if iv.Host == nil || iv.Host.CPU.User != float64(10*(i+1)) {
				t.Errorf("interval %d host %+v", i, iv.Host)
			}
		}
		// The run's figure is the mean of the two measured intervals (20 and 30).
		if res.Host == nil || res.Host.CPU.User != 25 {
			t.Errorf("run host %+v", res.Host)
		}
	})
}

// The aggregate histogram of several instances is exactly the histogram of
// all their samples (merged, never averaged percentiles), and fairness
// compares the instances.
func TestAggregateHistogramIsTheCombinedSamples(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fast := instance(func(ctx context.Context) error { return sleepCtx(ctx, 3*time.Millisecond) })
		slow := instance(func(ctx context.Context) error { return sleepCtx(ctx, 17*time.Millisecond) })
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: time.Second}, Ops: ops}, []Opened{fast, slow})
		if err != nil {
			t.Fatal(err)
		}
		want := hist.New()
		for _, in := range res.Instances {
			h, err := hist.FromSnapshot(in.Ops[0].Histogram)
			if err != nil {
				t.Fatal(err)
			}
			want.Merge(h)
		}
		got, err := hist.FromSnapshot(res.Ops[0].Histogram)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []float64{0.1, 0.5, 0.75, 0.9, 0.99, 1} {
			if got.Quantile(q) != want.Quantile(q) {
				t.Errorf("q%v: aggregate %v, combined samples %v", q, got.Quantile(q), want.Quantile(q))
			}
		}
		if got.Count() != want.Count() || got.Count() != res.Summary.Count {
			t.Errorf("counts: aggregate %d, combined %d, summary %d", got.Count(), want.Count(), res.Summary.Count)
		}
		// The average of the two instances' p50 (10 ms) is not the aggregate's.
		if p50 := result.Ms(got.Quantile(0.5)); p50 > 3.1 {
			t.Errorf("aggregate p50 %v ms: the fast instance has most samples", p50)
		}
		f := res.Fairness
		if f == nil || f.Min > f.Max || f.CoVPct < 50 {
			t.Errorf("fairness %+v: throughputs %v and %v are far apart", f, res.Instances[0].Summary.Throughput, res.Instances[1].Summary.Throughput)
		}
	})
}

// A ticker held up past its next tick (here by a slow OnTick, in the field
// by a client starved of CPU) is reported, with how late it fired.
func TestTickerLag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		res, err := Run(context.Background(), Settings{
			Load:     Load{Threads: 1, Duration: time.Second},
			Interval: 100 * time.Millisecond,
			Ops:      ops,
			Event:    "transaction",
			Unit:     "transactions",
			OnTick: func(agg result.Interval, per []result.Interval) {
				if n++; n == 2 {
					time.Sleep(350 * time.Millisecond) // ticks at 300 and 400 ms fire late
				}
			},
		}, []Opened{instance(func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) })})
		if err != nil {
			t.Fatal(err)
		}
		l := res.TickerLag
		if l == nil || l.Late != 2 || l.Ticks < 8 {
			t.Fatalf("ticker lag %+v, want 2 late ticks", l)
		}
		within(t, "worst lag s", l.MaxS, 0.25, 0.001)
		if res.Summary.Count < 95 {
			t.Errorf("events %d: the totals must stay exact", res.Summary.Count)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		res, err := Run(context.Background(), Settings{
			Load:     Load{Threads: 1, Duration: 500 * time.Millisecond},
			Interval: 100 * time.Millisecond,
			Ops:      ops,
			Event:    "transaction",
			Unit:     "transactions",
		},
			[]Opened{instance(func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) })})
		if err != nil || res.TickerLag != nil {
			t.Errorf("a punctual run reports lag %+v (%v)", res.TickerLag, err)
		}
	})
}

var (
	allocSink     []*[64]byte
	allocSinkTiny []*int64
)

// TestClientAllocationsPerEvent: the client's figures count the Go heap's
// allocations per event and the collections in the measured window, from
// the runtime's own counters: a workload allocating 20 objects an event
// (half of them tiny, 8 bytes without pointers),
// and collecting every 25th event, reads as at least 20 allocations per
// event (and not many more: the runner's own hot path allocates little) and
// at least one collection per 25 events.
func TestClientAllocationsPerEvent(t *testing.T) {
	const perEvent = 20
	var n atomic.Int64
	work := func(ctx context.Context) error {
		for range perEvent / 2 {
			allocSink = append(allocSink[:0], new([64]byte))
			allocSinkTiny = append(allocSinkTiny[:0], new(int64)) // the tiny allocator's
		}
		if n.Add(1)%25 == 0 {
			runtime.GC()
		}
		return sleepCtx(ctx, time.Millisecond)
	}
	cpu := func() (time.Duration, time.Duration) { return 0, 0 }
	res, err := Run(context.Background(), Settings{Load: Load{Threads: 2, Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond}, Ops: ops, CPUTime: cpu},
		[]Opened{instance(work)})
	if err != nil {
		t.Fatal(err)
	}
	c, count := res.Client, res.Summary.Count
	if c == nil || count == 0 {
		t.Fatalf("client %+v, count %d", c, count)
	}
	if c.AllocsPerEvent < perEvent || c.AllocsPerEvent > perEvent+10 {
		t.Errorf("%.2f heap allocations per event, want %d to %d", c.AllocsPerEvent, perEvent, perEvent+10)
	}
	if c.GCCycles < count/25 {
		t.Errorf("%d garbage collections over %d events, want at least %d", c.GCCycles, count, count/25)
	}
	t.Logf("%d events: %.2f allocations per event, %d collections", count, c.AllocsPerEvent, c.GCCycles)
}

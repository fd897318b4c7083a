package runner

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// TestSnapshotAtEveryTickButTheLast checks Settings.Snapshot: called after each
// tick but the window's last, it gives the figures so far from the HDR
// totals (sub-operations included), partial, and they agree with the final
// result up to that tick.
func TestSnapshotAtEveryTickButTheLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) }
		var snaps []*result.Run
		start := time.Now()
		res, err := Run(context.Background(), Settings{
			Load:    Load{Threads: 2, Warmup: time.Second, Duration: 3 * time.Second},
			Ops:     ops,
			Event:   "transaction",
			Unit:    "transactions",
			CPUTime: func() (time.Duration, time.Duration) { return time.Second, 0 },
			Snapshot: func(at time.Time, take func() (*result.Run, error)) {
				if want := time.Duration(len(snaps)+1) * time.Second; at.Sub(start) != want {
					t.Errorf("snapshot %d at %v, want %v", len(snaps), at.Sub(start), want)
				}
				s, err := take()
				if err != nil {
					t.Fatal(err)
				}
				snaps = append(snaps, s)
			},
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		// Ticks at 1 s (warm-up end), 2 s, 3 s; 4 s ends the window.
		if len(snaps) != 3 {
			t.Fatalf("%d snapshots, want 3 (every tick but the last)", len(snaps))
		}
		for i, s := range snaps {
			if !s.Partial || !s.Summary.Partial || !s.Instances[0].Summary.Partial {
				t.Errorf("snapshot %d not marked partial", i)
			}
			if len(s.Intervals) != i+1 || len(s.Instances[0].Intervals) != i+1 {
				t.Errorf("snapshot %d: %d intervals, want %d", i, len(s.Intervals), i+1)
			}
			if i > 0 && (len(s.Ops) != 2 || s.Ops[0].Kind != "event" || s.Ops[1].Name != "query" || s.Ops[1].Histogram == "" || s.Ops[1].Count != s.Summary.Count) {
				t.Errorf("snapshot %d ops: %+v, want the event and the query with their histograms", i, s.Ops)
			}
		}
		// The first snapshot is at the warm-up's end: nothing measured yet.
		if s := snaps[0]; s.Summary.Count != 0 || s.Summary.DurationS != 0 || s.Warmup == nil || s.Warmup.Count == 0 || s.Client != nil {
			t.Errorf("at the warm-up's end: summary %+v, warm-up %+v, client %+v", s.Summary, s.Warmup, s.Client)
		}
		// Two measured seconds at the last: 2 VUs × 2 s / 10 ms = 400 events.
		last := snaps[2]
		within(t, "snapshot count", float64(last.Summary.Count), 400, 2)
		within(t, "snapshot duration", last.Summary.DurationS, 2, 1e-9)
		within(t, "snapshot throughput", last.Summary.Throughput, 200, 1)
		within(t, "snapshot p99 ms", last.Summary.Latency.P99Ms, 10, 0.1)
		if last.Client == nil {
			t.Error("no client figures in a snapshot of the measured window")
		}
		// The snapshot's intervals are those of the result so far, and the
		// run appending to its series did not change them.
		for i, iv := range last.Intervals {
			if iv.EndS != res.Intervals[i].EndS || iv.Events != res.Intervals[i].Events {
				t.Errorf("interval %d: snapshot %+v, result %+v", i, iv, res.Intervals[i])
			}
		}
		if res.Partial || res.Summary.Partial {
			t.Error("the final result is marked partial")
		}
		if len(res.Ops) != 2 {
			t.Errorf("the final result has %d ops, want the event and the query", len(res.Ops))
		}
	})
}

// TestClampedEventsAreReported records an event above the histograms' range
// (1 h) and expects it counted in the summary (report's tests check the
// warning line).
func TestClampedEventsAreReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := true
		work := func(ctx context.Context) error {
			if first {
				first = false
				return sleepCtx(ctx, 61*time.Minute)
			}
			return sleepCtx(ctx, time.Minute)
		}
		res, err := Run(context.Background(), Settings{
			Load:     Load{Threads: 1, Duration: 2 * time.Hour},
			Interval: 10 * time.Minute,
			Ops:      ops,
			Event:    "transaction",
			Unit:     "transactions",
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Clamped != 1 || res.Instances[0].Summary.Clamped != 1 {
			t.Errorf("clamped = %d (instance %d), want 1", res.Summary.Clamped, res.Instances[0].Summary.Clamped)
		}
		if res.Summary.Latency.MaxMs < 3.5e6 || res.Summary.Latency.MaxMs > 3.61e6 {
			t.Errorf("max %v ms, want 1 h (the clamp)", res.Summary.Latency.MaxMs)
		}
	})
}

// TestSignalAfterTheWindowIsNotAnInterruption: a signal that arrives once
// the measured window is over, while a late ticker has not yet run its last
// tick, leaves a complete result (exit 0 in the CLI), not a partial one.
func TestSignalAfterTheWindowIsNotAnInterruption(t *testing.T) {
	for i := range 10 { // the select picks the signal or the tick at random
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			time.AfterFunc(2200*time.Millisecond, func() { cancel(errors.New("SIGTERM")) })
			work := func(ctx context.Context) error { return sleepCtx(ctx, 10*time.Millisecond) }
			res, err := Run(ctx, Settings{
				Load: Load{Threads: 1, Duration: 2 * time.Second},
				Ops:  ops,
				OnTick: func(agg result.Interval, per []result.Interval) {
					if agg.EndS == 1 {
						time.Sleep(1500 * time.Millisecond) // the ticker falls behind the window's end
					}
				},
			}, []Opened{instance(work)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Partial || res.Summary.Partial || res.Summary.DurationS != 2 {
				t.Errorf("#%d: partial %v (%s), %g s measured", i, res.Partial, res.PartialReason, res.Summary.DurationS)
			}
		})
	}
}

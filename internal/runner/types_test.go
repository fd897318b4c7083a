package runner

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/workload"
)

// typedVU runs two transaction types in turn, "slow" (4 ms) and "fast"
// (1 ms), each reported with one span of its type around the event, as a
// workload with transaction types does (workload.Op.Type).
type typedVU struct{ n int }

func (v *typedVU) Event(ctx context.Context, m workload.Meter) error {
	v.n++
	op, d := 0, 4*time.Millisecond
	if v.n%4 != 0 { // three fast for one slow
		op, d = 1, time.Millisecond
	}
	s := m.Start(op)
	err := sleepCtx(ctx, d)
	m.End(s, err)
	return err
}
func (v *typedVU) Close() error { return nil }

var typedOps = []workload.Op{{Name: "slow", Kind: workload.Write, Type: true}, {Name: "fast", Kind: workload.Read, Type: true}}

// In the open loop, a transaction type's response time counts from the
// intended start like the event's, so a stall that queues starts shows in
// both types' figures, not only in the event's.
func TestTypesCountFromTheIntendedStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		stallFrom, stallTo := start.Add(2*time.Second), start.Add(2300*time.Millisecond)
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 2, Rate: 100, Arrival: pace.Constant, Duration: 10 * time.Second},
			Ops:  typedOps,
		}, []Opened{{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				return &stallingVU{typedVU{}, stallFrom, stallTo}, nil
			},
			Classify: classify,
		}})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if len(s.Types) != 2 {
			t.Fatalf("types = %+v, want slow and fast", s.Types)
		}
		fast, slow := s.Types[0], s.Types[1]
		if fast.Name != "fast" || slow.Name != "slow" {
			t.Fatalf("types %q, %q: want the most used (fast) first", fast.Name, slow.Name)
		}
		within(t, "fast share", fast.SharePct, 75, 1)
		within(t, "slow share", slow.SharePct, 25, 1)
		if fast.Count+slow.Count != s.Count {
			t.Errorf("types count %d + %d, events %d", fast.Count, slow.Count, s.Count)
		}
		// About 30 starts (3 %) fall in the 0.3 s stall: waiting up to
		// 0.3 s, they put both types' p99 far above their 1 and 4 ms of
		// service, while p95 stays near it.
		for _, ty := range s.Types {
			if ty.P99Ms < 100 {
				t.Errorf("%s p99 = %.1f ms, want the stall's queueing (>= 100 ms) from the intended start", ty.Name, ty.P99Ms)
			}
		}
		if fast.P95Ms > 3 || slow.P95Ms < 3.9 {
			t.Errorf("p95: fast %.2f ms, slow %.2f ms; want about 1 and 4", fast.P95Ms, slow.P95Ms)
		}
		// fast alone is 75 % of the mix, under result.FrequentPct: slow is
		// frequent too, and the slower of the two by p95.
		if !fast.Frequent || !slow.Frequent || s.SlowestFrequent != "slow" {
			t.Errorf("frequent: fast %v, slow %v, slowest %q; want both, slowest slow", fast.Frequent, slow.Frequent, s.SlowestFrequent)
		}
		if in := res.Instances[0].Summary; len(in.Types) != 2 || in.SlowestFrequent != "slow" {
			t.Errorf("instance types %+v, slowest %q", in.Types, in.SlowestFrequent)
		}
	})
}

// stallingVU is a typedVU whose events wait out a stall.
type stallingVU struct {
	typedVU
	from, to time.Time
}

func (v *stallingVU) Event(ctx context.Context, m workload.Meter) error {
	if now := time.Now(); !now.Before(v.from) && now.Before(v.to) {
		if err := sleepCtx(ctx, v.to.Sub(now)); err != nil {
			return err
		}
	}
	return v.typedVU.Event(ctx, m)
}

// flakyTypedVU fails every other attempt with a deadlock, reporting its
// type's span on each attempt as a retried workload does.
type flakyTypedVU struct{ odd bool }

func (v *flakyTypedVU) Event(ctx context.Context, m workload.Meter) error {
	s := m.Start(0)
	v.odd = !v.odd
	err := sleepCtx(ctx, time.Millisecond)
	if v.odd && err == nil {
		err = errDeadlockRetry
	}
	m.End(s, err)
	return err
}
func (v *flakyTypedVU) Close() error { return nil }

// A retried event counts once in its type, as in the event: its failed
// attempts are retries, not errors of the type.
func TestRetriedTypeCountsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := Run(context.Background(), Settings{
			Load:  Load{Threads: 1, Duration: time.Second},
			Ops:   typedOps,
			Retry: []errclass.Class{errclass.Deadlock},
		}, []Opened{{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) { return &flakyTypedVU{}, nil },
			Classify: func(err error) errclass.Class {
				if errors.Is(err, errDeadlockRetry) {
					return errclass.Deadlock
				}
				return errclass.Generic(err)
			},
		}})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if len(s.Types) != 1 || s.Types[0].Count != s.Count || s.Types[0].Errors != 0 || s.Retries == 0 || s.Retries != s.Count {
			t.Errorf("types %+v for %d events and %d retries: want every event once in slow, no errors", s.Types, s.Count, s.Retries)
		}
	})
}

// TestYieldInterval: virtual users yield rarely while processors are to
// spare (a yield would wake an idle one's thread), often when they hold them
// all.
func TestYieldInterval(t *testing.T) {
	for _, c := range []struct {
		n, procs int
		want     time.Duration
	}{
		{1, 2, yieldEvery},
		{4, 6, yieldEvery},
		{8, 8, yieldEveryBusy},
		{64, 8, yieldEveryBusy},
	} {
		if got := yieldInterval(c.n, c.procs); got != c.want {
			t.Errorf("yieldInterval(%d VUs, %d procs) = %v, want %v", c.n, c.procs, got, c.want)
		}
	}
	if yieldEveryBusy >= yieldEvery || yieldEvery >= 10*time.Millisecond {
		t.Errorf("yieldEveryBusy %v, yieldEvery %v: want busy < every < the runtime's 10 ms", yieldEveryBusy, yieldEvery)
	}
}

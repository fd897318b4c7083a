package runner

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/result"
)

// A run's errors carry their first messages, with counts, into the result.
func TestErrorMessagesKeptWithCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		work := func(ctx context.Context) error {
			n++
			if err := sleepCtx(ctx, time.Millisecond); err != nil {
				return err
			}
			if n%2 == 0 {
				return fmt.Errorf("%w: division by zero", errTx)
			}
			return nil
		}
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 1, Duration: time.Second},
			Ops:  ops, Event: "transaction", Unit: "transactions",
		}, []Opened{txInstance(errclass.Other, work)})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.Errors == 0 {
			t.Fatalf("no errors counted: %+v", s)
		}
		want := []result.ErrorMessage{{Class: "other", Message: "transaction failed: division by zero", Count: s.Errors}}
		if fmt.Sprint(s.ErrorMessages) != fmt.Sprint(want) {
			t.Fatalf("ErrorMessages = %v, want %v", s.ErrorMessages, want)
		}
	})
}

// A stall in a closed loop: the event in flight when the window ends is a
// censored sample (its time so far is in max and the percentiles, not in
// the count), and a stall over half the window makes the run partial.
func TestStallInClosedLoopIsCensoredAndPartial(t *testing.T) {
	for _, tc := range []struct {
		name        string
		stallAt     time.Duration // from the start
		stall       time.Duration
		wantMax     time.Duration // the censored sample's time so far
		wantPartial bool
	}{
		// The server froze from 1 s to 41 s of a 3 s window.
		{"most of the window", time.Second, 40 * time.Second, 2 * time.Second, true},
		// A short stall at the end completes within --grace: after the
		// window, its time so far at the end still counts.
		{"at the end", 2800 * time.Millisecond, 500 * time.Millisecond, 200 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				stalled := false
				work := func(ctx context.Context) error {
					if !stalled && time.Since(start) >= tc.stallAt {
						stalled = true
						return sleepCtx(ctx, tc.stall)
					}
					return sleepCtx(ctx, time.Millisecond)
				}
				res, err := Run(context.Background(), Settings{
					Load: Load{Threads: 1, Duration: 3 * time.Second},
					Ops:  ops, Event: "transaction", Unit: "transactions",
				}, []Opened{instance(work)})
				if err != nil {
					t.Fatal(err)
				}
				s := res.Summary
				if s.Censored != 1 {
					t.Errorf("Censored = %d, want 1", s.Censored)
				}
				within(t, "max ms", s.Latency.MaxMs, float64(tc.wantMax.Milliseconds()), 5)
				if res.Partial != tc.wantPartial || (tc.wantPartial && !strings.Contains(res.PartialReason, "stalled")) {
					t.Errorf("partial %v (%q), want %v", res.Partial, res.PartialReason, tc.wantPartial)
				}
				// Throughput counts completed events only.
				if got := float64(s.Count) / s.DurationS; got != s.Throughput {
					t.Errorf("throughput %v, count/duration %v", s.Throughput, got)
				}
			})
		})
	}
}

// An open loop driven past capacity queues its starts: events in flight
// at the end are censored by their response time, but a run whose events
// each took little service time is not stalled.
func TestOverloadedOpenLoopIsNotStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := func(ctx context.Context) error { return sleepCtx(ctx, 30*time.Millisecond) }
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 1, Duration: 4 * time.Second, Rate: 200},
			Ops:  ops, Event: "transaction", Unit: "transactions",
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Partial {
			t.Fatalf("partial: %s", res.PartialReason)
		}
		if res.Summary.Censored != 1 || res.Summary.Latency.MaxMs < 2000 {
			t.Fatalf("censored %d, max %.0f ms: want 1 and the queue's wait", res.Summary.Censored, res.Summary.Latency.MaxMs)
		}
	})
}

// One virtual user stuck while the others go on is no stall of the run:
// its event is a censored sample in max, and the run is complete.
func TestOneStuckVirtualUserIsNoStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var stuck atomic.Bool
		work := func(ctx context.Context) error {
			if time.Since(start) >= time.Second && stuck.CompareAndSwap(false, true) {
				return sleepCtx(ctx, 40*time.Second)
			}
			return sleepCtx(ctx, time.Millisecond)
		}
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 2, Duration: 3 * time.Second},
			Ops:  ops, Event: "transaction", Unit: "transactions",
		}, []Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Partial {
			t.Errorf("partial: %s", res.PartialReason)
		}
		if res.Summary.Censored < 1 {
			t.Errorf("Censored = %d, want the stuck event", res.Summary.Censored)
		}
		within(t, "max ms", res.Summary.Latency.MaxMs, 2000, 5)
	})
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/workload"
)

// server is a system of fixed capacity: one event at a time, each taking
// service, so it completes at most 1/service events a second however many
// virtual users queue on it. (A channel, not a mutex: synctest sees a
// goroutine blocked on it as durably blocked.)
type server struct {
	slot    chan struct{}
	service time.Duration
}

func newServer(capacity float64) *server {
	return &server{slot: make(chan struct{}, 1), service: time.Duration(float64(time.Second) / capacity)}
}

func (s *server) work(ctx context.Context) error {
	select {
	case s.slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.slot }()
	return sleepCtx(ctx, s.service)
}

// TestOverloadThroughputIsCapacity drives a server of capacity C at 3C:
// the throughput is what it completed within the window, C (not the
// starts due in the window that happened to complete), the latency counts
// from the intended starts and so grows with the window, and the offered
// rate, late and dropped starts say how far the load was beyond it.
func TestOverloadThroughputIsCapacity(t *testing.T) {
	const capacity = 1000.0
	p99 := map[time.Duration]float64{}
	for _, window := range []time.Duration{5 * time.Second, 10 * time.Second} {
		synctest.Test(t, func(t *testing.T) {
			srv := newServer(capacity)
			res, err := Run(context.Background(), Settings{
				Load: Load{Threads: 8, Rate: 3 * capacity, Warmup: 2 * time.Second, Duration: window},
				Ops:  ops,
			}, []Opened{instance(srv.work)})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			t.Logf("window %v: throughput %.1f/s, offered %.1f/s, p99 %.0f ms, late %d, dropped %d, after the window %d",
				window, s.Throughput, s.Offered, s.Latency.P99Ms, s.Late, s.Dropped, s.AfterWindow)
			within(t, "throughput", s.Throughput, capacity, 0.05*capacity)
			within(t, "offered", s.Offered, 3*capacity, 1)
			secs := window.Seconds()
			// Every start due in the window began late or was dropped (the
			// backlog of the warm-up came first).
			if got := s.Late + s.Dropped; float64(got) < 0.99*3*capacity*secs {
				t.Errorf("late %d + dropped %d = %d, want about every one of the %.0f starts due", s.Late, s.Dropped, got, 3*capacity*secs)
			}
			for _, iv := range res.Intervals {
				if iv.Phase == "measure" && (iv.Rate < 0.95*capacity || iv.Offered != 3*capacity) {
					t.Errorf("interval at %.0f s: rate %.1f, offered %.1f; want about %v and %v", iv.EndS, iv.Rate, iv.Offered, capacity, 3*capacity)
				}
			}
			p99[window] = s.Latency.P99Ms
		})
	}
	// The backlog grows by 2C a second: at the window's end a start waits
	// two thirds of the time elapsed since the schedule began.
	if short, long := p99[5*time.Second], p99[10*time.Second]; !(long > 1.5*short && short > 2000) {
		t.Errorf("p99 %.0f ms over 5 s and %.0f ms over 10 s: want it above 2 s and growing with the window", short, long)
	}
}

// identity records what each NewVU call was given.
type identity struct {
	mu    sync.Mutex
	calls []string // "instance:id:seed"
}

func (n *identity) instance(idx int, lose *atomic.Int64) Opened {
	return Opened{
		NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
			n.mu.Lock()
			n.calls = append(n.calls, fmt.Sprintf("%d:%d:%d", idx, id, seed))
			n.mu.Unlock()
			return &fakeVU{work: func(ctx context.Context) error {
				if lose.Add(-1) >= 0 {
					return errLost
				}
				return sleepCtx(ctx, 10*time.Millisecond)
			}}, nil
		},
		Classify: classify,
	}
}

// TestReconnectKeepsIdentity: a virtual user that is opened anew after a
// lost connection gets the number and seed of its first connection, in
// every instance (the second instance's VUs used to come back as the
// first's, with the first's random streams).
func TestReconnectKeepsIdentity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n identity
		var lose [2]atomic.Int64
		lose[0].Store(1)
		lose[1].Store(2)
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 2, Duration: time.Second}, Ops: ops, Seed: 3},
			[]Opened{n.instance(0, &lose[0]), n.instance(1, &lose[1])})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Reconnects != 3 {
			t.Errorf("reconnects %d, want 3", res.Summary.Reconnects)
		}
		first := map[string]bool{}
		for _, c := range n.calls[:4] {
			first[c] = true
		}
		if len(first) != 4 {
			t.Fatalf("first connections %v, want 4 distinct", n.calls[:4])
		}
		for _, c := range n.calls[4:] {
			if !first[c] {
				t.Errorf("reconnect %s: not the number and seed of any first connection %v", c, n.calls[:4])
			}
		}
	})
}

// reconnector is a VU that reconnects in place; Reconnect fails with errs
// in turn, then succeeds.
type reconnector struct {
	fakeVU
	errs     []error
	attempts int
}

func (r *reconnector) Reconnect(ctx context.Context) error {
	r.attempts++
	if len(r.errs) > 0 {
		err := r.errs[0]
		r.errs = r.errs[1:]
		return err
	}
	return nil
}

var errAuth = errors.New("password authentication failed")

func classifyAuth(err error) errclass.Class {
	if errors.Is(err, errAuth) {
		return errclass.Auth
	}
	return classify(err)
}

// TestReconnectInPlaceCountsFailures: a Reconnector is reconnected in
// place (no new VU), and its failed attempts are counted by class.
func TestReconnectInPlaceCountsFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var opened atomic.Int64
		var lost atomic.Bool
		var rc *reconnector
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				opened.Add(1)
				rc = &reconnector{errs: []error{errLost, errLost}, fakeVU: fakeVU{work: func(ctx context.Context) error {
					if lost.CompareAndSwap(false, true) {
						return errLost
					}
					return sleepCtx(ctx, 10*time.Millisecond)
				}}}
				return rc, nil
			},
			Classify: classify,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: 2 * time.Second}, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if opened.Load() != 1 || rc.attempts != 3 {
			t.Errorf("opened %d VUs and made %d reconnect attempts, want 1 and 3", opened.Load(), rc.attempts)
		}
		if s.Reconnects != 1 || s.ReconnectFailures != 2 || s.ReconnectFailuresByClass["connection"] != 2 {
			t.Errorf("reconnects %d, failures %d %v; want 1, 2 {connection: 2}", s.Reconnects, s.ReconnectFailures, s.ReconnectFailuresByClass)
		}
		var inIntervals int64
		for _, iv := range res.Intervals {
			inIntervals += iv.ReconnectFailures
		}
		if inIntervals != 2 {
			t.Errorf("intervals show %d failed reconnects, want 2", inIntervals)
		}
		if res.Partial {
			t.Errorf("partial: %s", res.PartialReason)
		}
	})
}

// TestReconnectThatCannotHealEndsTheRun: a reconnect refused for a reason
// retrying cannot mend (here a failed authentication) ends the run at
// once, partial, with that reason, instead of retrying to the end.
func TestReconnectThatCannotHealEndsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var lost atomic.Bool
		inst := Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				if lost.Load() {
					return nil, fmt.Errorf("connect: %w", errAuth)
				}
				return &fakeVU{work: func(ctx context.Context) error {
					if time.Since(start) > time.Second && lost.CompareAndSwap(false, true) {
						return errLost
					}
					return sleepCtx(ctx, 10*time.Millisecond)
				}}, nil
			},
			Classify: classifyAuth,
		}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 4, Duration: time.Minute}, Ops: ops}, []Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("the run went on %v after the reconnect failed", took)
		}
		if !res.Partial || !strings.Contains(res.PartialReason, "password authentication failed") || !strings.Contains(res.PartialReason, "auth") {
			t.Errorf("partial %v, reason %q; want the authentication failure", res.Partial, res.PartialReason)
		}
		if s := res.Summary; s.ReconnectFailuresByClass["auth"] != 1 || s.Count == 0 {
			t.Errorf("reconnect failures %v, count %d; want {auth: 1} and the events before", s.ReconnectFailuresByClass, s.Count)
		}
	})
}

// TestClientCPUPerEventSameWindow: the client's CPU per event divides the
// CPU of the measured window by the events completed in it; an event
// finishing in --grace, whose CPU falls after the window, is not counted
// (it was, and made the figure too low). With the host's CPUs the CPU is
// also a share of the host.
func TestClientCPUPerEventSameWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		cpu := func() (time.Duration, time.Duration) { e := time.Since(start); return e / 10, e / 5 }
		work := func(ctx context.Context) error { return sleepCtx(ctx, 300*time.Millisecond) }
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: time.Second}, Ops: ops, CPUTime: cpu, CPUs: 2},
			[]Opened{instance(work)})
		if err != nil {
			t.Fatal(err)
		}
		// Events complete at 0.3, 0.6 and 0.9 s; the fourth at 1.2 s, in --grace.
		if res.Summary.Count != 3 || res.Summary.AfterWindow != 1 {
			t.Errorf("count %d, after the window %d; want 3 and 1", res.Summary.Count, res.Summary.AfterWindow)
		}
		c := res.Client
		within(t, "µs per event", c.CPUPerEventUs, 0.3e6/3, 1)
		within(t, "host share %", c.HostSharePct, 100*0.3/2, 0.01)
	})
}

// TestStartLagOfIdleVirtualUsers: in an open loop below capacity the
// virtual users wait for their starts, and how late they woke is the
// start lag: on this real clock a little, not nothing (on a busy machine, some
// tens of ms), and never the server's time. A closed loop has none.
func TestStartLagOfIdleVirtualUsers(t *testing.T) {
	work := func(ctx context.Context) error { return sleepCtx(ctx, 2*time.Millisecond) }
	res, err := Run(context.Background(), Settings{Load: Load{Threads: 4, Rate: 200, Duration: time.Second}, Ops: ops}, []Opened{instance(work)})
	if err != nil {
		t.Fatal(err)
	}
	l := res.Summary.StartLag
	if l == nil {
		t.Fatal("no start lag in an open-loop run")
	}
	t.Logf("start lag ms: avg %.3f p99 %.3f max %.3f", l.AvgMs, l.P99Ms, l.MaxMs)
	if !(l.MaxMs > 0) || l.P99Ms > 1000 {
		t.Errorf("start lag %+v: want above 0 and under 1 s", *l)
	}
	res, err = Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: 100 * time.Millisecond}, Ops: ops}, []Opened{instance(work)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.StartLag != nil {
		t.Errorf("a closed loop has a start lag: %+v", res.Summary.StartLag)
	}
}

// threeOps runs three 100 ms statements per event.
type threeOps struct{}

func (threeOps) Event(ctx context.Context, m workload.Meter) error {
	for range 3 {
		s := m.Start(0)
		err := sleepCtx(ctx, 100*time.Millisecond)
		m.End(s, err)
		if err != nil {
			return err
		}
	}
	m.Count(0, 1)
	return nil
}
func (threeOps) Close() error { return nil }

// TestSubOperationsGoWithTheirEvent: an event's statements and counts are
// in the phase the event completes in, even those that ended on the other
// side of a boundary, so that the window holds three statements and one
// count per event counted (the warm-up held ten statements for three).
func TestSubOperationsGoWithTheirEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inst := Opened{NewVU: func(context.Context, int, uint64) (workload.VU, error) { return threeOps{}, nil }, Classify: classify}
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Warmup: time.Second, Duration: time.Second}, Ops: ops, Counters: []string{"done"}},
			[]Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		// Events complete at 1.2, 1.5 and 1.8 s; the one from 0.9 s
		// straddles the warm-up's end, the one from 1.8 s the window's.
		if s.Count != 3 || s.Reads != 3*s.Count || s.Counters["done"] != s.Count || res.Ops[1].Count != 3*s.Count {
			t.Errorf("%d events, %d statements (%d timed), counter %d; want 3, 9, 9, 3", s.Count, s.Reads, res.Ops[1].Count, s.Counters["done"])
		}
		if w := res.Warmup; w.Reads != 3*w.Count {
			t.Errorf("warm-up: %d events, %d statements", w.Count, w.Reads)
		}
	})
}

// TestRetriesGoWithTheirEvent: a failed attempt inside the window of an
// event that completes after it is not one of the window's retries, as
// the event is not one of its events: the statements' failures always add
// up to the retries and errors counted (a storm on the real servers found
// 14,995 of those for 14,750 failed statements).
func TestRetriesGoWithTheirEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var failed atomic.Bool
		inst := txInstance(errclass.Deadlock, func(ctx context.Context) error {
			if err := sleepCtx(ctx, 150*time.Millisecond); err != nil {
				return err
			}
			if time.Since(start) > 800*time.Millisecond && failed.CompareAndSwap(false, true) {
				return errTx // the event from 0.75 s fails at 0.9 s, then completes at 1.05 s
			}
			return nil
		})
		res, err := Run(context.Background(), Settings{Load: Load{Threads: 1, Duration: time.Second}, Ops: ops, Retry: []errclass.Class{errclass.Deadlock}},
			[]Opened{inst})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.Count != 5 || s.AfterWindow != 1 || s.Retries != 0 || res.Ops[1].Errors != 0 {
			t.Errorf("count %d, after the window %d, retries %d, failed statements %d; want 5, 1, 0 and 0", s.Count, s.AfterWindow, s.Retries, res.Ops[1].Errors)
		}
	})
}

// TestIdleOpenLoopDropsNothing: an open loop whose virtual users are
// nearly always idle drops no start. A start due in the last moment of the
// window, which no virtual user had woken for when the window ended, is
// not one the system failed to take (the verdict called every step of an
// idle sweep "overloaded" for one such start each).
func TestIdleOpenLoopDropsNothing(t *testing.T) {
	for k := range 4 {
		res, err := Run(context.Background(), Settings{
			Load: Load{Threads: 16, Rate: 500, Warmup: 500 * time.Millisecond, Duration: time.Second},
			Ops:  ops,
		}, []Opened{instance(func(ctx context.Context) error { return sleepCtx(ctx, 200*time.Microsecond) })})
		if err != nil {
			t.Fatal(err)
		}
		if s := res.Summary; s.Dropped != 0 {
			t.Errorf("run %d: %d starts dropped with 16 idle virtual users at 500/s (count %d, late %d)", k, s.Dropped, s.Count, s.Late)
		}
	}
}

// TestDrainSparesTheLastMoment: at the window's end, a start due less
// than the late threshold before it, whether a virtual user was waiting
// for it (and was stopped before its timer fired) or none had claimed it
// yet, is not late yet: not a start the system failed to take, so not
// dropped. One due earlier is.
func TestDrainSparesTheLastMoment(t *testing.T) {
	start := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	r := &run{start: start, cfg: Settings{Load: Load{Duration: time.Second}, LateThreshold: time.Millisecond}}
	// handedOut is a pacer of a start every 10 ms that handed out the
	// first n (0, 10, ... ms).
	handedOut := func(n int) *pacer {
		s, err := pace.New(pace.Constant, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			s.Next()
		}
		return &pacer{sched: s}
	}
	cut := start.Add(time.Second + 500*time.Microsecond) // the 1,000 ms start is due 0.5 ms before the end
	if got := handedOut(100).drain(r, cut); got[meas] != 0 {
		t.Errorf("a start due 0.5 ms before the end, never claimed: %d dropped, want 0", got[meas])
	}
	p := handedOut(101)
	p.miss(start.Add(time.Second))
	if got := p.drain(r, cut); got[meas] != 0 {
		t.Errorf("a start due 0.5 ms before the end, its virtual user stopped while waiting: %d dropped, want 0", got[meas])
	}
	p = handedOut(100)
	p.miss(start.Add(990 * time.Millisecond))
	if got := p.drain(r, start.Add(time.Second+5*time.Millisecond)); got[meas] != 2 {
		t.Errorf("starts due 15 and 5 ms before the end, never begun: %d dropped, want 2", got[meas])
	}
}

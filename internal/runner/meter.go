package runner

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/workload"
)

// A virtual user's meter: how its operations are timed and counted into the phase they belong to.

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
	// yieldEvery is how often it yields (yieldInterval).
	yieldEvery time.Duration
	phaseAt    func(time.Time) int
	ctx        context.Context
	ops        []workload.Op
	classify   func(error) errclass.Class
	// pending holds the sub-operations, counts and failed attempts of the
	// event in flight (VU goroutine only): they go to the phase the event
	// completes in, or nowhere when it completes past the window, so that
	// statements, counters and retries always match the events counted.
	pending       []pendingOp
	pendingCounts []int64
	pendingRetry  errclass.Counts
	// pendingRetryMsg are pendingRetry's messages.
	pendingRetryMsg errclass.Messages
	// inflight is the intended start of the event in flight, as time since
	// the run's start (-1: none), so that an event still running when the
	// run ends, abandoned, still counts as a censored sample.
	inflight atomic.Int64
	// inflightSvc is its actual start, likewise.
	inflightSvc atomic.Int64
	// lastDone is when the VU last completed an event in a phase (mu).
	lastDone time.Time
}

// pendingOp is a sub-operation of the event in flight.
type pendingOp struct {
	op    int
	kind  workload.OpKind
	typ   bool // a transaction type (workload.Op.Type): recorded with the event's response time
	d     time.Duration
	class errclass.Class
}

func newVU(spec Opened, ops []workload.Op, nc int) *vu {
	n := len(ops)
	v := &vu{
		yieldEvery: yieldEvery,
		st:         [2]*stats{newStats(n, nc), newStats(n, nc)},
		spare:      [2]*stats{newStats(n, nc), newStats(n, nc)},
		ops:        ops, classify: spec.Classify, pendingCounts: make([]int64, nc),
	}
	v.inflight.Store(-1)
	return v
}

// settle puts the event in flight's sub-operations, counts and failed
// attempts in st (none when st is nil: the event completed past the window,
// or was cancelled) and empties them; a transaction type's span counts with
// the event's response time resp. The caller holds mu.
func (v *vu) settle(st *stats, resp time.Duration) {
	if st != nil {
		for _, p := range v.pending {
			d := p.d
			if p.typ {
				d = resp
			}
			st.recordOp(p.op, p.kind, d, p.class)
		}
		for c, n := range v.pendingCounts {
			st.counts[c] += n
		}
		st.retry.Merge(&v.pendingRetry)
		st.retryMsg.Merge(&v.pendingRetryMsg)
	}
	v.pending = v.pending[:0]
	clear(v.pendingCounts)
	v.pendingRetry = errclass.Counts{}
	v.pendingRetryMsg.Reset()
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
// so for v.yieldEvery, and reports whether it did. Blocking I/O never parks the
// goroutine, so the scheduler sees no progress on its processor; after 10 ms
// the runtime's monitor forces a hand-off of that processor and then polls
// every 20 µs for a while (thousands of timer interrupts a second). Checked
// at each event and each sub-operation, so that long events yield too.
func (v *vu) yield(now time.Time) bool {
	if now.Sub(v.lastYield) <= v.yieldEvery {
		return false
	}
	runtime.Gosched()
	v.lastYield = now
	return true
}

// yieldInterval is how often each of n virtual users of this process yields
// its processor when there are procs processors (GOMAXPROCS). A yield
// (runtime.Gosched) wakes the thread of an idle processor to look for work
// when there is one, so with processors to spare the VUs yield rarely
// (yieldEvery); when they hold every processor, a yield wakes nobody and they
// yield often (yieldEveryBusy).
func yieldInterval(n, procs int) time.Duration {
	if n >= procs {
		return yieldEveryBusy
	}
	return yieldEvery
}

// Yield implements workload.Yielder.
func (v *vu) Yield() { v.yield(time.Now()) }

var _ workload.Yielder = (*vu)(nil)

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
		o := &v.ops[s.Op]
		p := pendingOp{op: s.Op, kind: o.Kind, typ: o.Type, d: d, class: class}
		if o.Type {
			// A retried event's type is its last attempt's, counted once,
			// as the event is: a failed attempt before it is no error of
			// the type (the summary counts it among the retries).
			for i := range v.pending {
				if v.pending[i].typ {
					v.pending[i] = p
					return
				}
			}
		}
		v.pending = append(v.pending, p)
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
		st.evMsg.Add(class, err)
	}
	v.lastDone = end
	st.recordOp(op, kind, d, class)
	v.mu.Unlock()
}

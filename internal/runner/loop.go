package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/workload"
)

// A virtual user's loop: events, retries, pipelines, reconnection and the open loop's pacer.

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
		intended, actual, ok := r.nextStart(in, v, tm)
		if !ok {
			return
		}
		v.inflight.Store(int64(intended.Sub(r.start)))
		v.inflightSvc.Store(int64(actual.Sub(r.start)))
		class, err, ok := r.attempts(ctx, in, v, w, intended, actual)
		if !ok {
			return
		}
		r.settleEvent(v, intended, actual, class, err)
		if class == errclass.Connection {
			w = r.reconnect(ctx, in, id, v, w, tm)
			if w == nil {
				return
			}
			continue
		}
		if !r.open && !r.think(w, rng, tm) {
			return
		}
	}
}

// nextStart waits for the VU's next event to start: now in the closed
// loop; in the open loop, at the intended start the pacer hands out, which
// it counts as begun, late or not, and, when the VU waited for it, with its
// wake-up lag. It returns false when the run stopped first (a start handed
// out and not begun is counted as missed).
func (r *run) nextStart(in *inst, v *vu, tm *time.Timer) (intended, actual time.Time, ok bool) {
	if !r.open {
		actual = time.Now()
		v.yield(actual)
		return actual, actual, true
	}
	intended, ok = in.pacer.claim(r)
	if !ok {
		return intended, actual, false
	}
	idle := time.Now().Before(intended) // waiting for its intended start
	if !r.sleepUntil(tm, intended) {
		// Stopped while waiting: the start is dropped if it was due
		// in the window (drain decides).
		in.pacer.miss(intended)
		return intended, actual, false
	}
	actual = time.Now()
	v.yield(actual)
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
	return intended, actual, true
}

// attempts runs one event, and again after an error of a retried class, up
// to MaxRetries times; it returns the last attempt's class and error, or
// false when the run cancelled the event (counted as cancelled: neither a
// success nor an error; a censored sample when it was in flight at the
// window's end).
func (r *run) attempts(ctx context.Context, in *inst, v *vu, w workload.VU, intended, actual time.Time) (errclass.Class, error, bool) {
	for attempt := 1; ; attempt++ {
		v.attempt = attempt
		err := w.Event(ctx, v)
		if err == nil {
			return errclass.None, nil, true
		}
		class := in.spec.Classify(err)
		if ctx.Err() != nil {
			v.mu.Lock()
			v.st[r.phaseOf(intended)].cancel++
			v.settle(nil, 0)
			r.censor(v, intended, actual)
			v.mu.Unlock()
			return class, err, false
		}
		// A retry is part of the event: after the stop it goes on
		// within --grace, like any event in flight, and is cancelled with
		// it (had it stopped here, a failure the event would have
		// retried past would count as a final one).
		if !r.retryable(class) || attempt > r.cfg.MaxRetries {
			return class, err, true
		}
		v.pendingRetry.Add(class)
		v.pendingRetryMsg.Add(class, err)
	}
}

// settleEvent counts a finished event in the phase it ended in: its
// response time from the intended start and service time from the actual
// one, or its error and message (and, after retries, that it gave up);
// after the measured window, only that it ended late, and its time so far
// at the window's end (a censored sample).
func (r *run) settleEvent(v *vu, intended, actual time.Time, class errclass.Class, err error) {
	done := time.Now()
	v.mu.Lock()
	st := v.at(done)
	v.settle(st, done.Sub(intended))
	switch {
	case st == nil:
		v.st[meas].after++
		r.censor(v, intended, actual)
	case class == errclass.None:
		st.recordEvent(done.Sub(intended), done.Sub(actual), r.open)
	default:
		st.evErr.Add(class)
		st.evMsg.Add(class, err)
		if r.retryable(class) { // only its last allowed attempt ends the loop so
			st.gaveUp++
		}
	}
	if st != nil {
		v.lastDone = done // completed in the window (quietAtEnd)
	}
	v.inflight.Store(-1)
	v.mu.Unlock()
}

// censor records the event of v intended at intended and begun at actual,
// still in flight at the measured window's end (or the stop) and
// completing after it or never, with its response time so far at that
// moment: a censored sample of the phase that ended
// (result.Summary.Censored). Its service time so far is how long the
// system had held it (run.maxStall). The caller holds v.mu.
func (r *run) censor(v *vu, intended, actual time.Time) {
	v.inflight.Store(-1)
	cut := r.cutoff()
	if !intended.Before(cut) {
		return
	}
	v.st[r.phaseOf(cut.Add(-1))].censor(cut.Sub(intended))
	held := int64(cut.Sub(actual))
	for {
		m := r.maxStall.Load()
		if held <= m || r.maxStall.CompareAndSwap(m, held) {
			return
		}
	}
}

// think pauses a closed-loop VU between events: as long as the workload
// says (workload.Pacer), else for a draw of Think. It returns false when
// the run stopped first.
func (r *run) think(w workload.VU, rng *rand.Rand, tm *time.Timer) bool {
	var pause time.Duration
	if p, ok := w.(workload.Pacer); ok {
		pause = p.Pause()
	} else if r.cfg.Think.Mean > 0 {
		pause = r.cfg.Think.Draw(rng)
	}
	return pause <= 0 || r.sleepUntil(tm, time.Now().Add(pause))
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
				st.reconnMsg.Add(class, err)
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
	return p.missedUntil(r, at)
}

// missedUntil counts, by phase, the missed starts before at; p.mu held.
func (p *pacer) missedUntil(r *run, at time.Time) [2]int64 {
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
// handed out and missed, and those never handed out. A start due within
// the late threshold before cutoff is not one of them: it was not late
// yet, and a virtual user may have been waking for it (a timer's lag) when
// the run stopped. It is called once the run has stopped, when the phases
// can no longer move.
func (p *pacer) drain(r *run, cutoff time.Time) [2]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	cutoff = cutoff.Add(-r.cfg.LateThreshold)
	dropped := p.missedUntil(r, cutoff)
	for _, ph := range []struct {
		phase int
		until time.Time
	}{{warm, minTime(r.measureStart(), cutoff)}, {meas, cutoff}} {
		dropped[ph.phase] += p.sched.Skip(ph.until.Sub(r.start))
	}
	return dropped
}

package runner

import (
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// stats accumulates what VUs report: per VU per phase between ticks, and
// per instance per interval and phase after them. Histograms are allocated on
// first use, since each costs about 200 KB.
type stats struct {
	ev  *hist.Histogram // response time of successful events
	svc *hist.Histogram // service time of successful events (open loop only)
	// wake is the start lag of open-loop starts whose virtual user was idle,
	// waiting for them: how late the generator woke it (phase of the start).
	wake *hist.Histogram
	// cens holds the response times so far of events in flight at the
	// window's end that did not complete in it (censored samples; see
	// result.Summary.Censored): in the latency figures, not in the count.
	cens  *hist.Histogram
	evErr errclass.Counts
	retry errclass.Counts // failed attempts of events that were re-run
	// evMsg, retryMsg and reconnMsg keep the first messages of evErr,
	// retry and reconnFail.
	evMsg, retryMsg, reconnMsg errclass.Messages
	gaveUp                     int64             // events that failed after Settings.MaxRetries re-runs
	ops                        []*hist.Histogram // one per workload op, nil until used
	opErr                      []errclass.Counts
	kinds                      [4]int64 // sub-operations by workload.OpKind that succeeded; Transaction is no query
	reconn                     int64
	// reconnFail counts failed reconnect attempts by class.
	reconnFail errclass.Counts
	cancel     int64 // events cancelled by the run's end (see result.Summary.Cancelled)
	active     int64 // intervals only: VUs that completed an event in it
	// begun and late count the open loop's starts that began, and those
	// that began late, in the phase of their intended start.
	begun, late int64
	// after counts events that completed past the window (kept in the
	// measured phase's stats; see result.Summary.AfterWindow).
	after  int64
	counts []int64 // the workload's own counters (Meter.Count)
}

func newStats(nops, ncounters int) *stats {
	return &stats{ops: make([]*hist.Histogram, nops), opErr: make([]errclass.Counts, nops), counts: make([]int64, ncounters)}
}

func (s *stats) recordEvent(resp, svc time.Duration, open bool) {
	if s.ev == nil {
		s.ev = hist.New()
	}
	s.ev.Record(resp)
	if open {
		if s.svc == nil {
			s.svc = hist.New()
		}
		s.svc.Record(svc)
	}
}

// recordOp counts a sub-operation in s and records its latency. A virtual
// user's few values of an interval stay in its histograms' small buffers
// (package hist), so the tick merging them costs a few records per value and
// a virtual user holds no HDR counts of its own for long.
func (s *stats) recordOp(op int, kind workload.OpKind, d time.Duration, class errclass.Class) {
	if op < 0 || op >= len(s.ops) {
		return
	}
	if class != errclass.None {
		s.opErr[op].Add(class)
		return
	}
	s.kinds[kind]++ // statements that succeeded: what QPS counts
	if s.ops[op] == nil {
		s.ops[op] = hist.New()
	}
	s.ops[op].Record(d)
}

func mergeHist(dst **hist.Histogram, src *hist.Histogram) {
	if src == nil || src.Count() == 0 {
		return
	}
	if *dst == nil {
		*dst = hist.New()
	}
	(*dst).Merge(src)
}

// merge adds o into s.
func (s *stats) merge(o *stats) {
	for i := range o.ops {
		mergeHist(&s.ops[i], o.ops[i])
	}
	s.mergeEvents(o)
}

// mergeEvents adds o into s but for the sub-operations' histograms (an
// interval reports events only).
func (s *stats) mergeEvents(o *stats) {
	mergeHist(&s.ev, o.ev)
	mergeHist(&s.svc, o.svc)
	mergeHist(&s.wake, o.wake)
	mergeHist(&s.cens, o.cens)
	s.evErr.Merge(&o.evErr)
	s.retry.Merge(&o.retry)
	s.evMsg.Merge(&o.evMsg)
	s.retryMsg.Merge(&o.retryMsg)
	s.reconnMsg.Merge(&o.reconnMsg)
	for i := range o.opErr {
		s.opErr[i].Merge(&o.opErr[i])
	}
	for i := range s.kinds {
		s.kinds[i] += o.kinds[i]
	}
	s.reconn += o.reconn
	s.reconnFail.Merge(&o.reconnFail)
	s.begun += o.begun
	s.after += o.after
	s.gaveUp += o.gaveUp
	s.cancel += o.cancel
	s.late += o.late
	s.active += o.active
	for i := range o.counts {
		s.counts[i] += o.counts[i]
	}
}

// reset empties s, keeping its histograms' memory.
func (s *stats) reset() {
	for _, h := range append([]*hist.Histogram{s.ev, s.svc, s.wake, s.cens}, s.ops...) {
		if h != nil {
			h.Reset()
		}
	}
	s.evErr = errclass.Counts{}
	s.retry = errclass.Counts{}
	s.evMsg.Reset()
	s.retryMsg.Reset()
	s.reconnMsg.Reset()
	for i := range s.opErr {
		s.opErr[i] = errclass.Counts{}
	}
	s.kinds = [4]int64{}
	s.reconn, s.late, s.cancel, s.active, s.gaveUp = 0, 0, 0, 0, 0
	s.reconnFail = errclass.Counts{}
	s.begun, s.after = 0, 0
	clear(s.counts)
}

func (s *stats) events() int64 {
	if s.ev == nil {
		return 0
	}
	return s.ev.Count()
}

// censor records an event in flight at the window's end with its time so
// far d (a censored sample).
func (s *stats) censor(d time.Duration) {
	if s.cens == nil {
		s.cens = hist.New()
	}
	s.cens.Record(d)
}

// censored is the number of censored samples.
func (s *stats) censored() int64 {
	if s.cens == nil {
		return 0
	}
	return s.cens.Count()
}

// censoredMaxMs is the longest censored sample, in ms (0: none).
func (s *stats) censoredMaxMs() float64 {
	if s.censored() == 0 {
		return 0
	}
	return float64(s.cens.Max()) / 1e6
}

// responses returns the histogram of every response time the summary
// reports: the successful events' and the censored samples' (a merged
// copy when there are censored ones).
func (s *stats) responses() *hist.Histogram {
	if s.censored() == 0 {
		return s.ev
	}
	h := hist.New()
	mergeHist(&h, s.ev)
	h.Merge(s.cens)
	return h
}

// messages converts kept error messages to the result's form (nil when none).
func messages(m *errclass.Messages) []result.ErrorMessage {
	var out []result.ErrorMessage
	for _, e := range m.List() {
		out = append(out, result.ErrorMessage{Class: e.Class.String(), Message: e.Text, Count: e.Count})
	}
	return out
}

func latencyOf(h *hist.Histogram) result.Latency {
	if h == nil {
		return result.Latency{}
	}
	return result.LatencyOf(h)
}

func rate(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

// summary renders s as a phase summary over secs seconds.
func (s *stats) summary(unit string, secs float64, open bool, dropped int64, counters []string) result.Summary {
	sum := result.Summary{
		Unit:                     unit,
		Count:                    s.events(),
		Throughput:               rate(s.events(), secs),
		Latency:                  latencyOf(s.responses()),
		Censored:                 s.censored(),
		CensoredMaxMs:            s.censoredMaxMs(),
		ErrorMessages:            messages(&s.evMsg),
		RetryMessages:            messages(&s.retryMsg),
		ReconnectFailureMessages: messages(&s.reconnMsg),
		Reads:                    s.kinds[workload.Read],
		Writes:                   s.kinds[workload.Write],
		Other:                    s.kinds[workload.Other],
		Errors:                   s.evErr.Total(),
		ErrorsByClass:            s.evErr.Map(),
		Retries:                  s.retry.Total(),
		RetriesByClass:           nilIfEmpty(s.retry.Map()),
		GaveUp:                   s.gaveUp,
		Reconnects:               s.reconn,
		ReconnectFailures:        s.reconnFail.Total(),
		ReconnectFailuresByClass: nilIfEmpty(s.reconnFail.Map()),
		Cancelled:                s.cancel,
		AfterWindow:              s.after,
		Dropped:                  dropped,
		Late:                     s.late,
		DurationS:                secs,
	}
	if open {
		sum.Offered = rate(s.begun+dropped, secs)
	}
	sum.QPS = rate(sum.Reads+sum.Writes+sum.Other, secs)
	if len(counters) > 0 {
		sum.Counters = make(map[string]int64, len(counters))
		for i, name := range counters {
			sum.Counters[name] = s.counts[i]
		}
	}
	if open {
		l := latencyOf(s.svc)
		sum.ServiceTime = &l
		if s.wake != nil && s.wake.Count() > 0 {
			w := latencyOf(s.wake)
			sum.StartLag = &w
		}
	}
	if s.ev != nil {
		sum.Clamped = s.ev.Clamped() // service time ≤ response time: clamped only if this is
	}
	return sum
}

// opResults lists the event first, then every op that ran.
func (s *stats) opResults(event string, ops []workload.Op, secs float64) ([]result.Op, error) {
	out := make([]result.Op, 0, len(ops)+1)
	ev, err := opResult(event, "event", s.ev, &s.evErr, secs)
	if err != nil {
		return nil, err
	}
	out = append(out, ev)
	for i, op := range ops {
		if (s.ops[i] == nil || s.ops[i].Count() == 0) && s.opErr[i].Total() == 0 {
			continue
		}
		r, err := opResult(op.Name, op.Kind.String(), s.ops[i], &s.opErr[i], secs)
		if err != nil {
			return nil, err
		}
		r.Type = op.Type
		out = append(out, r)
	}
	return out, nil
}

func opResult(name, kind string, h *hist.Histogram, errs *errclass.Counts, secs float64) (result.Op, error) {
	r := result.Op{Name: name, Kind: kind, Errors: errs.Total(), ErrorsByClass: errs.Map(), Latency: latencyOf(h)}
	if len(r.ErrorsByClass) == 0 {
		r.ErrorsByClass = nil
	}
	if h != nil {
		r.Count = h.Count()
		snap, err := h.Snapshot()
		if err != nil {
			return r, err
		}
		r.Histogram = snap
	}
	r.Rate = rate(r.Count, secs)
	return r, nil
}

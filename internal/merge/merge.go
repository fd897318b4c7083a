// Package merge adds the results of the shards of one distributed run (run
// --shard I/N on several load generators) into one result, exactly: HDR
// histograms are added, never percentiles averaged; counts, errors and
// retries are summed; report intervals are aligned by wall clock; what
// belongs to each generator's own host (its CPU, its /proc figures, its
// ticker) is kept per generator. It refuses shards of different runs or
// options and names the shards that are missing.
package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
)

// ErrMismatch is matched (errors.Is) by every refusal to merge.
var ErrMismatch = errors.New("cannot merge")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMismatch, fmt.Sprintf(format, args...))
}

// Merge returns the result of the whole run from its shards' results, in
// any order, and notes on the merge (shards that started apart, intervals
// without a histogram). The workload's own figures (result.Figures and its
// section) are derived from the generic data merged here, so they are not
// merged: the caller computes them again from the merged result with the
// workload's summariser.
func Merge(shards []*result.Run) (*result.Run, []string, error) {
	rs, err := check(shards)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	first := rs[0]
	sh := first.Shard
	out := &result.Run{
		SchemaVersion: first.SchemaVersion,
		Tool:          first.Tool,
		ID:            sh.RunID,
		Label:         first.Label,
		Workload:      first.Workload,
		Event:         first.Event,
		Options:       maps.Clone(first.Options),
		Load:          first.Load,
	}
	out.Load.Threads = sh.TotalVUs
	if !byInstance(sh) && first.Load.Rate > 0 {
		// Each shard offered its share of every instance's rate.
		out.Load.Rate = 0
		for _, r := range rs {
			out.Load.Rate += r.Load.Rate
		}
	}
	out.Started, out.Ended = first.Started, first.Ended
	var reasons []string
	for _, r := range rs {
		if r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		if r.Ended.After(out.Ended) {
			out.Ended = r.Ended
		}
		if r.Partial {
			out.Partial = true
			reasons = append(reasons, fmt.Sprintf("shard %s: %s", name(r.Shard), r.PartialReason))
		}
		g := result.Generator{Shard: *r.Shard, ResultID: r.ID, Started: r.Started, Partial: r.Partial, Reason: r.PartialReason,
			Count: r.Summary.Count, Throughput: r.Summary.Throughput, Client: r.Client, Host: r.Host, TickerLag: r.TickerLag, Machine: r.Machine}
		out.Generators = append(out.Generators, g)
	}
	out.PartialReason = strings.Join(reasons, "; ")
	if skew := skewOf(rs); skew > 0 {
		if iv := first.Load.IntervalS; skew.Seconds() > iv/10 {
			notes = append(notes, fmt.Sprintf("the shards' warm-ups started up to %.3f s apart: their report intervals are aligned to the nearest tick of %g s", skew.Seconds(), iv))
		}
	}

	sums := make([]result.Summary, len(rs))
	var warm []*result.Summary
	ops := make([][]result.Op, len(rs))
	ivs := make([][]timed, len(rs))
	for i, r := range rs {
		sums[i], ops[i] = r.Summary, r.Ops
		warm = append(warm, r.Warmup)
		ivs[i] = stamp(r, r.Intervals)
	}
	if out.Summary, err = summaries(sums); err != nil {
		return nil, nil, err
	}
	if out.Warmup, err = warmups(warm); err != nil {
		return nil, nil, err
	}
	if out.Ops, err = mergeOps(ops, out.Summary.DurationS); err != nil {
		return nil, nil, err
	}
	var lacking int
	if out.Intervals, lacking, err = intervals(out.Started, first.Load.IntervalS, ivs); err != nil {
		return nil, nil, err
	}
	if lacking > 0 {
		notes = append(notes, fmt.Sprintf("%d interval(s) of the shards have no histogram (a shard stopped while encoding?): their latency is the highest of the shards', not exact", lacking))
	}
	if out.Instances, err = instances(rs, out.Started); err != nil {
		return nil, nil, err
	}
	var each []float64
	for _, in := range out.Instances {
		each = append(each, in.Summary.Throughput)
	}
	out.Fairness = result.FairnessOf(each)
	out.Client = clients(rs, out.Summary.Count)
	out.TickerLag = lags(rs)
	if len(out.Instances) == 1 {
		out.ServerStats = out.Instances[0].ServerStats // as a run of one instance has it
	}
	out.DeriveTypes()
	return out, notes, nil
}

func name(s *result.Shard) string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// byInstance tells whether a run was split by instances.
func byInstance(s *result.Shard) bool { return s.Instances < s.TotalInstances }

// check validates the shards and returns them ordered by index.
func check(shards []*result.Run) ([]*result.Run, error) {
	if len(shards) == 0 {
		return nil, refuse("no result to merge")
	}
	rs := slices.Clone(shards)
	for i, r := range rs {
		if r == nil || r.Shard == nil {
			return nil, refuse("result %d is not a shard's result (written by run --shard I/N)", i+1)
		}
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].Shard.Index < rs[b].Shard.Index })
	first := rs[0]
	ref, err := signature(first)
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, r := range rs {
		s := r.Shard
		switch {
		case s.RunID != first.Shard.RunID:
			return nil, refuse("shard %s is of run %s, shard %s of run %s", name(s), s.RunID, name(first.Shard), first.Shard.RunID)
		case s.Count != first.Shard.Count:
			return nil, refuse("run %s: shard %s says %d shards, shard %s says %d", s.RunID, name(s), s.Count, name(first.Shard), first.Shard.Count)
		case seen[s.Index]:
			return nil, refuse("run %s: shard %s is given twice", s.RunID, name(s))
		}
		seen[s.Index] = true
		sig, err := signature(r)
		if err != nil {
			return nil, err
		}
		if d := diff(ref, sig); d != "" {
			return nil, refuse("run %s: shards %s and %s differ in %s", s.RunID, name(first.Shard), name(s), d)
		}
	}
	var missing []string
	for i := range first.Shard.Count {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Shard.Count))
		}
	}
	if len(missing) > 0 {
		return nil, refuse("run %s: shard(s) %s missing (have %d of %d)", first.Shard.RunID, strings.Join(missing, ", "), len(rs), first.Shard.Count)
	}
	return rs, nil
}

// signature is what every shard of a run must share, by name.
func signature(r *result.Run) (map[string]string, error) {
	s := r.Shard
	l := r.Load
	sig := map[string]string{
		"workload": r.Workload, "event": r.Event, "schema_version": fmt.Sprint(r.SchemaVersion),
		"load mode": l.Mode, "arrival": l.Arrival, "warm-up": fmt.Sprint(l.WarmupS), "duration": fmt.Sprint(l.DurationS),
		"report interval": fmt.Sprint(l.IntervalS), "grace": fmt.Sprint(l.GraceS), "seed": fmt.Sprint(l.Seed),
		"think time": fmt.Sprint(l.ThinkS, l.ThinkDist), "retry": strings.Join(l.Retry, ","), "max retries": fmt.Sprint(l.MaxRetries),
		"virtual users in the run": fmt.Sprint(s.TotalVUs), "instances in the run": fmt.Sprint(s.TotalInstances),
		"split": fmt.Sprint(byInstance(s)),
	}
	if byInstance(s) {
		sig["threads"], sig["rate"] = fmt.Sprint(l.Threads), fmt.Sprint(l.Rate)
	}
	opts, err := json.Marshal(r.Options) // map keys sorted: a canonical form
	if err != nil {
		return nil, fmt.Errorf("shard %s: options: %w", name(s), err)
	}
	sig["options"] = string(opts)
	return sig, nil
}

func diff(a, b map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if a[k] != b[k] {
			return fmt.Sprintf("%s (%s vs %s)", k, a[k], b[k])
		}
	}
	return ""
}

// skewOf is how far apart the shards' runs started.
func skewOf(rs []*result.Run) time.Duration {
	lo, hi := rs[0].Started, rs[0].Started
	for _, r := range rs {
		if r.Started.Before(lo) {
			lo = r.Started
		}
		if r.Started.After(hi) {
			hi = r.Started
		}
	}
	return hi.Sub(lo)
}

// hists decodes and adds histograms; "" counts as missing.
func hists(snaps []string) (*hist.Histogram, bool, error) {
	h := hist.New()
	all := true
	for _, s := range snaps {
		if s == "" {
			all = false
			continue
		}
		o, err := hist.FromSnapshot(s)
		if err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrMismatch, err)
		}
		h.Merge(o)
	}
	return h, all, nil
}

func addMap(dst map[string]int64, src map[string]int64) map[string]int64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]int64{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

func rate(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

// summaries adds the shards' summaries of one phase. The window is the
// longest shard's (they share one when they started together); latencies
// come from the added histograms.
func summaries(ss []result.Summary) (result.Summary, error) {
	out := result.Summary{Unit: ss[0].Unit}
	var ev, svc []string
	open := false
	var scheduled float64 // open-loop starts due, from each shard's offered rate
	for _, s := range ss {
		out.Count += s.Count
		out.Reads += s.Reads
		out.Writes += s.Writes
		out.Other += s.Other
		out.Errors += s.Errors
		out.ErrorsByClass = addMap(out.ErrorsByClass, s.ErrorsByClass)
		out.ErrorMessages = result.AddMessages(out.ErrorMessages, s.ErrorMessages, errclass.MessagesPerClass)
		out.RetryMessages = result.AddMessages(out.RetryMessages, s.RetryMessages, errclass.MessagesPerClass)
		out.ReconnectFailureMessages = result.AddMessages(out.ReconnectFailureMessages, s.ReconnectFailureMessages, errclass.MessagesPerClass)
		out.Censored += s.Censored
		out.Retries += s.Retries
		out.RetriesByClass = addMap(out.RetriesByClass, s.RetriesByClass)
		out.GaveUp += s.GaveUp
		out.Reconnects += s.Reconnects
		out.ReconnectFailures += s.ReconnectFailures
		out.ReconnectFailuresByClass = addMap(out.ReconnectFailuresByClass, s.ReconnectFailuresByClass)
		out.AfterWindow += s.AfterWindow
		scheduled += s.Offered * s.DurationS
		if l := s.StartLag; l != nil {
			// Shards keep no start-lag histogram: the worst shard's figures.
			w := maxLatency(latencyOr(out.StartLag), *l)
			out.StartLag = &w
		}
		out.Cancelled += s.Cancelled
		out.Dropped += s.Dropped
		out.Late += s.Late
		out.Counters = addMap(out.Counters, s.Counters)
		out.Clamped += s.Clamped
		out.DurationS = math.Max(out.DurationS, s.DurationS)
		out.Partial = out.Partial || s.Partial
		ev = append(ev, s.Histogram)
		svc = append(svc, s.ServiceTimeHistogram)
		open = open || s.ServiceTime != nil
	}
	if out.ErrorsByClass == nil {
		out.ErrorsByClass = map[string]int64{}
	}
	h, all, err := hists(ev)
	if err != nil {
		return out, err
	}
	if !all {
		return out, refuse("a shard's summary has no histogram (written by a rightsize without merge support?)")
	}
	out.Latency = result.LatencyOf(h)
	if out.Histogram, err = h.Snapshot(); err != nil {
		return out, err
	}
	if open {
		h, all, err := hists(svc)
		if err != nil {
			return out, err
		}
		if !all {
			return out, refuse("a shard's open-loop summary has no service-time histogram")
		}
		l := result.LatencyOf(h)
		out.ServiceTime = &l
		if out.ServiceTimeHistogram, err = h.Snapshot(); err != nil {
			return out, err
		}
	}
	out.Throughput = rate(out.Count, out.DurationS)
	out.QPS = rate(out.Reads+out.Writes+out.Other, out.DurationS)
	if out.DurationS > 0 {
		out.Offered = scheduled / out.DurationS
	}
	return out, nil
}

// latencyOr is *l, or zero figures for nil.
func latencyOr(l *result.Latency) result.Latency {
	if l == nil {
		return result.Latency{}
	}
	return *l
}

// warmups merges the warm-up summaries: all shards have one or none has.
func warmups(ws []*result.Summary) (*result.Summary, error) {
	var ss []result.Summary
	for _, w := range ws {
		if w != nil {
			ss = append(ss, *w)
		}
	}
	if len(ss) == 0 {
		return nil, nil
	}
	if len(ss) != len(ws) {
		return nil, refuse("some shards have a warm-up summary and others not")
	}
	s, err := summaries(ss)
	return &s, err
}

// mergeOps adds the shards' per-operation figures, by name and kind (an
// operation may share its name with the event), in the first shard's
// order.
func mergeOps(per [][]result.Op, secs float64) ([]result.Op, error) {
	type key struct{ name, kind string }
	var order []key
	byName := map[key][]result.Op{}
	for _, ops := range per {
		for _, op := range ops {
			k := key{op.Name, op.Kind}
			if _, ok := byName[k]; !ok {
				order = append(order, k)
			}
			byName[k] = append(byName[k], op)
		}
	}
	var out []result.Op
	for _, k := range order {
		group := byName[k]
		m := result.Op{Name: k.name, Kind: k.kind, Type: group[0].Type}
		var snaps []string
		for _, op := range group {
			m.Count += op.Count
			m.Errors += op.Errors
			m.ErrorsByClass = addMap(m.ErrorsByClass, op.ErrorsByClass)
			snaps = append(snaps, op.Histogram)
		}
		h, _, err := hists(snaps)
		if err != nil {
			return nil, err
		}
		m.Latency = result.LatencyOf(h)
		if m.Histogram, err = h.Snapshot(); err != nil {
			return nil, err
		}
		m.Rate = rate(m.Count, secs)
		out = append(out, m)
	}
	return out, nil
}

// serverOf is an instance's server figures in a merged result. Every
// shard that drove the instance sampled the same server, whose sessions
// are all the shards' (pg_stat_activity shows the database's every
// client): adding the shards' figures would count the server's counters
// once per shard. It is the figures of the shard that sampled most, with a
// note saying whose they are; nil when no shard sampled.
func serverOf(parts []result.InstancePart) *result.ServerStats {
	var best *result.ServerStats
	from, sampled := 0, 0
	for i, in := range parts {
		if s := in.ServerStats; s != nil {
			sampled++
			if best == nil || s.Samples > best.Samples {
				best, from = s, i
			}
		}
	}
	if best == nil || sampled == 1 {
		return best
	}
	m := *best
	note := fmt.Sprintf("the server as shard %d's monitor saw it: each of the %d shards that drove this instance sampled the same server", from+1, sampled)
	if m.Note != "" {
		note = m.Note + "; " + note
	}
	m.Note = note
	return &m
}

// timed is an interval with the wall-clock time of its end.
type timed struct {
	end time.Time
	iv  result.Interval
}

func stamp(r *result.Run, ivs []result.Interval) []timed {
	out := make([]timed, len(ivs))
	for i, iv := range ivs {
		out[i] = timed{r.Started.Add(time.Duration(iv.EndS * float64(time.Second))), iv}
	}
	return out
}

// intervals aligns the shards' intervals on the report ticks of a run
// started at start: each goes to the tick nearest its end, and the
// intervals on one tick are added. lacking counts intervals without a
// histogram (their latency is then the highest of the group's).
func intervals(start time.Time, every float64, per [][]timed) ([]result.Interval, int, error) {
	if every <= 0 {
		every = 1
	}
	groups := map[int64][]result.Interval{}
	for _, ivs := range per {
		for _, t := range ivs {
			k := int64(math.Round(t.end.Sub(start).Seconds() / every))
			groups[k] = append(groups[k], t.iv)
		}
	}
	lacking := 0
	var out []result.Interval
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := groups[k]
		m := result.Interval{EndS: float64(k) * every, Phase: g[0].Phase}
		var snaps []string
		for _, iv := range g {
			m.DurationS = math.Max(m.DurationS, iv.DurationS)
			m.Events += iv.Events
			m.Reads += iv.Reads
			m.Writes += iv.Writes
			m.Other += iv.Other
			m.Errors += iv.Errors
			m.ErrorsByClass = addMap(m.ErrorsByClass, iv.ErrorsByClass)
			m.Retries += iv.Retries
			m.Reconnects += iv.Reconnects
			m.ReconnectFailures += iv.ReconnectFailures
			m.Late += iv.Late
			m.Offered += iv.Offered
			m.ActiveVUs += iv.ActiveVUs
			if iv.Phase == "measure" {
				m.Phase = "measure"
			}
			snaps = append(snaps, iv.Histogram)
		}
		h, all, err := hists(snaps)
		if err != nil {
			return nil, 0, err
		}
		if all {
			m.Latency = result.LatencyOf(h)
			if m.Histogram, err = h.Snapshot(); err != nil {
				return nil, 0, err
			}
		} else {
			lacking += len(g)
			for _, iv := range g {
				m.Latency = maxLatency(m.Latency, iv.Latency)
			}
		}
		m.Rate = rate(m.Events, m.DurationS)
		out = append(out, m)
	}
	return out, lacking, nil
}

func maxLatency(a, b result.Latency) result.Latency {
	return result.Latency{AvgMs: math.Max(a.AvgMs, b.AvgMs), P50Ms: math.Max(a.P50Ms, b.P50Ms), P95Ms: math.Max(a.P95Ms, b.P95Ms),
		P99Ms: math.Max(a.P99Ms, b.P99Ms), P999Ms: math.Max(a.P999Ms, b.P999Ms), MaxMs: math.Max(a.MaxMs, b.MaxMs)}
}

// instances merges the instances by their number in the whole run: split
// by instances, each comes from one shard; split by virtual users, each
// shard drove a part of every instance, and the parts are added.
func instances(rs []*result.Run, start time.Time) ([]result.InstancePart, error) {
	type parts struct {
		in   []result.InstancePart
		ivs  [][]timed
		from []*result.Run
	}
	byIndex := map[int]*parts{}
	for _, r := range rs {
		for _, in := range r.Instances {
			p := byIndex[in.Index]
			if p == nil {
				p = &parts{}
				byIndex[in.Index] = p
			}
			p.in = append(p.in, in)
			p.ivs = append(p.ivs, stamp(r, in.Intervals))
			p.from = append(p.from, r)
		}
	}
	var out []result.InstancePart
	for _, idx := range slices.Sorted(maps.Keys(byIndex)) {
		p := byIndex[idx]
		first := p.in[0]
		m := result.InstancePart{Index: idx, Target: first.Target, Dialect: first.Dialect, ServerProduct: first.ServerProduct, ServerVersion: first.ServerVersion,
			Encrypted: first.Encrypted, TLS: first.TLS}
		var sums []result.Summary
		var warm []*result.Summary
		var ops [][]result.Op
		for _, in := range p.in {
			if in.Target != first.Target {
				return nil, refuse("instance %d is %s in one shard and %s in another", idx+1, first.Target, in.Target)
			}
			for _, n := range in.Notes {
				if !slices.Contains(m.Notes, n) {
					m.Notes = append(m.Notes, n)
				}
			}
			sums = append(sums, in.Summary)
			warm = append(warm, in.Warmup)
			ops = append(ops, in.Ops)
		}
		var err error
		if m.Summary, err = summaries(sums); err != nil {
			return nil, fmt.Errorf("instance %d: %w", idx+1, err)
		}
		if m.Warmup, err = warmups(warm); err != nil {
			return nil, fmt.Errorf("instance %d: %w", idx+1, err)
		}
		if m.Ops, err = mergeOps(ops, m.Summary.DurationS); err != nil {
			return nil, fmt.Errorf("instance %d: %w", idx+1, err)
		}
		m.ServerStats = serverOf(p.in)
		if m.Intervals, _, err = intervals(start, p.from[0].Load.IntervalS, p.ivs); err != nil {
			return nil, fmt.Errorf("instance %d: %w", idx+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// clients adds the generators' own CPU: the cost of generating the load
// over all generators, per event.
func clients(rs []*result.Run, count int64) *result.Client {
	var c result.Client
	n := 0
	var allocs float64
	for _, r := range rs {
		if r.Client == nil {
			continue
		}
		n++
		allocs += r.Client.AllocsPerEvent * float64(r.Summary.Count)
		c.GCCycles += r.Client.GCCycles
		c.CPUUserS += r.Client.CPUUserS
		c.CPUSysS += r.Client.CPUSysS
		c.NumCPU += r.Client.NumCPU
		c.GoMaxProcs += r.Client.GoMaxProcs
	}
	if n == 0 {
		return nil
	}
	if count > 0 {
		c.CPUPerEventUs = (c.CPUUserS + c.CPUSysS) * 1e6 / float64(count)
		c.AllocsPerEvent = allocs / float64(count)
	}
	c.Hostname = fmt.Sprintf("%d generators", n)
	return &c
}

func lags(rs []*result.Run) *result.TickerLag {
	var l result.TickerLag
	for _, r := range rs {
		if r.TickerLag != nil {
			l.Ticks += r.TickerLag.Ticks
			l.Late += r.TickerLag.Late
			l.MaxS = math.Max(l.MaxS, r.TickerLag.MaxS)
		}
	}
	if l.Late == 0 {
		return nil
	}
	return &l
}

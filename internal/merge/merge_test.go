package merge

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
)

// shardRun builds shard i of n of a run of one instance whose virtual users
// are split, from latencies drawn for it: its summary, op and three 1 s
// measured intervals carry histograms of those values, as a shard's result
// does. all receives every value, to compute the whole run's percentiles
// independently of the merge.
func shardRun(t *testing.T, i, n int, start time.Time, lat []time.Duration, all *hist.Histogram) *result.Run {
	t.Helper()
	h := hist.New()
	per := [3]*hist.Histogram{hist.New(), hist.New(), hist.New()}
	for k, d := range lat {
		h.Record(d)
		all.Record(d)
		per[k%3].Record(d)
	}
	snap := func(h *hist.Histogram) string {
		s, err := h.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sum := result.Summary{Unit: "transactions", Count: h.Count(), Throughput: float64(h.Count()) / 3, Latency: result.LatencyOf(h),
		Reads: 10 * h.Count(), Errors: int64(i), ErrorsByClass: map[string]int64{"deadlock": int64(i)}, GaveUp: int64(i),
		Counters: map[string]int64{"rollbacks": 1}, DurationS: 3, Histogram: snap(h),
		ReconnectFailures: int64(i), ReconnectFailuresByClass: map[string]int64{"connection": int64(i)}, AfterWindow: 1,
		Offered: 100, StartLag: &result.Latency{P99Ms: float64(i), MaxMs: 2 * float64(i)}}
	var ivs []result.Interval
	for k := range per {
		ivs = append(ivs, result.Interval{EndS: float64(k + 1), DurationS: 1, Phase: "measure", Events: per[k].Count(),
			Latency: result.LatencyOf(per[k]), Histogram: snap(per[k])})
	}
	st := start
	return &result.Run{
		SchemaVersion: 1, ID: "run1-s", Workload: "oltp_read_only", Event: "transaction",
		Options: map[string]any{"tables": 4.0, "table-size": 1000.0},
		Load:    result.Load{Mode: "closed", Threads: 2, DurationS: 3, IntervalS: 1, Seed: 7},
		Started: start, Ended: start.Add(3 * time.Second),
		Summary:   sum,
		Ops:       []result.Op{{Name: "transaction", Kind: "event", Count: h.Count(), Latency: sum.Latency, Histogram: sum.Histogram}},
		Intervals: ivs,
		Instances: []result.InstancePart{{Index: 0, Target: "postgres://x@127.0.0.1/db", Dialect: "postgres", ServerProduct: "PostgreSQL", ServerVersion: "15.20",
			Summary: sum, Ops: nil, Intervals: ivs}},
		Client:  &result.Client{CPUUserS: 1, CPUSysS: 0.5, NumCPU: 2, Hostname: "gen", AllocsPerEvent: float64(i + 1), GCCycles: 2},
		Machine: &result.Machine{Hostname: fmt.Sprintf("gen%d", i), CPUModel: "Some CPU"},
		Shard: &result.Shard{RunID: "run1", Index: i, Count: n, Instances: 1, TotalInstances: 1, FirstVU: 2 * i, VUs: 2, TotalVUs: 2 * n,
			StartAt: &st, Barrier: "time"},
	}
}

func TestMergeAddsHistogramsExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	all := hist.New()
	var shards []*result.Run
	for i := range 4 {
		// Each shard has its own distribution: averaging their percentiles
		// would be far from the whole run's.
		lat := make([]time.Duration, 500+300*i)
		for k := range lat {
			lat[k] = time.Duration(float64(time.Millisecond) * (1 + float64(i*i)) * rng.ExpFloat64())
		}
		shards = append(shards, shardRun(t, i, 4, start.Add(time.Duration(i)*7*time.Millisecond), lat, all))
	}
	// Any order.
	shards[0], shards[3] = shards[3], shards[0]
	m, notes, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes for shards 21 ms apart on 1 s ticks: %v", notes)
	}
	want := result.LatencyOf(all)
	if m.Summary.Count != all.Count() || m.Summary.Latency != want {
		t.Errorf("merged %d events, latency %+v; the run has %d, %+v", m.Summary.Count, m.Summary.Latency, all.Count(), want)
	}
	var avgP99 float64
	for _, s := range shards {
		avgP99 += s.Summary.Latency.P99Ms / 4
	}
	if d := avgP99 - want.P99Ms; d > -0.5 && d < 0.5 {
		t.Fatalf("test data too tame: the mean of the shards' p99 (%.2f) is near the run's (%.2f)", avgP99, want.P99Ms)
	}
	if m.Summary.Errors != 0+1+2+3 || m.Summary.ErrorsByClass["deadlock"] != 6 || m.Summary.GaveUp != 6 || m.Summary.Counters["rollbacks"] != 4 || m.Summary.Reads != 10*all.Count() {
		t.Errorf("sums: errors %d %v, gave up %d, counters %v, reads %d", m.Summary.Errors, m.Summary.ErrorsByClass, m.Summary.GaveUp, m.Summary.Counters, m.Summary.Reads)
	}
	// Failed reconnects and events after the window add up; the offered
	// rates add up over the shared window; the start lag is the worst
	// shard's.
	if s := m.Summary; s.ReconnectFailures != 6 || s.ReconnectFailuresByClass["connection"] != 6 || s.AfterWindow != 4 ||
		s.Offered != 400 || s.StartLag == nil || s.StartLag.P99Ms != 3 || s.StartLag.MaxMs != 6 {
		t.Errorf("reconnect failures %d %v, after the window %d, offered %g, start lag %+v",
			s.ReconnectFailures, s.ReconnectFailuresByClass, s.AfterWindow, s.Offered, s.StartLag)
	}
	if m.ID != "run1" || m.Shard != nil || len(m.Generators) != 4 || m.Generators[0].Shard.Index != 0 || m.Load.Threads != 8 {
		t.Errorf("id %q, shard %v, %d generators, threads %d", m.ID, m.Shard, len(m.Generators), m.Load.Threads)
	}
	if m.Summary.Throughput != float64(all.Count())/3 {
		t.Errorf("throughput %g, want %g", m.Summary.Throughput, float64(all.Count())/3)
	}
	if len(m.Intervals) != 3 {
		t.Fatalf("%d intervals, want 3 (aligned by wall clock)", len(m.Intervals))
	}
	var n int64
	for _, iv := range m.Intervals {
		n += iv.Events
	}
	if n != all.Count() || len(m.Instances) != 1 || m.Instances[0].Summary.Count != all.Count() {
		t.Errorf("intervals hold %d events, instances %d", n, len(m.Instances))
	}
	if m.Client == nil || m.Client.CPUUserS != 4 || m.Client.NumCPU != 8 {
		t.Errorf("client %+v", m.Client)
	}
	// Allocations per event: each shard's, weighted by its events.
	var allocs float64
	for _, s := range shards {
		allocs += s.Client.AllocsPerEvent * float64(s.Summary.Count)
	}
	if m.Client != nil && (math.Abs(m.Client.AllocsPerEvent-allocs/float64(all.Count())) > 1e-9 || m.Client.GCCycles != 8) {
		t.Errorf("merged %.4f allocations per event and %d collections, want %.4f and 8", m.Client.AllocsPerEvent, m.Client.GCCycles, allocs/float64(all.Count()))
	}
	if m.Started != start {
		t.Errorf("started %v, want the earliest shard's %v", m.Started, start)
	}
	// Where it ran: the server once, each generator's machine with it.
	if s := m.Instances[0].Server(); s != "PostgreSQL 15.20" {
		t.Errorf("merged instance's server %q", s)
	}
	for _, g := range m.Generators {
		if g.Machine == nil || g.Machine.Hostname != fmt.Sprintf("gen%d", g.Shard.Index) {
			t.Errorf("generator %d's machine %+v", g.Shard.Index, g.Machine)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	make4 := func() []*result.Run {
		var rs []*result.Run
		for i := range 4 {
			rs = append(rs, shardRun(t, i, 4, start, []time.Duration{time.Millisecond}, hist.New()))
		}
		return rs
	}
	for _, c := range []struct {
		name   string
		change func([]*result.Run) []*result.Run
		want   string
	}{
		{"missing", func(rs []*result.Run) []*result.Run { return append(rs[:1], rs[3]) }, "shard(s) 1/4, 2/4 missing (have 2 of 4)"},
		{"twice", func(rs []*result.Run) []*result.Run { rs[2].Shard.Index = 1; return rs }, "shard 1/4 is given twice"},
		{"other run", func(rs []*result.Run) []*result.Run { rs[1].Shard.RunID = "run2"; return rs }, "of run run2"},
		{"options", func(rs []*result.Run) []*result.Run { rs[3].Options["tables"] = 8.0; return rs }, "shards 0/4 and 3/4 differ in options"},
		{"duration", func(rs []*result.Run) []*result.Run { rs[2].Load.DurationS = 60; return rs }, "differ in duration (3 vs 60)"},
		{"count", func(rs []*result.Run) []*result.Run { rs[2].Shard.Count = 5; return rs }, "says 5 shards"},
		{"not a shard", func(rs []*result.Run) []*result.Run { rs[1].Shard = nil; return rs }, "not a shard's result"},
		{"no histogram", func(rs []*result.Run) []*result.Run { rs[1].Summary.Histogram = ""; return rs }, "no histogram"},
		{"none", func(rs []*result.Run) []*result.Run { return nil }, "no result"},
	} {
		_, _, err := Merge(c.change(make4()))
		if err == nil || !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestMergeAlignsByWallClock: a shard that started 0.4 s after the others
// has its intervals put on the nearest tick, and the merge says so.
func TestMergeAlignsByWallClock(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := shardRun(t, 0, 2, start, []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}, hist.New())
	b := shardRun(t, 1, 2, start.Add(400*time.Millisecond), []time.Duration{4 * time.Millisecond, 5 * time.Millisecond, 6 * time.Millisecond}, hist.New())
	m, notes, err := Merge([]*result.Run{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Intervals) != 3 || m.Intervals[0].Events != 2 || m.Intervals[0].EndS != 1 {
		t.Errorf("intervals %+v", m.Intervals)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "0.400 s apart") {
		t.Errorf("notes %v", notes)
	}
}

// An operation that shares its name with the event (a pgbench script file
// named transaction.sql) stays apart from it when shards merge.
func TestMergeOpsKeepsNamesakesApart(t *testing.T) {
	h := hist.New()
	h.Record(time.Millisecond)
	snap, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	shard := []result.Op{{Name: "transaction", Kind: "event", Count: 1, Histogram: snap}, {Name: "transaction", Kind: "write", Type: true, Count: 1, Histogram: snap}}
	ops, err := mergeOps([][]result.Op{shard, shard}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Kind != "event" || ops[0].Count != 2 || ops[1].Kind != "write" || !ops[1].Type || ops[1].Count != 2 {
		t.Errorf("merged %+v", ops)
	}
}

// Shards that drove one instance each sampled the same server: the merged
// instance has one shard's figures (the most samples), not their sum, and
// a run of one instance carries them too.
func TestServerFiguresOfShards(t *testing.T) {
	a := &result.ServerStats{Source: "pg_stat_activity", Samples: 90, Active: 180, Counters: map[string]float64{"pg_stat_database.xact_commit": 1000}}
	b := &result.ServerStats{Source: "pg_stat_activity", Samples: 100, Active: 210, Counters: map[string]float64{"pg_stat_database.xact_commit": 1010}}
	got := serverOf([]result.InstancePart{{ServerStats: a}, {ServerStats: b}})
	if got == nil || got.Samples != 100 || got.Counters["pg_stat_database.xact_commit"] != 1010 || !strings.Contains(got.Note, "shard 2's monitor") {
		t.Errorf("merged server %+v", got)
	}
	if b.Note != "" {
		t.Errorf("the shard's own figures were changed: %q", b.Note)
	}
	if got := serverOf([]result.InstancePart{{}, {ServerStats: a}}); got != a {
		t.Errorf("one shard sampled: %+v", got)
	}
	if got := serverOf([]result.InstancePart{{}, {}}); got != nil {
		t.Errorf("none sampled: %+v", got)
	}
}

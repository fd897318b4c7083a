package all

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/merge"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload/fileio"
	"github.com/rightsize/rightsize/internal/workload/tpcc"
)

// shard is shard i of n of a one-instance run of workload whose virtual
// users are split, with ops[name] latencies for each operation (the first
// is the event) and counters, as `run --shard` writes it; what the
// workload's summariser added to it is there too, as in a real shard's
// result.
func shard(t *testing.T, workload, event string, i, n int, opts map[string]any, names []string, lat map[string][]time.Duration,
	counters map[string]int64, all map[string]*hist.Histogram) *result.Run {
	t.Helper()
	snap := func(h *hist.Histogram) string {
		s, err := h.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var ops []result.Op
	for _, name := range names {
		h := hist.New()
		for _, d := range lat[name] {
			h.Record(d)
			if all[name] == nil {
				all[name] = hist.New()
			}
			all[name].Record(d)
		}
		kind := "write"
		if name == event {
			kind = "event"
		}
		ops = append(ops, result.Op{Name: name, Kind: kind, Count: h.Count(), Latency: result.LatencyOf(h), Histogram: snap(h)})
	}
	sum := result.Summary{Count: ops[0].Count, DurationS: 60, Latency: ops[0].Latency, Histogram: ops[0].Histogram, Counters: counters,
		ErrorsByClass: map[string]int64{}}
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := &result.Run{
		SchemaVersion: result.SchemaVersion, ID: "run1-s", Workload: workload, Event: event, Options: opts,
		Load:    result.Load{Mode: "closed", Threads: 5, DurationS: 60, IntervalS: 1, Seed: 7},
		Started: start, Ended: start.Add(time.Minute), Summary: sum, Ops: ops,
		Instances: []result.InstancePart{{Index: 0, Target: "postgres://x@db/tpcc", Summary: sum, Ops: ops, Notes: []string{"engine psync"}}},
		Client:    &result.Client{CPUUserS: 1, CPUSysS: 1},
		Shard: &result.Shard{RunID: "run1", Index: i, Count: n, Instances: 1, TotalInstances: 1, FirstVU: 5 * i, VUs: 5, TotalVUs: 5 * n,
			Barrier: "time"},
	}
	if err := Summarize(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func spread(n int, fast, slow time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = fast + time.Duration(i)*(slow-fast)/time.Duration(n)
	}
	return out
}

// TestMergeThenSummarize: the shards' TPC-C figures are not merged (the
// summariser works from what is), and summarising the merged result gives
// the figures of the whole run: tpmC from the added counts, each limit's
// p90 from the added histograms, the terminals of all shards.
func TestMergeThenSummarizeTPCC(t *testing.T) {
	names := []string{"transaction", "new_order", "payment", "order_status", "delivery", "stock_level"}
	opts := map[string]any{"warehouses": 1.0, "think-scale": 0.0, "weights": "45,43,4,4,4"}
	all := map[string]*hist.Histogram{}
	var shards []*result.Run
	for i := range 2 {
		// The second shard's New-Orders are far slower: its p90 alone
		// is over the limit, the whole run's is not.
		newOrders, slow := []int{2000, 300}[i], []time.Duration{100 * time.Millisecond, 8 * time.Second}[i]
		lat := map[string][]time.Duration{
			"new_order": spread(newOrders, time.Millisecond, slow), "payment": spread(430, time.Millisecond, 10*time.Millisecond),
			"order_status": spread(40, time.Millisecond, 2*time.Millisecond), "delivery": spread(40, time.Millisecond, 3*time.Millisecond),
			"stock_level": spread(40, time.Millisecond, 4*time.Millisecond),
		}
		for _, n := range names[1:] {
			lat["transaction"] = append(lat["transaction"], lat[n]...)
		}
		shards = append(shards, shard(t, "tpcc", "transaction", i, 2, opts, names, lat,
			map[string]int64{"new_order_rollbacks": int64(5 + i), "order_lines": 5000, "remote_order_lines": 0}, all))
	}
	if f, _ := tpcc.FiguresOf(shards[1].Section); f.Limits[0].OK {
		t.Fatalf("shard 1's new_order p90 %.0f ms alone should be over its limit", f.Limits[0].P90Ms)
	}
	m, _, err := merge.Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Section != nil || m.Figures != nil || m.Instances[0].Section != nil || m.Instances[0].Figures != nil {
		t.Fatal("merge carried a shard's workload figures over")
	}
	if err := Summarize(m); err != nil {
		t.Fatal(err)
	}
	f, err := tpcc.FiguresOf(m.Section)
	if err != nil || f == nil {
		t.Fatalf("merged tpcc section: %v", err)
	}
	if f.TpmC != 2300 || f.NOPM != 2300-11 || f.Terminals != 10 || f.TPM != 2300+860+240 {
		t.Errorf("merged figures: tpmC %v NOPM %v terminals %d TPM %v", f.TpmC, f.NOPM, f.Terminals, f.TPM)
	}
	want := result.Ms(all["new_order"].Quantile(0.90))
	if l := f.Limits[0]; l.Name != "new_order" || math.Abs(l.P90Ms-want) > 1e-9 || !l.OK {
		t.Errorf("merged new_order limit %+v, want p90 %v ms from the added histograms", l, want)
	}
	if fig, ok := m.Figures.Find("tpmC"); !ok || fig.Value != 2300 {
		t.Errorf("merged headline %+v", m.Figures.Headline)
	}
	if in, _ := tpcc.FiguresOf(m.Instances[0].Section); in == nil || in.TpmC != 2300 || m.Instances[0].Figures == nil {
		t.Errorf("merged instance figures %+v", in)
	}
	// The merged result keeps the section where scripts read it.
	var buf bytes.Buffer
	if err := result.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TPCC struct {
			TpmC float64 `json:"tpmc"`
		} `json:"tpcc"`
		Instances []struct {
			TPCC struct {
				TpmC float64 `json:"tpmc"`
			} `json:"tpcc"`
		} `json:"instances"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || doc.TPCC.TpmC != 2300 || doc.Instances[0].TPCC.TpmC != 2300 {
		t.Errorf("merged file: %v, tpcc.tpmc %v, instances[0].tpcc.tpmc %v", err, doc.TPCC.TpmC, doc.Instances[0].TPCC.TpmC)
	}
}

// TestMergeThenSummarizeFileio: the merged storage figures are the whole
// run's, from the recorded options (per VM and per GB included).
func TestMergeThenSummarizeFileio(t *testing.T) {
	names := []string{"io", "read", "write"}
	opts := map[string]any{"pattern": "t2 o4 b4k", "random": true, "direct": true, "read": "70", "vms": 10.0, "capacity": 1e12}
	all := map[string]*hist.Histogram{}
	var shards []*result.Run
	for i := range 2 {
		lat := map[string][]time.Duration{"read": spread(700*(i+1), 100*time.Microsecond, time.Millisecond),
			"write": spread(300*(i+1), 200*time.Microsecond, 2*time.Millisecond)}
		lat["io"] = append(append([]time.Duration(nil), lat["read"]...), lat["write"]...)
		shards = append(shards, shard(t, "fileio", "io", i, 2, opts, names, lat, nil, all))
	}
	m, _, err := merge.Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if err := Summarize(m); err != nil {
		t.Fatal(err)
	}
	f, err := fileio.FiguresOf(m.Section)
	if err != nil || f == nil {
		t.Fatalf("merged fileio section: %v", err)
	}
	if f.Total.Count != 3000 || f.Total.IOPS != 50 || f.Read.Count != 2100 || f.Engine != "psync" || f.ReadPct != 70 {
		t.Errorf("merged figures %+v", f)
	}
	if d := f.Derived; d == nil || d.IOPSPerVM != 5 || d.IOPSPerGB != 0.05 {
		t.Errorf("merged derived %+v", d)
	}
	if want := result.Ms(all["read"].Quantile(0.99)); math.Abs(f.Read.Latency.P99Ms-want) > 1e-9 {
		t.Errorf("merged read p99 %v, want %v from the added histograms", f.Read.Latency.P99Ms, want)
	}
	if fig, ok := m.Figures.Find("IOPS"); !ok || fig.Value != 50 || m.Figures.Column != "70% read" {
		t.Errorf("merged figures %+v", m.Figures)
	}
}

func TestSummarizeUnknownWorkload(t *testing.T) {
	if err := Summarize(&result.Run{Workload: "nope"}); err == nil {
		t.Error("an unknown workload summarised")
	}
	r := &result.Run{Workload: "oltp_read_write"}
	if err := Summarize(r); err != nil || r.Figures != nil || r.Section != nil {
		t.Errorf("a workload without figures of its own: %v, %+v", err, r.Figures)
	}
}

// Every workload can name its section in a result file.
func TestSectionNames(t *testing.T) {
	for _, w := range All() {
		if err := result.ValidSectionName(w.Meta().Name); err != nil {
			t.Errorf("%s: %v", w.Meta().Name, err)
		}
	}
}

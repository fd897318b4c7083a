package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// TestShardedRunMergesExactly runs one open-loop run on PostgreSQL twice:
// in one process, and as 4 generator processes on shards of it (--shard
// i/4, started together through the history catalog's barrier), then merges
// the shards. The merge must be exact: its counts are the shards' sums and
// its percentiles those of the shards' HDR histograms added (decoded and
// added here with hdrhistogram-go, apart from rightsize's code). Driven at
// the same rate (each shard a quarter), it must agree with the one-process
// run: the same throughput, a median of the same order. Merging three of the
// four shards is refused, naming the missing one.
func TestShardedRunMergesExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 6 processes against PostgreSQL")
	}
	dir := t.TempDir()
	pg := testenv.PostgresURL(t)
	common := []string{"--target", pg, "--table-size", "2000", "--threads", "8", "--rate", "400", "--warmup", "1s", "--time", "4s"}
	runIt := func(name string, args ...string) *proc {
		t.Helper()
		p := start(t, dir, args...)
		if !p.wait(90*time.Second) || p.code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", name, p.code, p.stdout.String(), p.stderr.String())
		}
		return p
	}
	runIt("prepare", "prepare", "oltp_point_select", "--target", pg, "--table-size", "2000")
	runIt("one process", append([]string{"run", "oltp_point_select", "--out", filepath.Join(dir, "single.json")}, common...)...)

	var procs []*proc
	var files []string
	for i := range 4 {
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		files = append(files, f)
		procs = append(procs, start(t, dir, append([]string{"run", "oltp_point_select", "--out", f, "--shard", fmt.Sprintf("%d/4", i), "--run-id", "t-shards"}, common...)...))
	}
	for i, p := range procs {
		if !p.wait(90*time.Second) || p.code != 0 {
			t.Fatalf("shard %d: exit %d\n%s\n%s", i, p.code, p.stdout.String(), p.stderr.String())
		}
		if !strings.Contains(p.stdout.String(), "all 4 shards connected") {
			t.Errorf("shard %d did not wait at the barrier:\n%s", i, p.stdout.String())
		}
	}
	merged := filepath.Join(dir, "merged.json")
	runIt("merge files", append([]string{"merge", "-o", merged, "--no-history"}, files...)...)
	fromHistory := filepath.Join(dir, "merged-history.json")
	runIt("merge --run", "merge", "--run", "t-shards", "-o", fromHistory)

	read := func(p string) *result.Run {
		t.Helper()
		r, err := decodeFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, m, mh := read(filepath.Join(dir, "single.json")), read(merged), read(fromHistory)
	var shards []*result.Run
	for _, f := range files {
		shards = append(shards, read(f))
	}

	// Exact: counts summed, histograms added.
	var count int64
	all := hdr.New(1, int64(time.Hour), 3)
	vus := map[int]int{}
	var first, last time.Time
	var censored int64
	for i, s := range shards {
		count += s.Summary.Count
		censored += s.Summary.Censored
		// The summary's histogram: the successful events' response times
		// and the censored samples of those in flight at the end.
		h := hdr.Import(mustDecode(t, s.Summary.Histogram))
		all.Merge(h)
		if s.Shard == nil || s.Shard.Index != i || s.Shard.RunID != "t-shards" || s.Load.Rate != 100 || s.Load.Threads != 2 {
			t.Errorf("shard %d: %+v, rate %g, threads %d", i, s.Shard, s.Load.Rate, s.Load.Threads)
			continue
		}
		for v := s.Shard.FirstVU; v < s.Shard.FirstVU+s.Shard.VUs; v++ {
			vus[v]++
		}
		if first.IsZero() || s.Started.Before(first) {
			first = s.Started
		}
		if s.Started.After(last) {
			last = s.Started
		}
	}
	if len(vus) != 8 {
		t.Errorf("the shards drove virtual users %v, want 0..7 once each", vus)
	}
	if skew := last.Sub(first); skew > 500*time.Millisecond {
		t.Errorf("the shards started %v apart despite the barrier", skew)
	}
	if m.Summary.Count != count || m.Ops[0].Count != count || all.TotalCount() != count+censored || m.Summary.Censored != censored {
		t.Errorf("merged %d events (op %d) and %d censored, the shards %d and %d, their histograms %d", m.Summary.Count, m.Ops[0].Count, m.Summary.Censored, count, censored, all.TotalCount())
	}
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	for _, q := range []struct {
		name string
		got  float64
		want float64
	}{
		{"p50", m.Summary.Latency.P50Ms, ms(all.ValueAtQuantile(50))},
		{"p99", m.Summary.Latency.P99Ms, ms(all.ValueAtQuantile(99))},
		{"max", m.Summary.Latency.MaxMs, ms(all.Max())},
	} {
		// Three significant digits: one HDR bucket is 0.1 % wide.
		if math.Abs(q.got-q.want) > 0.002*q.want {
			t.Errorf("merged %s %.4f ms, the added histograms' %.4f ms", q.name, q.got, q.want)
		}
	}
	if m.ID != "t-shards" || m.Load.Threads != 8 || m.Load.Rate != 400 || len(m.Generators) != 4 {
		t.Errorf("merged: id %q, threads %d, rate %g, %d generators", m.ID, m.Load.Threads, m.Load.Rate, len(m.Generators))
	}
	if mh.Summary.Count != m.Summary.Count || mh.Summary.Latency != m.Summary.Latency {
		t.Errorf("merged from the history: %d events %+v; from the files: %d %+v", mh.Summary.Count, mh.Summary.Latency, m.Summary.Count, m.Summary.Latency)
	}
	var inWindow int64
	for _, iv := range m.Intervals {
		if iv.Phase == "measure" {
			inWindow += iv.Events
		}
	}
	if d := math.Abs(float64(inWindow - count)); d > 0.02*float64(count) {
		t.Errorf("the merged measured intervals hold %d events, the window %d", inWindow, count)
	}

	// The same run in one process: the same offered rate, so the same
	// throughput; latencies of the same order (two runs on a shared
	// machine are not equal, only the merge is exact).
	if r := m.Summary.Throughput / one.Summary.Throughput; r < 0.95 || r > 1.05 {
		t.Errorf("throughput: merged %.1f/s, one process %.1f/s", m.Summary.Throughput, one.Summary.Throughput)
	}
	if r := m.Summary.Latency.P50Ms / one.Summary.Latency.P50Ms; r < 0.5 || r > 2 {
		t.Errorf("p50: merged %.3f ms, one process %.3f ms", m.Summary.Latency.P50Ms, one.Summary.Latency.P50Ms)
	}
	t.Logf("one process: %d transactions, %.1f/s, p50 %.3f ms, p99 %.3f ms", one.Summary.Count, one.Summary.Throughput, one.Summary.Latency.P50Ms, one.Summary.Latency.P99Ms)
	t.Logf("4 shards merged: %d transactions, %.1f/s, p50 %.3f ms, p99 %.3f ms", m.Summary.Count, m.Summary.Throughput, m.Summary.Latency.P50Ms, m.Summary.Latency.P99Ms)

	p := start(t, dir, "merge", "--no-history", "-o", "-", files[0], files[1], files[3])
	if !p.wait(30*time.Second) || p.code != 1 || !strings.Contains(p.stderr.String(), "shard(s) 2/4 missing") {
		t.Errorf("merging 3 of 4 shards: exit %d\n%s", p.code, p.stderr.String())
	}
}

func mustDecode(t *testing.T, s string) *hdr.Snapshot {
	t.Helper()
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return h.Export()
}

package result_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func histOf(t testing.TB, ds ...time.Duration) string {
	t.Helper()
	h := hist.New()
	for _, d := range ds {
		h.Record(d)
	}
	s, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fullSummary has every field set to a distinct non-zero value, so that every
// field appears in the JSON (omitempty included).
func fullSummary() result.Summary {
	return result.Summary{
		Unit:                     "transactions",
		Throughput:               1803.2,
		Count:                    108192,
		Latency:                  result.Latency{AvgMs: 2.2, P50Ms: 2.1, P95Ms: 3.02, P99Ms: 4.11, P999Ms: 7.5, MaxMs: 12.25},
		ServiceTime:              &result.Latency{AvgMs: 1.1, P50Ms: 1.05, P95Ms: 1.5, P99Ms: 2, P999Ms: 3, MaxMs: 5},
		StartLag:                 &result.Latency{AvgMs: 0.05, P50Ms: 0.04, P95Ms: 0.1, P99Ms: 0.2, P999Ms: 0.9, MaxMs: 1.5},
		QPS:                      36064,
		Reads:                    1514688,
		Writes:                   432768,
		Other:                    216384,
		Errors:                   7,
		ErrorsByClass:            map[string]int64{"deadlock": 5, "serialization": 2},
		ErrorMessages:            []result.ErrorMessage{{Class: "deadlock", Message: "ERROR: deadlock detected (SQLSTATE 40P01)", Count: 5}},
		Retries:                  4,
		RetriesByClass:           map[string]int64{"deadlock": 3, "constraint": 1},
		RetryMessages:            []result.ErrorMessage{{Class: "constraint", Message: "duplicate key", Count: 1}},
		GaveUp:                   1,
		Reconnects:               1,
		ReconnectFailures:        4,
		ReconnectFailuresByClass: map[string]int64{"connection": 3, "auth": 1},
		ReconnectFailureMessages: []result.ErrorMessage{{Class: "auth", Message: "password authentication failed", Count: 1}},
		Cancelled:                2,
		Censored:                 3,
		CensoredMaxMs:            41000,
		AfterWindow:              5,
		Offered:                  1900.5,
		Dropped:                  3,
		Late:                     11,
		DurationS:                60,
		Partial:                  true,
		Counters:                 map[string]int64{"new_order_rollbacks": 12},
		Clamped:                  1,
		// A shard's: the histograms of Latency and ServiceTime.
		Histogram:            "HISTFAAAABx4nJNpmSzMwMDAxQABzFCaEUTqr57vBAAAQQMC",
		ServiceTimeHistogram: "HISTFAAAABx4nJNpmSzMwMDAxQABzFCaEUTqr57vBAAAQQMC",
		Types: []result.Type{
			{Name: "New-Order", Count: 48686, SharePct: 45, Errors: 5, AvgMs: 2.9, P95Ms: 4.2, P99Ms: 5.8, Frequent: true},
			{Name: "Delivery", Count: 4328, SharePct: 4, AvgMs: 9.5, P95Ms: 15.1, P99Ms: 20.3},
		},
		SlowestFrequent: "New-Order",
	}
}

// fullServerStats has every field set, so that every one appears in the
// JSON.
func fullServerStats() *result.ServerStats {
	return &result.ServerStats{Source: "pg_stat_activity", Product: "PostgreSQL", IntervalMs: 100, Samples: 600, Active: 2280,
		Waits:  []result.Wait{{Type: "Lock", Event: "transactionid", Samples: 1390}, {Type: "CPU", Samples: 274}},
		Hidden: 12, IdleInTx: 31, DurationS: 60.02, Counters: map[string]float64{"pg_stat_database.xact_commit": 72180, "pg_stat_wal.wal_sync_time": 12.5},
		Statements: []result.Statement{{Text: "UPDATE hot SET n = n + $1 WHERE id = $2", Calls: 72000, TimeMs: 21600, Rows: 72000, Share: 0.9}},
		Note:       "user bench may not see other users' sessions"}
}

func TestServerStatsEveryField(t *testing.T) {
	b, err := json.Marshal(fullServerStats())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if n := reflect.TypeFor[result.ServerStats]().NumField(); len(m) != n {
		t.Errorf("server JSON has %d keys, ServerStats has %d fields: fullServerStats leaves a field empty", len(m), n)
	}
	s := fullServerStats()
	if a := s.AvgActive(); a != 3.8 {
		t.Errorf("AvgActive = %v, want 3.8", a)
	}
	if r, ok := s.Rate("pg_stat_database.xact_commit"); !ok || math.Abs(r-72180/60.02) > 1e-9 {
		t.Errorf("Rate(xact_commit) = %v, %v", r, ok)
	}
	if _, ok := s.Rate("pg_stat_io.reads"); ok {
		t.Errorf("Rate of a counter the server did not have: ok")
	}
	if n := s.Waits[0].Name(); n != "Lock:transactionid" || s.Waits[1].Name() != "CPU" {
		t.Errorf("wait names %q, %q", n, s.Waits[1].Name())
	}
}

func fullRun(t testing.TB) *result.Run {
	t.Helper()
	s := fullSummary()
	w := fullSummary()
	w.DurationS = 10
	w.ServiceTime = nil
	w.Types, w.SlowestFrequent = nil, "" // a warm-up has no types
	iv := func(end float64, phase string) result.Interval {
		return result.Interval{
			EndS: end, DurationS: 1, Phase: phase, Events: 1800, Rate: 1800, Reads: 25200, Writes: 7200, Other: 3600,
			Errors: 2, ErrorsByClass: map[string]int64{"deadlock": 2}, Reconnects: 1,
			Latency: result.Latency{AvgMs: 2, P50Ms: 2, P95Ms: 3, P99Ms: 4, P999Ms: 5, MaxMs: 6},
		}
	}
	ops := []result.Op{
		{Name: "transaction", Kind: "event", Count: 108192, Rate: 1803.2, Errors: 7,
			ErrorsByClass: map[string]int64{"deadlock": 5, "serialization": 2},
			Latency:       s.Latency, Histogram: histOf(t, time.Millisecond, 2*time.Millisecond, 3*time.Second)},
		{Name: "point_select", Kind: "read", Count: 1081920, Rate: 18032, Latency: result.Latency{AvgMs: 0.12},
			Histogram: histOf(t, 120*time.Microsecond)},
	}
	srv := fullServerStats()
	return &result.Run{
		ServerStats:   srv,
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "rightsize", Version: "v1.2.3", GoVersion: "go1.26.8"},
		ID:            "20250102T030405Z-abcd",
		Label:         "baseline",
		Workload:      "oltp_read_write",
		Event:         "transaction",
		Options:       map[string]any{"tables": 4.0, "table-size": 10000.0, "range-selects": true, "rand-type": "uniform"},
		Load: result.Load{Mode: "open", Threads: 16, Rate: 2000, Arrival: "poisson", ThinkS: 0.5, ThinkDist: "exponential",
			WarmupS: 10, DurationS: 60, IntervalS: 1, GraceS: 5, Seed: math.MaxUint64,
			SteadyState: &result.SteadyState{WindowS: 5, TolerancePct: 5, Reached: true, AtS: 7, ThroughputDriftPct: 1.25, P99DriftPct: 3.5}},
		Started:       time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC),
		Ended:         time.Date(2025, 1, 2, 3, 5, 15, 0, time.UTC),
		Partial:       true,
		PartialReason: "interrupted",
		Summary:       s,
		Ops:           ops,
		Warmup:        &w,
		Intervals:     []result.Interval{iv(1, "warmup"), iv(11, "measure")},
		Instances: []result.InstancePart{
			{Index: 0, Target: "postgres://bench@db1/bench", Dialect: "postgres", ServerProduct: "PostgreSQL", ServerVersion: "17.2", Encrypted: true, TLS: "TLS 1.3",
				Notes: []string{"synchronous_commit=off"}, Summary: s, Ops: ops, Warmup: &w, Intervals: []result.Interval{iv(1, "warmup")}, ServerStats: srv},
			{Index: 1, Target: "postgres://bench@db2/bench", Dialect: "postgres", Summary: s, Ops: ops[:1], Intervals: []result.Interval{iv(11, "measure")}},
		},
		Client:  &result.Client{CPUUserS: 12.5, CPUSysS: 3.25, CPUPerEventUs: 152.6, NumCPU: 8, GoMaxProcs: 8, Hostname: "loadgen"},
		Machine: &result.Machine{Hostname: "loadgen", CPUModel: "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"},
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	r := fullRun(t)
	var buf bytes.Buffer
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	got, err := result.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Decode(Encode(run)) = %v", err)
	}
	if !reflect.DeepEqual(got, r) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(r)
		t.Fatalf("round trip differs:\n got %s\nwant %s", g, w)
	}
	// The histograms survive as histograms.
	h, err := hist.FromSnapshot(got.Ops[0].Histogram)
	if err != nil || h.Count() != 3 {
		t.Fatalf("decoded op histogram: %v, count %v; want 3 values", err, h)
	}
	// Encode writes indented JSON ending with a newline.
	if !bytes.HasPrefix(buf.Bytes(), []byte("{\n  \"schema_version\": 1,")) || !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) {
		t.Errorf("Encode output does not start with an indented schema_version:\n%.80s", buf.String())
	}
}

func TestDecodeMinimal(t *testing.T) {
	r, err := result.Decode(strings.NewReader(`{"schema_version": 1}`))
	if err != nil {
		t.Fatalf("Decode(minimal) = %v", err)
	}
	if r.SchemaVersion != 1 {
		t.Errorf("SchemaVersion = %d, want 1", r.SchemaVersion)
	}
	// Unknown fields are new optional fields: ignored.
	if _, err := result.Decode(strings.NewReader(`{"schema_version": 1, "from_the_future": {"x": 1}}`)); err != nil {
		t.Errorf("Decode with an unknown field = %v, want nil", err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	future := `{"schema_version": ` + itoa(result.SchemaVersion+1) + `}`
	for name, in := range map[string]string{
		"empty":                   "",
		"not JSON":                "schema_version: 1",
		"truncated":               `{"schema_version": 1, "summary": {`,
		"JSON null":               "null",
		"JSON array":              `[{"schema_version": 1}]`,
		"JSON number":             "1",
		"no schema_version":       `{"workload": "oltp_read_write", "summary": {"throughput": 1}}`,
		"null schema_version":     `{"schema_version": null}`,
		"string schema_version":   `{"schema_version": "1"}`,
		"fraction schema_version": `{"schema_version": 1.5}`,
		"zero schema_version":     `{"schema_version": 0}`,
		"negative schema_version": `{"schema_version": -1}`,
		"future schema_version":   future,
		"huge schema_version":     `{"schema_version": 99999999999999999999}`,
		"wrong field type":        `{"schema_version": 1, "summary": {"count": "many"}}`,
		"trailing garbage":        `{"schema_version": 1} {"schema_version": 1}`,
	} {
		t.Run(name, func(t *testing.T) {
			r, err := result.Decode(strings.NewReader(in))
			if !errors.Is(err, result.ErrSchema) {
				t.Fatalf("Decode(%q) = %v, %v; want an error wrapping ErrSchema", in, r, err)
			}
			if r != nil {
				t.Errorf("Decode returned a run with an error")
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestDecodeReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r, err := result.Decode(iotest.ErrReader(boom))
	if !errors.Is(err, boom) || r != nil {
		t.Fatalf("Decode(failing reader) = %v, %v; want the reader's error", r, err)
	}
}

func TestMs(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want float64
	}{{0, 0}, {time.Millisecond, 1}, {1500 * time.Microsecond, 1.5}, {time.Second, 1000}, {1, 1e-6}, {-2 * time.Millisecond, -2}} {
		if got := result.Ms(tc.d); got != tc.want {
			t.Errorf("Ms(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

func TestLatencyOf(t *testing.T) {
	if got := result.LatencyOf(hist.New()); got != (result.Latency{}) {
		t.Errorf("LatencyOf(empty) = %+v, want zero", got)
	}
	// 1 ms, 2 ms, …, 1000 ms: quantile q is q·1000 ms, the mean 500.5 ms.
	h := hist.New()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	got := result.LatencyOf(h)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"avg", got.AvgMs, 500.5}, {"p50", got.P50Ms, 500}, {"p95", got.P95Ms, 950},
		{"p99", got.P99Ms, 990}, {"p99.9", got.P999Ms, 999}, {"max", got.MaxMs, 1000},
	} {
		if math.Abs(c.got-c.want) > 0.001*c.want {
			t.Errorf("%s = %v ms, want %v ms ± 0.1 %%", c.name, c.got, c.want)
		}
	}
	if !(got.P50Ms <= got.P95Ms && got.P95Ms <= got.P99Ms && got.P99Ms <= got.P999Ms && got.P999Ms <= got.MaxMs) {
		t.Errorf("quantiles out of order: %+v", got)
	}
}

// TestSummaryGolden pins the JSON of the documented summary object: what
// scripts read. Renaming, removing or adding a field changes the golden file;
// refresh it with `go test ./internal/result -run SummaryGolden -update` and
// review the diff (a rename or removal needs a SchemaVersion bump).
func TestSummaryGolden(t *testing.T) {
	s := fullSummary()
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')

	// Every field of Summary (and of Latency) must appear, or the golden
	// file would not show it.
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if n := reflect.TypeFor[result.Summary]().NumField(); len(m) != n {
		t.Errorf("summary JSON has %d keys, Summary has %d fields: fullSummary leaves a field empty", len(m), n)
	}
	lat, _ := m["latency"].(map[string]any)
	if n := reflect.TypeFor[result.Latency]().NumField(); len(lat) != n {
		t.Errorf("latency JSON has %d keys, Latency has %d fields", len(lat), n)
	}

	golden := filepath.Join("testdata", "summary.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("summary JSON changed (run with -update if intended):\n got:\n%s\nwant:\n%s", b, want)
	}

	// Independently of the golden file, the summary's units follow the
	// package's convention: latencies in _ms, durations in _s.
	for k := range lat {
		if !strings.HasSuffix(k, "_ms") {
			t.Errorf("latency field %q does not end in _ms", k)
		}
	}
	if _, ok := m["duration_s"]; !ok {
		t.Errorf("summary has no duration_s")
	}
}

func TestMeanHost(t *testing.T) {
	a := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 10, Idle: 90}, PerCPU: []result.CPUPct{{User: 20}, {User: 0}}, RunQueue: 2, ContextSwitchesPerS: 100,
		Disks: []result.Disk{{Name: "vda", ReadIOPS: 100, UtilPct: 10}}}
	b := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 30, Steal: 10, Idle: 60}, PerCPU: []result.CPUPct{{User: 40}, {User: 20}}, RunQueue: 5, ContextSwitchesPerS: 300,
		Disks: []result.Disk{{Name: "vda", ReadIOPS: 300, UtilPct: 30}, {Name: "vdb", WriteIOPS: 50}}}
	m := result.MeanHost([]*result.Host{a, nil, b})
	if m.CPU.User != 20 || m.CPU.Steal != 5 || m.CPU.Idle != 75 || m.PerCPU[0].User != 30 || m.RunQueue != 4 || m.ContextSwitchesPerS != 200 {
		t.Errorf("mean %+v", m)
	}
	if len(m.Disks) != 2 || m.Disks[0].ReadIOPS != 200 || m.Disks[0].UtilPct != 20 || m.Disks[1].WriteIOPS != 25 {
		t.Errorf("disks %+v (a disk missing from an interval counts as idle in it)", m.Disks)
	}
	if result.MeanHost(nil) != nil || result.MeanHost([]*result.Host{nil}) != nil {
		t.Error("no host figures should give nil")
	}
	if m.Pressure != nil {
		t.Errorf("pressure %+v from intervals without any", m.Pressure)
	}
	// Pressure is the mean over the intervals that have it.
	a.Pressure = &result.Pressure{CPUSomePct: 10, IOSomePct: 4, IOFullPct: 2}
	c := &result.Host{CPUs: 2, Pressure: &result.Pressure{CPUSomePct: 30, IOSomePct: 8, IOFullPct: 6}}
	m = result.MeanHost([]*result.Host{a, b, c})
	if p := m.Pressure; p == nil || p.CPUSomePct != 20 || p.IOSomePct != 6 || p.IOFullPct != 4 {
		t.Errorf("mean pressure %+v, want CPU some 20, I/O some 6, full 4", p)
	}
	if m.Cgroups != nil {
		t.Errorf("cgroups %+v from intervals without any", m.Cgroups)
	}
	// Cgroups by role and path over the intervals that have them; the
	// throttled share is of all their periods, not a mean of shares.
	db := func(periods, throttled, used float64) result.Cgroup {
		return result.Cgroup{Role: "database", Path: "/db", LimitCPUs: 0.5, UsedCPUs: used, Periods: periods, ThrottledPeriods: throttled, ThrottledMsPerS: throttled}
	}
	a.Cgroups = []result.Cgroup{{Role: "rightsize", Path: "/", UsedCPUs: 1}, db(10, 10, 0.5)}
	c.Cgroups = []result.Cgroup{db(30, 0, 0.1)}
	m = result.MeanHost([]*result.Host{a, b, c})
	if len(m.Cgroups) != 2 || m.Cgroups[0].Role != "rightsize" || m.Cgroups[0].UsedCPUs != 1 {
		t.Fatalf("cgroups %+v, want rightsize's then the database's", m.Cgroups)
	}
	if g := m.Cgroups[1]; g.ThrottledPct != 25 || g.Periods != 20 || g.ThrottledMsPerS != 5 || math.Abs(g.UsedCPUs-0.3) > 1e-9 || g.LimitCPUs != 0.5 {
		t.Errorf("database cgroup %+v, want 25 %% of 40 periods throttled, 20 periods, 5 ms/s, 0.3 CPUs used of 0.5", g)
	}
}

// TestMeanHostServerCPU: each server's CPU is its mean over the intervals
// that measured it, every field kept.
func TestMeanHostServerCPU(t *testing.T) {
	pg := func(used, procs float64) result.ServerCPU {
		return result.ServerCPU{Server: "postgres (PID 2243)", Address: "tcp 127.0.0.1:5432", UsedCPUs: used, Processes: procs}
	}
	a := &result.Host{CPUs: 2, ServerCPU: []result.ServerCPU{pg(0.5, 8)}}
	b := &result.Host{CPUs: 2}
	c := &result.Host{CPUs: 2, ServerCPU: []result.ServerCPU{pg(1.5, 10), {Server: "mariadbd (PID 3842)", UsedCPUs: 0.25, Processes: 1}}}
	m := result.MeanHost([]*result.Host{a, b, c})
	if len(m.ServerCPU) != 2 || m.ServerCPU[0] != pg(1, 9) || m.ServerCPU[1].UsedCPUs != 0.25 {
		t.Fatalf("server CPU %+v, want postgres's mean over the 2 intervals that had it, then mariadbd's", m.ServerCPU)
	}
	if used, ok := m.ServerUsedCPUs(); !ok || used != 1.25 {
		t.Errorf("ServerUsedCPUs = %v, %v; want 1.25 (both servers)", used, ok)
	}
	if _, ok := b.ServerUsedCPUs(); ok || result.MeanHost([]*result.Host{b}).ServerCPU != nil {
		t.Error("a host without server CPU should have none")
	}
	j, err := json.Marshal(pg(1, 9))
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(j, &keys); err != nil {
		t.Fatal(err)
	}
	if n := reflect.TypeFor[result.ServerCPU]().NumField(); len(keys) != n {
		t.Errorf("server_cpu JSON has %d keys, ServerCPU has %d fields", len(keys), n)
	}
}

func TestFairnessOf(t *testing.T) {
	if result.FairnessOf([]float64{100}) != nil {
		t.Error("one instance has no fairness")
	}
	f := result.FairnessOf([]float64{100, 100, 100, 100})
	if f.Min != 100 || f.Max != 100 || f.CoVPct != 0 {
		t.Errorf("equal instances: %+v", f)
	}
	f = result.FairnessOf([]float64{50, 150})
	if f.Min != 50 || f.Max != 150 || f.CoVPct != 50 {
		t.Errorf("50 and 150: %+v, want CoV 50 %%", f)
	}
}

// Drifts that are not finite (no full window, a series of mean 0) are null in
// the file, so that it can always be written, and read back as NaN.
func TestSteadyStateNonFiniteDrifts(t *testing.T) {
	r := fullRun(t)
	r.Load.SteadyState = &result.SteadyState{WindowS: 10, TolerancePct: 5, ThroughputDriftPct: math.NaN(), P99DriftPct: math.Inf(1)}
	var buf bytes.Buffer
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Load struct {
			SteadyState map[string]any `json:"steady_state"`
		} `json:"load"`
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	ss := raw.Load.SteadyState
	for _, k := range []string{"throughput_drift_pct", "p99_drift_pct"} {
		if v, ok := ss[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, ok)
		}
	}
	if _, ok := ss["at_s"]; ok || ss["reached"] != false || ss["window_s"] != 10.0 || ss["tolerance_pct"] != 5.0 {
		t.Errorf("steady_state = %v", ss)
	}
	got, err := result.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	g := got.Load.SteadyState
	if g == nil || !math.IsNaN(g.ThroughputDriftPct) || !math.IsNaN(g.P99DriftPct) || g.WindowS != 10 || g.TolerancePct != 5 || g.Reached {
		t.Errorf("decoded %+v", g)
	}
	// Without the detector there is no steady_state at all.
	r.Load.SteadyState = nil
	buf.Reset()
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "steady_state") {
		t.Error("steady_state written for a run without the detector")
	}
}

// TestInstanceServer: the server's product and version number, as history
// and the summary show them; a result written before the product was
// recorded shows its dialect and version.
func TestInstanceServer(t *testing.T) {
	for _, tc := range []struct {
		in   result.InstancePart
		want string
	}{
		{result.InstancePart{Dialect: "postgres", ServerProduct: "PostgreSQL", ServerVersion: "15.20 (Debian 15.20-0+deb12u1)"}, "PostgreSQL 15.20"},
		{result.InstancePart{Dialect: "mysql", ServerProduct: "MariaDB", ServerVersion: "10.11.19-MariaDB-0+deb12u1"}, "MariaDB 10.11.19"},
		{result.InstancePart{Dialect: "mysql", ServerProduct: "MySQL", ServerVersion: "8.4.3"}, "MySQL 8.4.3"},
		{result.InstancePart{Dialect: "sqlite", ServerProduct: "SQLite", ServerVersion: "3.54.1"}, "SQLite 3.54.1"},
		{result.InstancePart{Dialect: "sqlite", ServerVersion: "SQLite 3.46.0"}, "SQLite 3.46.0"},     // before server_product
		{result.InstancePart{Dialect: "postgres", ServerVersion: "15.20 (Debian)"}, "postgres 15.20"}, // before server_product
		{result.InstancePart{Dialect: "file"}, "file"},
		{result.InstancePart{Dialect: "postgres", ServerProduct: "PostgreSQL"}, "PostgreSQL"},
		{result.InstancePart{}, ""},
	} {
		if got := tc.in.Server(); got != tc.want {
			t.Errorf("%s %q %q: Server() = %q, want %q", tc.in.Dialect, tc.in.ServerProduct, tc.in.ServerVersion, got, tc.want)
		}
	}
}

// TestMachineRoundTrip: where the load generator ran is kept in the file.
func TestMachineRoundTrip(t *testing.T) {
	r := fullRun(t)
	r.Machine = &result.Machine{Hostname: "loadgen", CPUModel: "AMD EPYC 7763 64-Core Processor"}
	var b bytes.Buffer
	if err := result.Encode(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"machine": {`) || !strings.Contains(b.String(), `"cpu_model": "AMD EPYC 7763 64-Core Processor"`) {
		t.Errorf("no machine in the JSON:\n%s", b.String())
	}
	got, err := result.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Machine == nil || *got.Machine != *r.Machine {
		t.Errorf("machine %+v, want %+v", got.Machine, r.Machine)
	}
}

// The measured window runs from the start of the first measured interval
// to the end of the last, past the warm-up.
func TestRunWindow(t *testing.T) {
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	r := &result.Run{Started: start, Ended: start.Add(10 * time.Second), Intervals: []result.Interval{
		{EndS: 1, DurationS: 1, Phase: "warmup"}, {EndS: 2, DurationS: 1, Phase: "warmup"},
		{EndS: 3.5, DurationS: 1.5, Phase: "measure"}, {EndS: 4.5, DurationS: 1, Phase: "measure"}}}
	from, to := r.Window()
	if !from.Equal(start.Add(2*time.Second)) || !to.Equal(start.Add(4500*time.Millisecond)) {
		t.Errorf("window %v..%v, want 10:00:02..10:00:04.5", from, to)
	}
	r.Intervals = nil
	if from, to := r.Window(); !from.Equal(r.Started) || !to.Equal(r.Ended) {
		t.Errorf("without intervals: %v..%v, want the run's start and end", from, to)
	}
}

// ReadCapped reads to the end up to MaxFileSize bytes, and refuses one
// byte more with ErrNotRead.
func TestReadCapped(t *testing.T) {
	b, err := result.ReadCapped(io.LimitReader(zeros{}, 1000))
	if err != nil || len(b) != 1000 {
		t.Errorf("1000 bytes: %d, %v", len(b), err)
	}
	if _, err := result.ReadCapped(io.LimitReader(zeros{}, result.MaxFileSize+1)); !errors.Is(err, result.ErrNotRead) {
		t.Errorf("MaxFileSize+1 bytes: %v, want ErrNotRead", err)
	}
}

// zeros reads as /dev/zero does.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A result written before the workload's digest had a field of its own
// has it from its options' file_digest (a workload file's run).
func TestWorkloadDigestFromOldOptions(t *testing.T) {
	r, err := result.Decode(strings.NewReader(`{"schema_version":1,"workload":"shop","options":{"file":"shop.yaml","file_digest":"0123456789abcdef"},"summary":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.WorkloadDigest != "0123456789abcdef" {
		t.Errorf("WorkloadDigest %q, want the options' file_digest", r.WorkloadDigest)
	}
}

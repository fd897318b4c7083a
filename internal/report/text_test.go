package report_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func progress(t *testing.T, iv result.Interval, threads int, unit string) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.ProgressLine(&b, iv, threads, unit); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestProgressLineDocExample rebuilds the line of ProgressLine's doc comment
// from a 10 s interval: 18032 transactions of 14 reads, 4 writes and 2 other
// statements each.
func TestProgressLineDocExample(t *testing.T) {
	iv := result.Interval{
		EndS: 10, DurationS: 10, Phase: "measure",
		Events: 18032, Rate: 1803.2,
		Reads: 18032 * 14, Writes: 18032 * 4, Other: 18032 * 2,
		Latency: result.Latency{P95Ms: 3.02, P99Ms: 4.11, AvgMs: 2, MaxMs: 9},
	}
	want := "[ 10s ] thds: 4 tps: 1803.20 qps: 36064.00 (r/w/o: 25244.80/7212.80/3606.40) lat ms p95: 3.02 p99: 4.11 err/s: 0.00 reconn/s: 0.00\n"
	if got := progress(t, iv, 4, "tps"); got != want {
		t.Errorf("ProgressLine:\n got %q\nwant %q", got, want)
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		iv      result.Interval
		threads int
		unit    string
		want    string
	}{
		{
			// A warm-up tick of 2 s ending at 2.5 s: every count is halved
			// into a per-second rate.
			name: "warmup with errors",
			iv: result.Interval{
				EndS: 2.5, DurationS: 2, Phase: "warmup", Events: 300, Rate: 150,
				Reads: 1000, Writes: 401, Other: 3, Errors: 6, Reconnects: 1,
				ErrorsByClass: map[string]int64{"deadlock": 4, "connection": 1, "serialization": 1},
				Latency:       result.Latency{P95Ms: 12.346, P99Ms: 99.999},
			},
			threads: 16, unit: "tps",
			// errors are listed in errclass.All order: serialization,
			// deadlock, …, connection; 99.999 rounds to 100.00.
			want: "[ 2.5s warmup ] thds: 16 tps: 150.00 qps: 702.00 (r/w/o: 500.00/200.50/1.50) lat ms p95: 12.35 p99: 100.00 err/s: 3.00 (serialization 0.50, deadlock 2.00, connection 0.50) reconn/s: 0.50\n",
		},
		{
			name: "measure, io unit, one class",
			iv: result.Interval{
				EndS: 70, DurationS: 0.5, Phase: "measure", Events: 5000, Rate: 10000,
				Reads: 5000, Errors: 3, ErrorsByClass: map[string]int64{"timeout": 3},
				Latency: result.Latency{P95Ms: 0.2, P99Ms: 0.25},
			},
			threads: 1, unit: "io/s",
			want: "[ 70s ] thds: 1 io/s: 10000.00 qps: 10000.00 (r/w/o: 10000.00/0.00/0.00) lat ms p95: 0.20 p99: 0.25 err/s: 6.00 (timeout 6.00) reconn/s: 0.00\n",
		},
		{
			// A zero-length interval has no rates rather than infinities.
			name:    "zero duration",
			iv:      result.Interval{EndS: 0, DurationS: 0, Phase: "measure", Reads: 10, Errors: 1, Reconnects: 2},
			threads: 2, unit: "tps",
			want: "[ 0s ] thds: 2 tps: 0.00 qps: 0.00 (r/w/o: 0.00/0.00/0.00) lat ms p95: 0.00 p99: 0.00 err/s: 0.00 reconn/s: 0.00\n",
		},
		{
			// An open-loop tick beyond capacity: the rate done beside the
			// rate offered, late starts and failed reconnect attempts.
			name: "open loop, overloaded",
			iv: result.Interval{EndS: 5, DurationS: 1, Phase: "measure", Events: 1000, Rate: 1000, Offered: 3000, Late: 1000,
				Reads: 1000, Reconnects: 1, ReconnectFailures: 4},
			threads: 8, unit: "tps",
			want: "[ 5s ] thds: 8 tps: 1000.00 offered: 3000.00 late/s: 1000.00 qps: 1000.00 (r/w/o: 1000.00/0.00/0.00) lat ms p95: 0.00 p99: 0.00 err/s: 0.00 reconn/s: 1.00 (failed 4.00)\n",
		},
		{
			// The tick time is shown to 0.1 s without a trailing ".0".
			name:    "tick rounding",
			iv:      result.Interval{EndS: 119.96, DurationS: 1, Phase: "measure", Events: 7, Rate: 7, Writes: 7},
			threads: 3, unit: "tps",
			want: "[ 120s ] thds: 3 tps: 7.00 qps: 7.00 (r/w/o: 0.00/7.00/0.00) lat ms p95: 0.00 p99: 0.00 err/s: 0.00 reconn/s: 0.00\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := progress(t, tc.iv, tc.threads, tc.unit); got != tc.want {
				t.Errorf("ProgressLine:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// failWriter fails from its n-th Write call (counting from 1) on.
type failWriter struct {
	n, calls int
	afterErr int // writes attempted after the first failure
	buf      bytes.Buffer
}

var errDisk = errors.New("no space left on device")

func (w *failWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.calls >= w.n {
		if w.calls > w.n {
			w.afterErr++
		}
		return 0, errDisk
	}
	return w.buf.Write(p)
}

func TestProgressLineWriteError(t *testing.T) {
	w := &failWriter{n: 1}
	err := report.ProgressLine(w, result.Interval{EndS: 1, DurationS: 1}, 1, "tps")
	if !errors.Is(err, errDisk) {
		t.Fatalf("ProgressLine to a failing writer = %v, want %v", err, errDisk)
	}
	// One line is one write, so that concurrent output cannot split it.
	w = &failWriter{n: 2}
	if err := report.ProgressLine(w, result.Interval{EndS: 1, DurationS: 1}, 1, "tps"); err != nil {
		t.Fatal(err)
	}
	if w.calls != 1 {
		t.Errorf("ProgressLine made %d writes, want 1", w.calls)
	}
}

func lat(avg, p95, p99, max float64) result.Latency {
	return result.Latency{AvgMs: avg, P50Ms: avg * 0.9, P95Ms: p95, P99Ms: p99, P999Ms: (p99 + max) / 2, MaxMs: max}
}

func closedRun() *result.Run {
	s := result.Summary{
		Unit: "transactions", Throughput: 1803.2, Count: 108192, Latency: lat(2.2, 3.02, 4.11, 12.25),
		QPS: 36064, Reads: 1514688, Writes: 432768, Other: 216384, DurationS: 60,
	}
	return &result.Run{
		SchemaVersion: result.SchemaVersion,
		Workload:      "oltp_read_write",
		Event:         "transaction",
		Load:          result.Load{Mode: "closed", Threads: 8, WarmupS: 10, DurationS: 60, IntervalS: 1},
		Summary:       s,
		Warmup:        &result.Summary{DurationS: 10},
		Ops: []result.Op{
			{Name: "transaction", Kind: "event", Count: 108192, Rate: 1803.2, Latency: s.Latency},
			{Name: "point_select", Kind: "read", Count: 1081920, Rate: 18032, Latency: lat(0.123, 0.2, 0.3, 4.5)},
			{Name: "commit", Kind: "other", Count: 108192, Rate: 1803.2, Errors: 12, Latency: lat(0.5, 1, 2, 30)},
		},
		Instances: []result.InstancePart{{Index: 0, Target: "postgres://bench@localhost/bench", Dialect: "postgres", Summary: s}},
	}
}

func openRun() *result.Run {
	s := result.Summary{
		Unit: "transactions", Throughput: 1998.5, Count: 119910, Latency: lat(5.5, 20, 45.5, 300),
		ServiceTime: &[]result.Latency{lat(1.25, 2.5, 3.75, 100)}[0],
		Errors:      7, ErrorsByClass: map[string]int64{"serialization": 2, "deadlock": 5}, Reconnects: 1,
		Dropped: 90, Late: 345, DurationS: 60, Offered: 2000.1,
	}
	return &result.Run{
		SchemaVersion: result.SchemaVersion,
		Workload:      "oltp_point_select",
		Label:         "pg17 tuned",
		Event:         "transaction",
		Load:          result.Load{Mode: "open", Threads: 64, Rate: 2000, Arrival: "poisson", DurationS: 60},
		Summary:       s,
		Ops:           []result.Op{{Name: "transaction", Kind: "event", Count: 119910, Rate: 1998.5, Errors: 7, Latency: s.Latency}},
		Instances:     []result.InstancePart{{Index: 0, Target: "db1", Dialect: "postgres", Summary: s}},
		Client:        &result.Client{CPUUserS: 12.5, CPUSysS: 3.25, CPUPerEventUs: 131.36, NumCPU: 8, GoMaxProcs: 8},
	}
}

func multiRun() *result.Run {
	r := closedRun()
	r.Partial = true
	r.PartialReason = "interrupted by signal after 42 s"
	a, b := r.Summary, r.Summary
	a.Throughput, a.Count = 1000, 60000
	b.Throughput, b.Count = 803.2, 48192
	b.Errors, b.ErrorsByClass = 3, map[string]int64{"connection": 3}
	b.Reconnects = 3
	r.Instances = []result.InstancePart{
		{Index: 0, Target: "mysql://bench@db1/bench", Dialect: "mysql", Summary: a, Notes: []string{"binlog is on", "no TLS"}},
		{Index: 1, Target: "mysql://bench@db2/bench", Dialect: "mysql", Summary: b, Notes: []string{"innodb_flush_log_at_trx_commit=2", "no TLS"}},
	}
	return r
}

func render(t *testing.T, r *result.Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.Summary(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func lineWith(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), prefix) {
			return l
		}
	}
	t.Fatalf("no line starting with %q in:\n%s", prefix, out)
	return ""
}

// TestSummaryCountsReadAsWords: one thread, one instance and one retried
// error read in the singular ("1 threads; 1 instance(s)" before).
func TestSummaryCountsReadAsWords(t *testing.T) {
	r := closedRun()
	r.Load.Threads = 1
	r.Summary.Retries = 1
	r.Summary.RetriesByClass = map[string]int64{"deadlock": 1}
	out := render(t, r)
	if got := lineWith(t, out, "oltp_read_write"); !strings.HasSuffix(got, "; closed loop, 1 thread; 1 instance") {
		t.Errorf("title line = %q", got)
	}
	if !strings.Contains(out, "retried after 1 error (deadlock 1)") {
		t.Errorf("no 'retried after 1 error' in:\n%s", out)
	}
}

func TestSummaryClosedLoop(t *testing.T) {
	out := render(t, closedRun())
	if want := "oltp_read_write: 60 s measured after 10 s warm-up (excluded); closed loop, 8 threads; 1 instance"; lineWith(t, out, "oltp_read_write") != want {
		t.Errorf("title line = %q, want %q", lineWith(t, out, "oltp_read_write"), want)
	}
	want := "1803.20 transaction/s (108192 transactions), latency ms avg 2.20 p95 3.02 p99 4.11 max 12.25; qps 36064.00 (r/w/o 1514688/432768/216384)"
	if got := lineWith(t, out, "1803.20"); got != want {
		t.Errorf("headline = %q, want %q", got, want)
	}
	// The operations table: one row per op, values to the µs.
	row := strings.Fields(lineWith(t, out, "point_select"))
	wantRow := []string{"point_select", "read", "1081920", "18032.00", "0.123", "0.111", "0.200", "0.300", "2.400", "4.500", "0"}
	if strings.Join(row, " ") != strings.Join(wantRow, " ") {
		t.Errorf("point_select row = %q, want %q", row, wantRow)
	}
	for _, absent := range []string{"PARTIAL", "per instance", "service time", "errors ", "client CPU", "open loop"} {
		if strings.Contains(out, absent) {
			t.Errorf("closed-loop single-instance summary mentions %q:\n%s", absent, out)
		}
	}
	golden(t, "summary_closed.golden.txt", out)
}

func TestSummaryOpenLoop(t *testing.T) {
	out := render(t, openRun())
	for _, want := range []string{
		"\noltp_point_select [pg17 tuned]: 60 s measured; open loop at 2000/s per instance (poisson arrivals), up to 64 in flight; 1 instance\n",
		"\n1998.50 transaction/s (119910 transactions), latency ms avg 5.50 p95 20.00 p99 45.50 max 300.00\n",
		"\n  offered 2000.10 transaction/s; response time counts from the intended start; service time ms avg 1.25 p95 2.50 p99 3.75; late starts 345, dropped 90\n",
		// classes sorted by name
		"\n  errors 7 (deadlock 5, serialization 2), reconnects 1\n",
		"\nclient CPU: 131.4 µs per transaction (user 12.50 s, sys 3.25 s)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("open-loop summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "warm-up") || strings.Contains(out, "PARTIAL") {
		t.Errorf("summary without warm-up or partial mentions them:\n%s", out)
	}
	golden(t, "summary_open.golden.txt", out)
}

func TestSummaryPartialMultiInstance(t *testing.T) {
	out := render(t, multiRun())
	lines := strings.Split(out, "\n")
	// The partial mark comes right after the title, before any figure.
	if len(lines) < 3 || lines[2] != "PARTIAL RESULT: interrupted by signal after 42 s" {
		t.Errorf("line 3 = %q, want the partial mark:\n%s", lines[min(2, len(lines)-1)], out)
	}
	if !strings.Contains(lines[1], "; 2 instances") {
		t.Errorf("title %q does not count 2 instances", lines[1])
	}
	for _, want := range []string{
		"\nper instance:\n",
		"\n  #1 mysql://bench@db1/bench: 1000.00 transaction/s (60000 transactions), latency ms avg 2.20 p95 3.02 p99 4.11 max 12.25; qps 36064.00",
		"\n  #2 mysql://bench@db2/bench: 803.20 transaction/s (48192 transactions), latency ms avg 2.20",
		"\n  #2 mysql://bench@db2/bench:   errors 3 (connection 3), reconnects 3\n",
		// A note both instances share is printed once, naming both.
		"\nnote (#1 mysql): binlog is on\nnote (#1,#2 mysql): no TLS\nnote (#2 mysql): innodb_flush_log_at_trx_commit=2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "#1 mysql"), strings.Index(out, "#2 mysql"); i < 0 || j < i {
		t.Errorf("instances not in index order")
	}
	golden(t, "summary_partial_multi.golden.txt", out)
}

func TestSummaryWriteError(t *testing.T) {
	for name, r := range map[string]*result.Run{"closed": closedRun(), "open": openRun(), "multi": multiRun()} {
		// Count the writes of a successful rendering, then fail each one in turn.
		ok := &failWriter{n: 1 << 30}
		if err := report.Summary(ok, r); err != nil {
			t.Fatal(err)
		}
		if ok.calls < 3 {
			t.Fatalf("%s: only %d writes", name, ok.calls)
		}
		for n := 1; n <= ok.calls; n++ {
			w := &failWriter{n: n}
			err := report.Summary(w, r)
			if !errors.Is(err, errDisk) {
				t.Errorf("%s: write %d of %d fails: Summary = %v, want %v", name, n, ok.calls, err, errDisk)
			}
			if w.afterErr > 0 {
				t.Errorf("%s: write %d fails: %d more writes attempted after the error", name, n, w.afterErr)
			}
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update if intended):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestSummaryRetriesAndOpErrorClasses(t *testing.T) {
	r := closedRun()
	r.Summary.Retries = 9
	r.Summary.RetriesByClass = map[string]int64{"deadlock": 7, "constraint": 2}
	last := &r.Ops[len(r.Ops)-1]
	last.ErrorsByClass = map[string]int64{"serialization": last.Errors}
	out := render(t, r)
	if !strings.Contains(out, "retried after 9 errors (constraint 2, deadlock 7)") {
		t.Errorf("no retry line:\n%s", out)
	}
	if strings.Contains(out, "gave up") {
		t.Errorf("a gave-up line with no event giving up:\n%s", out)
	}
	r.Summary.GaveUp = 2
	if out := render(t, r); !strings.Contains(out, "2 transactions gave up after their last retry") {
		t.Errorf("no gave-up line:\n%s", out)
	}
	if want := fmt.Sprintf("%d (serialization %d)", last.Errors, last.Errors); !strings.Contains(out, want) {
		t.Errorf("op errors not split by class (%q):\n%s", want, out)
	}
	iv := result.Interval{EndS: 2, DurationS: 1, Phase: "measure", Events: 10, Rate: 10, Retries: 3}
	if line := progress(t, iv, 1, "tps"); !strings.Contains(line, "retry/s: 3.00") {
		t.Errorf("progress line lacks retries: %s", line)
	}
}

func TestSummaryHostAndSteal(t *testing.T) {
	r := closedRun()
	r.Host = &result.Host{
		CPUs: 2, CPU: result.CPUPct{User: 41.5, System: 20, Iowait: 3, Steal: 12.5, Idle: 23}, RunQueue: 5,
		ContextSwitchesPerS: 51234, MemUsedPct: 43,
		Disks: []result.Disk{{Name: "vda", ReadIOPS: 1200, WriteIOPS: 340, UtilPct: 87}},
	}
	out := render(t, r)
	for _, want := range []string{
		"host (2 CPUs, mean of the measured window): CPU user 41.5% sys 20.0% iowait 3.0% steal 12.5% idle 23.0%; run queue 5; 51234 context switches/s; memory 43% used; vda 1200 r/s 340 w/s 87% util\n",
		"warning: steal 12%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	r.Host.CPU.Steal = 2
	if out := render(t, r); strings.Contains(out, "warning: steal") {
		t.Errorf("steal 2%% warned:\n%s", out)
	}
}

func TestStepsTableWithHost(t *testing.T) {
	a, b := closedRun(), closedRun()
	a.Label, b.Label = "threads 1", "threads 2"
	b.Host = &result.Host{CPU: result.CPUPct{User: 61, System: 30, Iowait: 2, Steal: 4}, RunQueue: 3}
	var buf bytes.Buffer
	if err := report.Steps(&buf, []*result.Run{a, b}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if row := strings.Fields(lineWith(t, out, "threads 2")); strings.Join(row[len(row)-5:], " ") != "61 30 2 4 3" {
		t.Errorf("host columns %q:\n%s", row, out)
	}
	if row := strings.Fields(lineWith(t, out, "threads 1")); row[len(row)-1] != "-" {
		t.Errorf("a step without host figures: %q", row)
	}
}

func TestSummarySteadyState(t *testing.T) {
	r := closedRun()
	r.Load.WarmupS = 60
	r.Warmup.DurationS = 12
	r.Load.SteadyState = &result.SteadyState{WindowS: 10, TolerancePct: 5, Reached: true, AtS: 12, ThroughputDriftPct: 1.234, P99DriftPct: 3.35}
	out := render(t, r)
	if want := "oltp_read_write: 60 s measured after 12 s warm-up (excluded); closed loop, 8 threads; 1 instance"; lineWith(t, out, "oltp_read_write") != want {
		t.Errorf("title line = %q, want %q", lineWith(t, out, "oltp_read_write"), want)
	}
	want := "steady state: reached after 12 s of warm-up (throughput drift 1.2 %, p99 drift 3.4 % over 10 s; tolerance 5 %)"
	if got := lineWith(t, out, "steady state"); got != want {
		t.Errorf("reached:\n got %q\nwant %q", got, want)
	}

	r.Warmup.DurationS = 60
	*r.Load.SteadyState = result.SteadyState{WindowS: 10, TolerancePct: 2.5, ThroughputDriftPct: 8.06, P99DriftPct: 2}
	want = "steady state: not reached in 60 s of warm-up (throughput drift 8.1 %, p99 drift 2.0 % over 10 s; tolerance 2.5 %); measured anyway"
	if got := lineWith(t, render(t, r), "steady state"); got != want {
		t.Errorf("not reached:\n got %q\nwant %q", got, want)
	}

	// Interrupted before a full window: no drifts to show.
	r.Warmup.DurationS = 4.5
	*r.Load.SteadyState = result.SteadyState{WindowS: 10, TolerancePct: 5, ThroughputDriftPct: math.NaN(), P99DriftPct: math.NaN()}
	want = "steady state: not reached in 4.5 s of warm-up (no full 10 s window; tolerance 5 %); measured anyway"
	if got := lineWith(t, render(t, r), "steady state"); got != want {
		t.Errorf("no full window:\n got %q\nwant %q", got, want)
	}

	if out := render(t, closedRun()); strings.Contains(out, "steady state") {
		t.Errorf("steady state line without the detector:\n%s", out)
	}
}

func TestSummaryTickerLag(t *testing.T) {
	r := multiRun()
	out := render(t, r)
	if strings.Contains(out, "fell behind") {
		t.Errorf("a run without lag warns of it:\n%s", out)
	}
	r.TickerLag = &result.TickerLag{Ticks: 40, Late: 3, MaxS: 2.5}
	out = render(t, r)
	if !strings.Contains(out, "WARNING: the load generator fell behind its report ticks: 3 of 40 fired more than an interval late (worst 2.5 s)") {
		t.Errorf("no lag warning:\n%s", out)
	}
}

func TestSummaryOverloadedOpenLoop(t *testing.T) {
	r := openRun() // 90 dropped of 120007: 0.07 %
	if out := render(t, r); strings.Contains(out, "overloaded") {
		t.Errorf("a run that dropped 0.07 %% of its starts is called overloaded:\n%s", out)
	}
	// The intended starts are the offered rate over the window.
	r.Summary.Dropped, r.Summary.Offered = 40000, 2000
	out := render(t, r)
	if !strings.Contains(out, "WARNING: overloaded: 40000 of 120000 intended starts (33.3 %) were dropped, every one of the 64 virtual users per instance being busy: the system did not sustain the offered 2000/s per instance") {
		t.Errorf("no overload warning:\n%s", out)
	}
	// A result from before offered was recorded: the starts that ran and
	// those dropped.
	r.Summary.Offered = 0
	if out := render(t, r); !strings.Contains(out, "WARNING: overloaded: 40000 of 159917 intended starts (25.0 %)") {
		t.Errorf("no overload warning for a result without offered:\n%s", out)
	}
	if out := render(t, closedRun()); strings.Contains(out, "overloaded") {
		t.Errorf("a closed-loop run is called overloaded:\n%s", out)
	}
}

// TestStepTableOpenLoop: steps run at a rate show the offered rate and
// the late and dropped starts beside the throughput; closed-loop steps
// have dashes there, and a table of closed-loop steps alone has no such
// columns.
func TestStepTableOpenLoop(t *testing.T) {
	rows := []report.StepRow{
		{Label: "1x", Throughput: 1000, Open: true, Offered: 1000, Late: 3, AvgMs: 1},
		{Label: "3x", Throughput: 1010, Open: true, Offered: 3000, Late: 29000, Dropped: 1000, AvgMs: 900},
		{Label: "closed", Throughput: 1200, AvgMs: 2},
	}
	var b strings.Builder
	if err := report.StepTable(&b, rows, report.Markdown); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| step | throughput/s | offered/s | late | dropped | avg ms |",
		"| 3x | 1010.00 | 3000.00 | 29000 | 1000 | 900.000 |",
		"| closed | 1200.00 | - | - | - | 2.000 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("step table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := report.StepTable(&b, rows[2:], report.Markdown); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "offered") {
		t.Errorf("closed-loop steps alone have an offered column:\n%s", b.String())
	}
}

// TestSummaryWhereItRan: the summary names the target and its server, and
// the generator's machine; with several instances each one's line names its
// server. A result that records neither (written before they were) shows
// no such line.
func TestSummaryWhereItRan(t *testing.T) {
	r := closedRun()
	r.Instances[0].ServerProduct, r.Instances[0].ServerVersion = "PostgreSQL", "15.20 (Debian 15.20-0+deb12u1)"
	r.Machine = &result.Machine{Hostname: "loadgen", CPUModel: "AMD EPYC 7763 64-Core Processor"}
	out := render(t, r)
	want := "target: postgres://bench@localhost/bench (PostgreSQL 15.20); generator: loadgen (AMD EPYC 7763 64-Core Processor)"
	if got := lineWith(t, out, "target:"); got != want {
		t.Errorf("where line = %q, want %q", got, want)
	}

	m := multiRun()
	m.Instances[0].ServerProduct, m.Instances[0].ServerVersion = "MariaDB", "10.11.19-MariaDB-0+deb12u1"
	m.Instances[1].ServerProduct, m.Instances[1].ServerVersion = "MySQL", "8.4.3"
	m.Machine = &result.Machine{Hostname: "loadgen"}
	out = render(t, m)
	if got := lineWith(t, out, "generator:"); got != "generator: loadgen" {
		t.Errorf("where line = %q", got)
	}
	for _, w := range []string{"#1 mysql://bench@db1/bench (MariaDB 10.11.19): 1000.00", "#2 mysql://bench@db2/bench (MySQL 8.4.3): 803.20"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}

	if out := render(t, closedRun()); strings.Contains(out, "target:") || strings.Contains(out, "generator:") {
		t.Errorf("a where line for a result that records nothing of it:\n%s", out)
	}
}

// TestStepTableFairness: steps of several instances show the slowest and
// fastest instance's throughput and their coefficient of variation, in every
// format; a step of one instance has dashes there, and steps without
// instances have no such columns.
func TestStepTableFairness(t *testing.T) {
	rows := []report.StepRow{
		{Label: "instances 1", Throughput: 600, AvgMs: 1},
		{Label: "instances 32", Throughput: 1557.9, AvgMs: 82, Fairness: &result.Fairness{Min: 45.43, Max: 51.2, CoVPct: 2.66}},
	}
	var b strings.Builder
	if err := report.StepTable(&b, rows, report.Markdown); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| slowest inst/s | fastest inst/s | inst cov% |", "| 45.4 | 51.2 | 2.7 |", "| instances 1 | 600.00 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown step table lacks %q:\n%s", want, b.String())
		}
	}
	if !strings.HasSuffix(lineWith(t, b.String(), "| instances 1 |"), "| - | - | - |") {
		t.Errorf("a step of one instance has fairness cells:\n%s", b.String())
	}
	b.Reset()
	if err := report.StepCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "slowest inst/s,fastest inst/s,inst cov%") || !strings.Contains(b.String(), ",45.43,51.20,2.66") {
		t.Errorf("CSV step table lacks the fairness columns:\n%s", b.String())
	}
	b.Reset()
	if err := report.StepTable(&b, rows[:1], report.Markdown); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "inst/s") {
		t.Errorf("steps without instances have fairness columns:\n%s", b.String())
	}
}

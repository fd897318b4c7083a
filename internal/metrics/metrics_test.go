package metrics

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rightsize/rightsize/internal/result"
)

// sample is one series gathered from a registry.
type sample struct {
	labels map[string]string
	value  float64
}

// gather returns every series of the rightsize_* metric name.
func gather(t *testing.T, reg *prometheus.Registry, name string) []sample {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			s := sample{labels: map[string]string{}}
			for _, l := range m.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			switch {
			case m.GetCounter() != nil:
				s.value = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				s.value = m.GetGauge().GetValue()
			default:
				t.Fatalf("%s is neither a counter nor a gauge", name)
			}
			out = append(out, s)
		}
	}
	return out
}

// find returns the value of the one series of name whose labels include
// want ("k=v" pairs), and whether there is one.
func find(t *testing.T, reg *prometheus.Registry, name string, want ...string) (float64, bool) {
	t.Helper()
	var got []float64
	for _, s := range gather(t, reg, name) {
		ok := true
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if l, has := s.labels[k]; !has || l != v {
				ok = false
			}
		}
		if ok {
			got = append(got, s.value)
		}
	}
	switch len(got) {
	case 0:
		return 0, false
	case 1:
		return got[0], true
	}
	t.Fatalf("%s%v: %d series match", name, want, len(got))
	return 0, false
}

func expect(t *testing.T, reg *prometheus.Registry, want float64, name string, labels ...string) {
	t.Helper()
	got, ok := find(t, reg, name, labels...)
	if !ok {
		t.Errorf("%s%v: no series", name, labels)
	} else if got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

func absent(t *testing.T, reg *prometheus.Registry, name string, labels ...string) {
	t.Helper()
	if got, ok := find(t, reg, name, labels...); ok {
		t.Errorf("%s%v = %v, want no series", name, labels, got)
	}
}

func TestObserveCountsAndGauges(t *testing.T) {
	e := New("oltp", "transaction")
	reg := e.Registry()
	warm := result.Interval{Phase: "warmup", Events: 10, Rate: 10, Reads: 100, Writes: 40, Other: 20,
		Errors: 3, ErrorsByClass: map[string]int64{"deadlock": 2, "connection": 1}, Retries: 4, Reconnects: 1,
		ReconnectFailures: 3, Offered: 50, Late: 7,
		Latency: result.Latency{AvgMs: 2, P50Ms: 1.5, P95Ms: 4, P99Ms: 12.5, P999Ms: 20, MaxMs: 31.25}}
	e.Observe("8 threads", warm, []result.Interval{{Rate: 6}, {Rate: 4}})
	meas := result.Interval{Phase: "measure", Events: 20, Rate: 20, Reads: 200, Writes: 80,
		Errors: 5, ErrorsByClass: map[string]int64{"deadlock": 5}, Retries: 1,
		Latency: result.Latency{AvgMs: 1, P50Ms: 0.5, P95Ms: 2, P99Ms: 3, P999Ms: 4, MaxMs: 5},
		Host:    &result.Host{CPU: result.CPUPct{User: 37.5, System: 12.5, Iowait: 2.5, Steal: 0.5, Idle: 47}, RunQueue: 3}}
	e.Observe("8 threads", meas, []result.Interval{{Rate: 11}, {Rate: 9}})
	e.Observe("8 threads", meas, []result.Interval{{Rate: 12}, {Rate: 8}})

	step := "step=8 threads"
	expect(t, reg, 10, "rightsize_events_total", "workload=oltp", "event=transaction", step, "phase=warmup")
	expect(t, reg, 40, "rightsize_events_total", "workload=oltp", "event=transaction", step, "phase=measure")
	expect(t, reg, 12, "rightsize_errors_total", "workload=oltp", step, "class=deadlock")
	expect(t, reg, 1, "rightsize_errors_total", step, "class=connection")
	expect(t, reg, 6, "rightsize_retries_total", step)
	expect(t, reg, 1, "rightsize_reconnects_total", step)
	expect(t, reg, 3, "rightsize_reconnect_failures_total", step)
	expect(t, reg, 7, "rightsize_late_starts_total", step)
	expect(t, reg, 50, "rightsize_offered_per_second", step)
	expect(t, reg, 500, "rightsize_operations_total", step, "kind=read")
	expect(t, reg, 200, "rightsize_operations_total", step, "kind=write")
	expect(t, reg, 20, "rightsize_operations_total", step, "kind=other")

	// Gauges hold the latest tick; the warm-up's throughput series went
	// when the measured phase began.
	expect(t, reg, 20, "rightsize_throughput_per_second", "workload=oltp", "event=transaction", step, "phase=measure")
	absent(t, reg, "rightsize_throughput_per_second", "phase=warmup")
	for q, want := range map[string]float64{"0.5": 0.0005, "0.95": 0.002, "0.99": 0.003, "0.999": 0.004, "1": 0.005} {
		expect(t, reg, want, "rightsize_interval_latency_seconds", "workload=oltp", step, "quantile="+q)
	}
	if n := len(gather(t, reg, "rightsize_interval_latency_seconds")); n != 5 {
		t.Errorf("%d latency series, want 5", n)
	}
	expect(t, reg, 0.001, "rightsize_interval_latency_mean_seconds", step)
	expect(t, reg, 12, "rightsize_instance_throughput_per_second", step, "target_instance=1")
	expect(t, reg, 8, "rightsize_instance_throughput_per_second", step, "target_instance=2")
	expect(t, reg, 1, "rightsize_step_info", "workload=oltp", step)

	for mode, want := range map[string]float64{"user": 0.375, "system": 0.125, "iowait": 0.025, "steal": 0.005, "idle": 0.47} {
		expect(t, reg, want, "rightsize_host_cpu_ratio", "workload=oltp", "mode="+mode)
	}
	expect(t, reg, 3, "rightsize_host_run_queue", "workload=oltp")
}

func TestObserveStepSwitch(t *testing.T) {
	e := New("tpcc", "transaction")
	reg := e.Registry()
	iv := func(events int64) result.Interval {
		return result.Interval{Phase: "measure", Events: events, Rate: float64(events),
			ErrorsByClass: map[string]int64{"timeout": 1}, Latency: result.Latency{P99Ms: 7}}
	}
	e.Observe("1x", iv(5), []result.Interval{{Rate: 5}})
	e.Observe("1x", iv(6), []result.Interval{{Rate: 6}})
	e.Observe("2x", iv(7), []result.Interval{{Rate: 3}, {Rate: 4}})

	expect(t, reg, 1, "rightsize_step_info", "step=2x")
	absent(t, reg, "rightsize_step_info", "step=1x")
	if n := len(gather(t, reg, "rightsize_step_info")); n != 1 {
		t.Errorf("%d step_info series, want 1", n)
	}
	// The old step's gauges are gone, its counters stay.
	for _, name := range []string{"rightsize_throughput_per_second", "rightsize_interval_latency_seconds",
		"rightsize_interval_latency_mean_seconds", "rightsize_instance_throughput_per_second"} {
		for _, s := range gather(t, reg, name) {
			if s.labels["step"] != "2x" {
				t.Errorf("%s%v left from the previous step", name, s.labels)
			}
		}
	}
	expect(t, reg, 11, "rightsize_events_total", "step=1x")
	expect(t, reg, 7, "rightsize_events_total", "step=2x")
	expect(t, reg, 2, "rightsize_errors_total", "step=1x", "class=timeout")
	expect(t, reg, 1, "rightsize_errors_total", "step=2x", "class=timeout")
	expect(t, reg, 0.007, "rightsize_interval_latency_seconds", "step=2x", "quantile=0.99")
	expect(t, reg, 4, "rightsize_instance_throughput_per_second", "step=2x", "target_instance=2")

	// Back to a step seen before: it is the current one again.
	e.Observe("1x", iv(1), nil)
	expect(t, reg, 1, "rightsize_step_info", "step=1x")
	absent(t, reg, "rightsize_step_info", "step=2x")
	expect(t, reg, 12, "rightsize_events_total", "step=1x")
}

func TestObserveEmptyInterval(t *testing.T) {
	e := New("oltp", "transaction")
	reg := e.Registry()
	// No events, and a negative count that must not panic a counter.
	e.Observe("", result.Interval{Phase: "warmup", Retries: -1}, nil)
	got, ok := find(t, reg, "rightsize_interval_latency_seconds", "quantile=0.99")
	if !ok || !math.IsNaN(got) {
		t.Errorf("p99 of an empty interval = %v (present %v), want NaN", got, ok)
	}
	expect(t, reg, 0, "rightsize_events_total", "phase=warmup")
	expect(t, reg, 0, "rightsize_retries_total")
	// No host sample: no host series.
	for _, name := range []string{"rightsize_host_cpu_ratio", "rightsize_host_run_queue"} {
		if s := gather(t, reg, name); len(s) != 0 {
			t.Errorf("%s without a host sample: %v", name, s)
		}
	}
}

func TestRegistryHasRuntimeCollectors(t *testing.T) {
	mfs, err := New("oltp", "transaction").Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	sort.Strings(names)
	has := func(prefix string) bool {
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				return true
			}
		}
		return false
	}
	if !has("go_goroutines") || !has("process_") {
		t.Errorf("no Go or process collector in %v", names)
	}
}

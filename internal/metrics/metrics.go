package metrics

import (
	"math"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rightsize/rightsize/internal/result"
)

// Exporter holds a run's live metrics in its own registry (never the global
// one, so that tests and several exporters do not collide).
//
// Every rightsize_* metric carries the constant label workload; the step
// label is the step's label as given to Observe ("" for a run without steps,
// "baseline" for the baseline measurement of a rate sweep). Counters keep
// accumulating across steps (use rate() or increase() per step); the gauges
// describe the latest tick of the current step only: when the step changes,
// the previous step's gauge series are deleted.
//
// Counters (cumulative over the run):
//
//	rightsize_events_total{workload,event,step,phase}   successful events (transactions, ios, ...); event names what one is, phase is "warmup" or "measure"
//	rightsize_errors_total{workload,step,class}         failed events by error class (connection, deadlock, timeout, ...)
//	rightsize_retries_total{workload,step}              failed attempts of events that were re-run
//	rightsize_reconnects_total{workload,step}           connections re-opened after a connection error
//	rightsize_operations_total{workload,step,kind}      sub-operations (statements) by kind: read, write, other
//
// Gauges (latest report tick):
//
//	rightsize_throughput_per_second{workload,event,step,phase}   successful events per second, all instances
//	rightsize_interval_latency_seconds{workload,step,quantile}   response time quantiles: 0.5, 0.95, 0.99, 0.999, and 1 (the maximum); NaN for a tick with no events
//	rightsize_interval_latency_mean_seconds{workload,step}       mean response time; NaN for a tick with no events
//	rightsize_instance_throughput_per_second{workload,step,target_instance}   successful events per second of one instance, numbered from 1 as the CLI does (not "instance": Prometheus sets that label on every scraped series)
//	rightsize_step_info{workload,step}                           1 for the step running now
//	rightsize_host_cpu_ratio{workload,mode}                      load generator's host CPU time by mode (user, system, iowait, steal, idle), 0..1 of all CPUs
//	rightsize_host_run_queue{workload}                           runnable processes on that host at the end of the tick
//
// Response time is measured from the intended start in open-loop runs
// (queueing included) and from the actual start in closed-loop runs. The
// host metrics appear only when host sampling is available.
//
// The registry also holds the Go runtime (go_*) and process (process_*)
// collectors, and the handler served by Serve adds promhttp_*.
//
// Observe and the HTTP handler may run concurrently; Observe calls must not
// overlap one another (the runner calls it from its single ticker).
type Exporter struct {
	reg *prometheus.Registry
	// stopped is closed when the server Serve started has shut down.
	stopped chan struct{}

	events      *prometheus.CounterVec
	errors      *prometheus.CounterVec
	retries     *prometheus.CounterVec
	reconnects  *prometheus.CounterVec
	operations  *prometheus.CounterVec
	reconnFails *prometheus.CounterVec
	late        *prometheus.CounterVec
	offered     *prometheus.GaugeVec
	throughput  *prometheus.GaugeVec
	latency     *prometheus.GaugeVec
	latencyMean *prometheus.GaugeVec
	instance    *prometheus.GaugeVec
	stepInfo    *prometheus.GaugeVec
	hostCPU     *prometheus.GaugeVec
	runQueue    *prometheus.GaugeVec // no variable labels: absent until the first host sample

	mu        sync.Mutex
	started   bool // Observe has been called
	lastStep  string
	lastPhase string
}

// quantiles are the interval latency quantiles, as label values, and how to
// read each from a result.Latency (milliseconds).
var quantiles = []struct {
	label string
	ms    func(result.Latency) float64
}{
	{"0.5", func(l result.Latency) float64 { return l.P50Ms }},
	{"0.95", func(l result.Latency) float64 { return l.P95Ms }},
	{"0.99", func(l result.Latency) float64 { return l.P99Ms }},
	{"0.999", func(l result.Latency) float64 { return l.P999Ms }},
	{"1", func(l result.Latency) float64 { return l.MaxMs }},
}

// New returns an exporter for a run of workload, whose events are called
// event ("transaction", "io"). It registers the Go and process collectors
// beside its own metrics; nothing is served until Serve.
func New(workload, event string) *Exporter {
	w := prometheus.Labels{"workload": workload}
	we := prometheus.Labels{"workload": workload, "event": event}
	counter := func(name, help string, cl prometheus.Labels, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: cl}, labels)
	}
	gauge := func(name, help string, cl prometheus.Labels, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: cl}, labels)
	}
	e := &Exporter{
		reg: prometheus.NewRegistry(),
		events: counter("rightsize_events_total",
			"Successful events (what one is: the event label), by step and phase (warmup, measure).", we, "step", "phase"),
		errors: counter("rightsize_errors_total",
			"Failed events by error class.", w, "step", "class"),
		retries: counter("rightsize_retries_total",
			"Failed attempts of events that were re-run (their class is in --retry).", w, "step"),
		reconnects: counter("rightsize_reconnects_total",
			"Database connections re-opened after a connection error.", w, "step"),
		reconnFails: counter("rightsize_reconnect_failures_total",
			"Reconnect attempts that failed.", w, "step"),
		late: counter("rightsize_late_starts_total",
			"Open loop: starts that began more than --late-threshold after their intended time.", w, "step"),
		offered: gauge("rightsize_offered_per_second",
			"Open loop: the schedule's intended starts per second, all instances (beside rightsize_throughput_per_second, what was done).", w, "step"),
		operations: counter("rightsize_operations_total",
			"Sub-operations (statements, I/O requests) by kind: read, write, other.", w, "step", "kind"),
		throughput: gauge("rightsize_throughput_per_second",
			"Successful events per second in the latest report interval, all instances.", we, "step", "phase"),
		latency: gauge("rightsize_interval_latency_seconds",
			"Response time quantile of the latest report interval (quantile 1 is the maximum), all instances; NaN when no event completed.", w, "step", "quantile"),
		latencyMean: gauge("rightsize_interval_latency_mean_seconds",
			"Mean response time of the latest report interval, all instances; NaN when no event completed.", w, "step"),
		instance: gauge("rightsize_instance_throughput_per_second",
			"Successful events per second of one target instance (numbered from 1) in the latest report interval.", w, "step", "target_instance"),
		stepInfo: gauge("rightsize_step_info",
			"1 for the step running now.", w, "step"),
		hostCPU: gauge("rightsize_host_cpu_ratio",
			"The load generator's host CPU time in the latest report interval by mode (user, system, iowait, steal, idle), as a ratio of all its CPUs.", w, "mode"),
		runQueue: gauge("rightsize_host_run_queue",
			"Runnable processes on the load generator's host at the end of the latest report interval.", w),
	}
	e.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		e.events, e.errors, e.retries, e.reconnects, e.reconnFails, e.late, e.offered, e.operations,
		e.throughput, e.latency, e.latencyMean, e.instance, e.stepInfo, e.hostCPU, e.runQueue,
	)
	return e
}

// Registry is the exporter's registry, for a caller that serves it itself
// or gathers it in a test.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Observe records one report tick of step: agg is the interval summed over
// the instances, per the same interval of each instance in order. Counts
// that are not positive are skipped (a Prometheus counter only grows).
func (e *Exporter) Observe(step string, agg result.Interval, per []result.Interval) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.started || step != e.lastStep {
		if e.started {
			// The previous step's gauges no longer describe anything.
			old := prometheus.Labels{"step": e.lastStep}
			for _, g := range []*prometheus.GaugeVec{e.throughput, e.offered, e.latency, e.latencyMean, e.instance, e.stepInfo} {
				g.DeletePartialMatch(old)
			}
		}
		e.started, e.lastStep, e.lastPhase = true, step, agg.Phase
		e.stepInfo.WithLabelValues(step).Set(1)
	}
	if agg.Phase != e.lastPhase {
		e.throughput.DeleteLabelValues(step, e.lastPhase)
		e.lastPhase = agg.Phase
	}

	add := func(c prometheus.Counter, n int64) {
		if n > 0 {
			c.Add(float64(n))
		}
	}
	add(e.events.WithLabelValues(step, agg.Phase), agg.Events)
	for class, n := range agg.ErrorsByClass {
		add(e.errors.WithLabelValues(step, class), n)
	}
	add(e.retries.WithLabelValues(step), agg.Retries)
	add(e.reconnects.WithLabelValues(step), agg.Reconnects)
	add(e.reconnFails.WithLabelValues(step), agg.ReconnectFailures)
	add(e.late.WithLabelValues(step), agg.Late)
	if agg.Offered > 0 {
		e.offered.WithLabelValues(step).Set(agg.Offered)
	}
	add(e.operations.WithLabelValues(step, "read"), agg.Reads)
	add(e.operations.WithLabelValues(step, "write"), agg.Writes)
	add(e.operations.WithLabelValues(step, "other"), agg.Other)

	e.throughput.WithLabelValues(step, agg.Phase).Set(agg.Rate)
	for _, q := range quantiles {
		e.latency.WithLabelValues(step, q.label).Set(seconds(agg.Events, q.ms(agg.Latency)))
	}
	e.latencyMean.WithLabelValues(step).Set(seconds(agg.Events, agg.Latency.AvgMs))
	for i, iv := range per {
		e.instance.WithLabelValues(step, strconv.Itoa(i+1)).Set(iv.Rate)
	}

	if h := agg.Host; h != nil {
		for _, m := range []struct {
			mode string
			pct  float64
		}{{"user", h.CPU.User}, {"system", h.CPU.System}, {"iowait", h.CPU.Iowait}, {"steal", h.CPU.Steal}, {"idle", h.CPU.Idle}} {
			e.hostCPU.WithLabelValues(m.mode).Set(m.pct / 100)
		}
		e.runQueue.WithLabelValues().Set(float64(h.RunQueue))
	}
}

// seconds converts a latency in milliseconds to seconds, NaN when no event
// completed (a quantile of nothing is undefined, as in a Prometheus summary).
func seconds(events int64, ms float64) float64 {
	if events <= 0 {
		return math.NaN()
	}
	return ms / 1000
}

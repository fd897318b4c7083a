package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/result"
)

// ProgressLine writes one sysbench-style line for an interval tick:
//
//	[ 10s ] thds: 4 tps: 1803.20 qps: 36064.00 (r/w/o: 25244.80/7212.80/3606.40) lat ms p95: 3.02 p99: 4.11 err/s: 0.00 reconn/s: 0.00
//
// Warm-up intervals are marked; errors per second are split by class when
// there are any; an open-loop interval shows the offered rate beside the
// rate done and its late starts per second; failed reconnect attempts show
// beside the reconnects. unit is the event's short name for the rate
// ("tps", "iops").
func ProgressLine(w io.Writer, iv result.Interval, threads int, unit string) error {
	secs := iv.DurationS
	per := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	phase := ""
	if iv.Phase == "warmup" {
		phase = " warmup"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[ %ss%s ] thds: %d %s: %.2f", trimFloat(iv.EndS), phase, threads, unit, iv.Rate)
	if iv.Offered > 0 {
		fmt.Fprintf(&b, " offered: %.2f late/s: %.2f", iv.Offered, per(iv.Late))
	}
	fmt.Fprintf(&b, " qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat ms p95: %.2f p99: %.2f err/s: %.2f",
		per(iv.Reads+iv.Writes+iv.Other), per(iv.Reads), per(iv.Writes), per(iv.Other),
		iv.Latency.P95Ms, iv.Latency.P99Ms, per(iv.Errors))
	if len(iv.ErrorsByClass) > 0 {
		parts := make([]string, 0, len(iv.ErrorsByClass))
		for _, c := range errclass.All {
			if n := iv.ErrorsByClass[c.String()]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %.2f", c, per(n)))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
		}
	}
	if iv.Retries > 0 {
		fmt.Fprintf(&b, " retry/s: %.2f", per(iv.Retries))
	}
	fmt.Fprintf(&b, " reconn/s: %.2f", per(iv.Reconnects))
	if iv.ReconnectFailures > 0 {
		fmt.Fprintf(&b, " (failed %.2f)", per(iv.ReconnectFailures))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// whereLine says what and where a run ran: the configuration under test,
// its target and server (one instance; the per-instance lines name
// several), and the generator's machine. "" for a
// result that records neither (one written before they were).
func whereLine(r *result.Run) string {
	var parts []string
	if r.Config != "" {
		parts = append(parts, "config: "+r.Config)
	}
	if len(r.Instances) == 1 && (r.Instances[0].ServerProduct != "" || r.Machine != nil) {
		in := r.Instances[0]
		t := "target: " + in.Target
		if sv := in.Server(); sv != "" {
			t += " (" + sv + ")"
		}
		parts = append(parts, t)
	}
	if g := machineText(r.Machine); g != "" {
		parts = append(parts, "generator: "+g)
	}
	return strings.Join(parts, "; ")
}

// machineText is the generator's machine: "host (CPU model)"; "" when
// nothing of it is known.
func machineText(m *result.Machine) string {
	if m == nil {
		return ""
	}
	if m.CPUModel == "" {
		return m.Hostname
	}
	return strings.TrimSpace(m.Hostname + " (" + m.CPUModel + ")")
}

// Summary writes the end-of-run report: the headline, a table of operations
// and, with several instances, one headline per instance.
func Summary(w io.Writer, r *result.Run) error {
	ew := &errWriter{w: w}
	s := r.Summary
	mode := "closed loop, " + count(r.Load.Threads, "thread")
	if r.Load.Mode == "open" {
		mode = fmt.Sprintf("open loop at %g/s per instance (%s arrivals), up to %d in flight", r.Load.Rate, r.Load.Arrival, r.Load.Threads)
	}
	title := r.Workload
	if r.Label != "" {
		title += " [" + r.Label + "]"
	}
	ew.printf("\n%s: %s measured", title, seconds(s.DurationS))
	if r.Warmup != nil {
		ew.printf(" after %s warm-up (excluded)", seconds(r.Warmup.DurationS))
	}
	ew.printf("; %s; %s\n", mode, count(len(r.Instances), "instance"))
	if r.Partial {
		ew.printf("PARTIAL RESULT: %s\n", r.PartialReason)
	}
	if r.TooManyErrors() {
		ew.printf("FAILED: %s\n", r.ErrorsFailed())
	}
	if line := whereLine(r); line != "" {
		ew.printf("%s\n", line)
	}
	if r.Load.SteadyState != nil {
		steadyLine(ew, r)
	}
	headline(ew, "", r.Event, s)
	ew.printf("\n")
	opsTable(ew, r.Ops)
	typesLines(ew, r.Summary)
	figures(ew, r)
	instanceLines(ew, r)
	if r.Host != nil {
		hostLine(ew, r.Host)
	}
	serverLines(ew, r)
	clientLines(ew, r)
	summaryWarnings(ew, r)
	return ew.err
}

// instanceLines write, for a run of several instances, their fairness and
// one headline each, then the instances' notes: a note shared by several
// instances (the same dialect's) is written once, naming them all.
func instanceLines(ew *errWriter, r *result.Run) {
	if len(r.Instances) > 1 {
		ew.printf("\nper instance:\n")
		if f := r.Fairness; f != nil {
			ew.printf("  fairness: lowest %.2f, highest %.2f %s/s, coefficient of variation %.1f%%\n", f.Min, f.Max, r.Event, f.CoVPct)
		}
		for _, in := range r.Instances {
			who := in.Target
			if in.ServerProduct != "" {
				who += " (" + in.Server() + ")"
			}
			headline(ew, fmt.Sprintf("  #%d %s: ", in.Index+1, who), r.Event, in.Summary)
			if f := in.Figures; f != nil && len(f.Headline) > 0 {
				ew.printf("    %s\n", figureLine(f.Headline))
			}
		}
	}
	var order []string
	who, dialect := map[string][]string{}, map[string]string{}
	for _, in := range r.Instances {
		for _, n := range in.Notes {
			if _, ok := who[n]; !ok {
				order = append(order, n)
			}
			if _, ok := dialect[n]; !ok {
				dialect[n] = in.Dialect
			}
			who[n] = append(who[n], fmt.Sprintf("#%d", in.Index+1))
		}
	}
	for _, n := range order {
		ew.printf("note (%s %s): %s\n", strings.Join(who[n], ","), dialect[n], n)
	}
}

// clientLines write the load generator's own cost, the shard this result
// is and the generators a merged result came from.
func clientLines(ew *errWriter, r *result.Run) {
	if r.Client != nil {
		if r.Summary.Count > 0 {
			ew.printf("client CPU: %.1f µs per %s (user %.2f s, sys %.2f s", r.Client.CPUPerEventUs, r.Event, r.Client.CPUUserS, r.Client.CPUSysS)
		} else { // no event succeeded: there is no cost per event
			ew.printf("client CPU: user %.2f s, sys %.2f s (no %s succeeded", r.Client.CPUUserS, r.Client.CPUSysS, r.Event)
		}
		if p := r.Client.HostSharePct; p > 0 {
			ew.printf("; %.0f%% of the host's CPU", p)
		}
		ew.printf(")")
		if a := r.Client.AllocsPerEvent; a > 0 {
			ew.printf("; %.1f heap allocations per %s, %d garbage collections", a, r.Event, r.Client.GCCycles)
		}
		ew.printf("\n")
	}
	if s := r.Shard; s != nil {
		ew.printf("shard %d/%d of run %s: instances %d..%d of %d, virtual users %d..%d of %d on each; start barrier: %s, waited %.1f s, started %.3f s late\n",
			s.Index, s.Count, s.RunID, s.FirstInstance+1, s.FirstInstance+s.Instances, s.TotalInstances, s.FirstVU+1, s.FirstVU+s.VUs, s.TotalVUs,
			s.Barrier, s.WaitedS, s.LateS)
	}
	for _, g := range r.Generators {
		line := fmt.Sprintf("generator %d/%d (%s): %d %ss, %.2f/s", g.Shard.Index, g.Shard.Count, g.ResultID, g.Count, r.Event, g.Throughput)
		if g.Client != nil {
			line += fmt.Sprintf("; client CPU %.1f µs per %s on %s", g.Client.CPUPerEventUs, r.Event, g.Client.Hostname)
		}
		if g.Host != nil {
			line += fmt.Sprintf("; host CPU busy %.1f %%", g.Host.CPU.Busy())
		}
		if g.Partial {
			line += "; PARTIAL: " + g.Reason
		}
		ew.printf("%s\n", line)
	}
}

// summaryWarnings write what makes the run's figures suspect: latencies
// past the histograms' range, an overloaded open loop (analysis.OverloadOf)
// and a load generator that fell behind its ticks.
func summaryWarnings(ew *errWriter, r *result.Run) {
	if n := r.Summary.Clamped; n > 0 {
		ew.printf("WARNING: %d %s(s) took longer than 1 h, the histograms' range, and were recorded as 1 h: the latency figures understate them.\n", n, r.Event)
	}
	if o := analysis.OverloadOf(r); o.Over {
		ew.printf("WARNING: overloaded: %d of %d intended starts (%.1f %%) were dropped, every one of the %d virtual users per instance being busy: the system did not sustain the offered %g/s per instance; the throughput is what it did sustain. More --threads queue more of them (and show the queueing in the response time); a lower --rate finds the rate it sustains.\n",
			o.Dropped, o.Intended, o.Pct, r.Load.Threads, r.Load.Rate)
	}
	if l := r.TickerLag; l != nil {
		ew.printf("WARNING: the load generator fell behind its report ticks: %d of %d fired more than an interval late (worst %.1f s); the per-interval series and host figures are smeared over longer spans than they say, the totals are exact. The client is starved of CPU: give it its own cores or fewer virtual users per generator.\n",
			l.Late, l.Ticks, l.MaxS)
	}
}

// steadyLine says whether the warm-up reached steady state, and the drifts
// that decided it:
//
//	steady state: reached after 12 s of warm-up (throughput drift 1.2 %, p99 drift 3.4 % over 10 s; tolerance 5 %)
//	steady state: not reached in 60 s of warm-up (throughput drift 8.1 %, p99 drift 2 % over 10 s; tolerance 5 %); measured anyway
func steadyLine(ew *errWriter, r *result.Run) {
	ss := r.Load.SteadyState
	drifts := fmt.Sprintf("throughput drift %s, p99 drift %s over %s", pct(ss.ThroughputDriftPct), pct(ss.P99DriftPct), seconds(ss.WindowS))
	if math.IsNaN(ss.ThroughputDriftPct) && math.IsNaN(ss.P99DriftPct) {
		drifts = "no full " + seconds(ss.WindowS) + " window"
	}
	drifts += fmt.Sprintf("; tolerance %g %%", ss.TolerancePct)
	if ss.Reached {
		ew.printf("steady state: reached after %s of warm-up (%s)\n", seconds(ss.AtS), drifts)
		return
	}
	warm := r.Load.WarmupS
	if r.Warmup != nil {
		warm = r.Warmup.DurationS // shorter when interrupted
	}
	ew.printf("steady state: not reached in %s of warm-up (%s); measured anyway\n", seconds(warm), drifts)
}

// hostLine writes the load generator host's mean figures over the window.
func hostLine(ew *errWriter, h *result.Host) {
	c := h.CPU
	ew.printf("host (%d CPUs, mean of the measured window): CPU user %.1f%% sys %.1f%% iowait %.1f%% steal %.1f%% idle %.1f%%; run queue %d; %.0f context switches/s; memory %.0f%% used",
		h.CPUs, c.User, c.System, c.Iowait, c.Steal, c.Idle, h.RunQueue, h.ContextSwitchesPerS, h.MemUsedPct)
	for _, d := range h.Disks {
		ew.printf("; %s %.0f r/s %.0f w/s %.0f%% util", d.Name, d.ReadIOPS, d.WriteIOPS, d.UtilPct)
	}
	if p := h.Pressure; p != nil {
		ew.printf("; pressure: CPU some %.1f%%, I/O some %.1f%% full %.1f%%", p.CPUSomePct, p.IOSomePct, p.IOFullPct)
	}
	for _, g := range h.Cgroups {
		if g.LimitCPUs > 0 || g.ThrottledPeriods > 0 {
			ew.printf("; %s", cgroupFigures(g))
		}
	}
	ew.printf("\n")
	if analysis.Stolen(c) {
		ew.printf("warning: steal %.0f%%: the hypervisor ran other guests on this VM's CPUs for that share of the time, so the guest's CPU figures understate the load on the host (the VM waited for a physical CPU, as VMware's %%Ready shows)\n", c.Steal)
	}
	for _, g := range h.Cgroups {
		if analysis.Throttled(g) {
			ew.printf("warning: %s: %s\n", cgroupFigures(g), throttledMeans(g))
		}
	}
}

func headline(ew *errWriter, prefix, event string, s result.Summary) {
	ew.printf("%s%.2f %s/s (%d %ss), latency ms avg %.2f p95 %.2f p99 %.2f max %.2f",
		prefix, s.Throughput, event, s.Count, event, s.Latency.AvgMs, s.Latency.P95Ms, s.Latency.P99Ms, s.Latency.MaxMs)
	if s.QPS > 0 {
		ew.printf("; qps %.2f (r/w/o %d/%d/%d)", s.QPS, s.Reads, s.Writes, s.Other)
	}
	ew.printf("\n")
	if s.ServiceTime != nil {
		ew.printf("%s  ", prefix)
		if s.Offered > 0 {
			ew.printf("offered %.2f %s/s; ", s.Offered, event)
		}
		ew.printf("response time counts from the intended start; service time ms avg %.2f p95 %.2f p99 %.2f; late starts %d, dropped %d",
			s.ServiceTime.AvgMs, s.ServiceTime.P95Ms, s.ServiceTime.P99Ms, s.Late, s.Dropped)
		if l := s.StartLag; l != nil {
			ew.printf("; idle virtual users' start lag ms p99 %.3f max %.3f", l.P99Ms, l.MaxMs)
		}
		ew.printf("\n")
	}
	if s.Errors > 0 || s.Reconnects > 0 || s.ReconnectFailures > 0 {
		ew.printf("%s  errors %d (%s), reconnects %d", prefix, s.Errors, classes(s.ErrorsByClass), s.Reconnects)
		if s.ReconnectFailures > 0 {
			ew.printf(", failed reconnect attempts %d (%s)", s.ReconnectFailures, classes(s.ReconnectFailuresByClass))
		}
		ew.printf("\n")
		messageLines(ew, prefix, s.ErrorMessages)
		messageLines(ew, prefix, s.ReconnectFailureMessages)
	}
	if s.Retries > 0 {
		ew.printf("%s  retried after %s (%s); each event's latency spans its attempts\n", prefix, count(int(s.Retries), "error"), classes(s.RetriesByClass))
		messageLines(ew, prefix, s.RetryMessages)
	}
	if s.Censored > 0 && s.CensoredMaxMs >= s.Latency.P99Ms {
		// Shown when they reach the tail figures (every closed-loop
		// virtual user has one in flight at the end).
		ew.printf("%s  in flight at the window's end: %s, in the latency figures with their time so far (censored; the longest %.2f ms), not in the count\n", prefix, count(int(s.Censored), event), s.CensoredMaxMs)
	}
	if s.GaveUp > 0 {
		ew.printf("%s  %d %ss gave up after their last retry (--max-retries) and count among the errors\n", prefix, s.GaveUp, event)
	}
	if s.Cancelled > 0 {
		ew.printf("%s  cancelled %s still in flight when the run stopped (neither successes nor errors)\n", prefix, count(int(s.Cancelled), event))
	}
}

// messageLines writes the kept error messages, one a line, under the
// counts they belong to:
//
//	other ×154204: ERROR: division by zero (SQLSTATE 22012)
func messageLines(ew *errWriter, prefix string, ms []result.ErrorMessage) {
	for _, m := range ms {
		ew.printf("%s    %s ×%d: %s\n", prefix, m.Class, m.Count, m.OneLine())
	}
}

func classes(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func opsTable(ew *errWriter, ops []result.Op) {
	tw := tabwriter.NewWriter(ew, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "operation\tkind\tcount\trate/s\tavg ms\tp50 ms\tp95 ms\tp99 ms\tp99.9 ms\tmax ms\terrors\t\n")
	for _, op := range ops {
		l := op.Latency
		errs := fmt.Sprint(op.Errors)
		if c := classes(op.ErrorsByClass); c != "" {
			errs += " (" + c + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t\n",
			op.Name, op.Kind, op.Count, op.Rate, l.AvgMs, l.P50Ms, l.P95Ms, l.P99Ms, l.P999Ms, l.MaxMs, errs)
	}
	if err := tw.Flush(); err != nil && ew.err == nil {
		ew.err = err
	}
}

// errWriter keeps the first write error so renderers can write freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// errorsTable lists a run's kept error messages: the events' errors, the
// failed attempts that were retried and the failed reconnects, each with
// its class and count; false when there are none.
func errorsTable(r *result.Run) (table, bool) {
	s := r.Summary
	t := table{title: "the first messages of each class of error, with their counts", head: []string{"of", "class", "count", "message"}, textLast: true}
	for _, g := range []struct {
		of string
		ms []result.ErrorMessage
	}{{r.Event + "s failed", s.ErrorMessages}, {"attempts retried", s.RetryMessages}, {"reconnects failed", s.ReconnectFailureMessages}} {
		for _, m := range g.ms {
			t.rows = append(t.rows, []string{g.of, m.Class, fmt.Sprint(m.Count), m.OneLine()})
		}
	}
	return t, len(t.rows) > 0
}

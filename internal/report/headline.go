package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
)

// Headline is the answer a report opens with, before any table or chart:
// for a sweep, its knee and the method that found it, the highest
// throughput within the SLO (or at all, without one) and the bottleneck at
// the knee; for a single run, its throughput and response time; and the
// planned VM when a plan is present. Each line is a sentence.
func Headline(d Doc) []string {
	var out []string
	switch {
	case d.Sweep != nil:
		out = sweepHeadline(d.Sweep)
	case len(d.Runs) == 1:
		if r := d.Runs[0]; r.TooManyErrors() {
			out = append(out, "FAILED: "+r.ErrorsFailed()+".")
		}
		out = append(out, runHeadline(d.Runs[0]))
		if l := figuresHeadline(d.Runs[0]); l != "" {
			out = append(out, l)
		}
	}
	if d.Plan != nil {
		out = append(out, planHeadline(d.Plan)...)
	}
	return out
}

// sweepHeadline: the knee, the best throughput within the SLO, and the
// bottleneck at the knee.
func sweepHeadline(sw *analysis.Result) []string {
	if a := sw.Search; a != nil {
		return append([]string{upper(SearchLine(a)) + "."}, sweepFindings(sw)...)
	}
	return sweepFindings(sw)
}

// sweepFindings: the knee, the best throughput within the SLO, and the
// bottleneck at the knee.
func sweepFindings(sw *analysis.Result) []string {
	if sw.OwnSteps {
		ps := sw.Points()
		for i := range ps {
			if sw.StalledAt(i) {
				ps[i].Throughput = math.Inf(-1) // its figure is the generator's
			}
		}
		best, at := analysis.MaxThroughput(ps)
		if at < 0 || math.IsInf(best, -1) {
			return generatorHeadline(sw)
		}
		return append([]string{fmt.Sprintf("Most throughput: %s/s at %s (the steps vary the work, not the load: no knee).", Num(best), sw.Steps[at].Label)},
			generatorHeadline(sw)...)
	}
	n := sw.Usable()
	ps := sw.Points()[:n]
	d := diagnosisOf(sw)
	var out []string
	if k, ok := analysis.PrimaryKnee(sw); sw.PastLimit != "" {
		out = append(out, "No knee: "+sw.PastLimit+".")
	} else if ok {
		out = append(out, fmt.Sprintf("Knee: %s (%s method): %s/s, p99 %s.", sw.Steps[k.Index].Label, k.Method, Num(ps[k.Index].Throughput), Ms(ps[k.Index].P99Ms)))
		if l := slowestAt(sw.Steps, k.Index, n); l != "" {
			out = append(out, l)
		}
		switch f := d.Limit; {
		case f.Bottleneck == nil:
		case f.Where == analysis.PastKnee:
			out = append(out, fmt.Sprintf("Bottleneck past the knee (at %s, where it fell behind): %s.", sw.Steps[f.Step].Label, Bottleneck(f.Bottleneck)))
		default:
			out = append(out, "Bottleneck at the knee: "+Bottleneck(f.Bottleneck)+".")
		}
		if v := d.Server; v != nil {
			if s := ServerSentence(v, sw.Steps[v.Step].Label); s != "" {
				out = append(out, s)
			}
		}
	} else if n > 0 {
		if peak, ok := peakedBefore(sw); ok {
			out = append(out, fmt.Sprintf("No knee found up to %s, but throughput peaked at %s and did not grow after it: the knee is at or before it; sweep below it, or in finer steps.", sw.Steps[n-1].Label, peak))
		} else {
			out = append(out, fmt.Sprintf("No knee up to %s: throughput still scales there; sweep further.", sw.Steps[n-1].Label))
		}
	}
	if b := bestWithin(sw, n); b != "" {
		out = append(out, b)
	}
	return append(out, generatorHeadline(sw)...)
}

// slowestAt is the sentence of the slowest of the frequently used
// transaction types at the knee's step (steps[at]), and its p95 at the
// step after it among the first n: the first study's measure. "" when the
// step has fewer than two types.
func slowestAt(steps []result.SweepStep, at, n int) string {
	get := func(s result.SweepStep, name string) (result.Type, bool) {
		for _, t := range s.Types {
			if t.Name == name {
				return t, true
			}
		}
		return result.Type{}, false
	}
	st := steps[at]
	t, ok := get(st, st.SlowestFrequent)
	if len(st.Types) < 2 || !ok {
		return ""
	}
	line := fmt.Sprintf("Slowest of the frequently used transactions there: %s, p95 %s (%.0f%% of the mix)", t.Name, Ms(t.P95Ms), t.SharePct)
	if at+1 < n {
		if nx, ok := get(steps[at+1], t.Name); ok {
			line += fmt.Sprintf("; at %s, p95 %s", steps[at+1].Label, Ms(nx.P95Ms))
		}
	}
	return line + "."
}

// generatorHeadline says where the load generator limited the sweep and in
// which steps it stalled.
func generatorHeadline(sw *analysis.Result) []string {
	var out []string
	if len(sw.Limited) > 0 {
		s := fmt.Sprintf("The load generator limited %s and after", sw.Limited[0].Label)
		if !sw.OwnSteps {
			s += ": no knee is claimed there"
		}
		out = append(out, s+".")
	}
	if len(sw.Stalled) > 0 {
		var at []string
		for _, l := range sw.Stalled {
			at = append(at, l.Label)
		}
		s := "The load generator stalled at " + strings.Join(at, ", ") + ": its figures there are not the system's"
		if !sw.OwnSteps {
			s += ", and the knee is sought without it"
		}
		out = append(out, s+".")
	}
	return out
}

// peakedBefore is the label of the step where a sweep's throughput
// peaked, when that is before its last usable step: there was no knee
// for the methods to find (too few steps, no clear bend), yet throughput
// stopped growing. false when it peaked at the last usable step.
func peakedBefore(sw *analysis.Result) (string, bool) {
	n := sw.Usable()
	if _, at := analysis.MaxThroughput(sw.Points()[:n]); at >= 0 && at < n-1 {
		return sw.Steps[at].Label, true
	}
	return "", false
}

// bestWithin is the sentence of the most throughput among the first n
// steps whose p99 is within the SLO (all of them without an SLO).
func bestWithin(sw *analysis.Result, n int) string {
	at := -1
	for i, st := range sw.Steps[:n] {
		if !sw.StalledAt(i) && (sw.SLOMs <= 0 || st.P99Ms <= sw.SLOMs) && (at < 0 || st.Throughput > sw.Steps[at].Throughput) {
			at = i
		}
	}
	switch {
	case at < 0 && sw.SLOMs > 0:
		return fmt.Sprintf("No step kept p99 within the SLO of %s.", Ms(sw.SLOMs))
	case at < 0:
		return ""
	case sw.SLOMs > 0:
		return fmt.Sprintf("Most throughput within the SLO (p99 ≤ %s): %s/s at %s (p99 %s).", Ms(sw.SLOMs), Num(sw.Steps[at].Throughput), sw.Steps[at].Label, Ms(sw.Steps[at].P99Ms))
	}
	return fmt.Sprintf("Most throughput: %s/s at %s (p99 %s).", Num(sw.Steps[at].Throughput), sw.Steps[at].Label, Ms(sw.Steps[at].P99Ms))
}

// runHeadline is a run's throughput and response time in one sentence.
func runHeadline(r *result.Run) string {
	s := r.Summary
	unit := r.Event
	if unit == "" {
		unit = "event"
	}
	line := fmt.Sprintf("%s/s (%ss), response time avg %s, p99 %s", Num(s.Throughput), unit, Ms(s.Latency.AvgMs), Ms(s.Latency.P99Ms))
	if s.Throughput == 0 {
		// Nothing completed: the latency figures are only the censored
		// samples' (events in flight at the end).
		line = fmt.Sprintf("0/s (%ss): none completed in the window", unit)
	}
	if r.Config != "" {
		line = r.Config + ": " + line
	}
	if s.Offered > 0 {
		line += fmt.Sprintf(", of %s/s offered", Num(s.Offered))
	}
	if r.Partial {
		line += " (partial: " + r.PartialReason + ")"
	}
	return line + "."
}

// figuresHeadline is a run's own figures in a sentence, with its limit
// checks ("TPC-C, 10 warehouse(s), ...: tpmC 1210, NOPM 1198, ...; limit
// checks: 9 of 9 met."); "" for a run without, or whose figures are set
// side by side in a table (fileio's).
func figuresHeadline(r *result.Run) string {
	f := r.Figures
	if f == nil || f.Column != "" || len(f.Headline) == 0 {
		return ""
	}
	line := figureLine(f.Headline)
	if f.Title != "" {
		line = f.Title + ": " + line
	}
	if len(f.Checks) > 0 {
		line += "; " + checksLine(f.Checks)
	}
	return line + "."
}

// planHeadline is each planned VM with its layout and worst verdict; a VM
// that does not fit the host has no layout, and none is given (the nodes
// and sockets it would need do not add up to its vCPUs).
func planHeadline(p *sizing.Report) []string {
	var out []string
	vm := func(v sizing.VMCheck, what string) string {
		l := v.Layout
		layout := "no layout: it does not fit this host"
		if l.Fits {
			vnuma := "one vNUMA node"
			if l.VNUMANodes > 1 {
				vnuma = fmt.Sprintf("%d vNUMA nodes of %s", l.VNUMANodes, count(l.VCPUPerNode, "vCPU"))
			}
			layout = fmt.Sprintf("%s, %s × %s", vnuma, count(l.Sockets, "socket"), count(l.CoresPerSocket, "core"))
		}
		name := ""
		if v.VM.Name != "" {
			name = v.VM.Name + " "
		}
		return fmt.Sprintf("%s: %s%s, %s: %s.", what, name, count(v.VM.VCPU, "vCPU"), layout, strings.ToUpper(v.Worst().String()))
	}
	if s := p.Sizing; s != nil && s.NotCPU != nil {
		out = append(out, "Planned VM: none: FAIL. "+s.Limit) // Limit: why no vCPU count is the answer
	} else if s != nil {
		out = append(out, strings.TrimSpace(vm(s.Plan, "Planned VM")+" "+s.Limit)) // Limit: why it fails here
	}
	for _, v := range p.VMs {
		out = append(out, vm(v, "VM"))
	}
	return out
}

// WriteHeadline writes the headline lines as the block a text or Markdown
// document opens with ("answer:" and indented lines; a bold paragraph in
// Markdown). Nothing when there are none.
func WriteHeadline(w io.Writer, lines []string, f Format) error {
	if len(lines) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	if f == Markdown {
		ew.printf("**Answer.** %s\n\n", strings.Join(lines, " "))
		return ew.err
	}
	ew.printf("answer:\n")
	for _, l := range lines {
		ew.printf("  %s\n", l)
	}
	return ew.err
}

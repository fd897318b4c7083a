package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/topology"
)

// JSON is a third format, for plan reports.
const JSON Format = 2

// Plan writes a planner report: the host like lscpu's summary, then for
// each VM its layout and every rule with its verdict and reason, then the
// right-sizing and the consolidation what-if.
func Plan(w io.Writer, r *sizing.Report, f Format) error {
	if f == JSON {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	ew := &errWriter{w: w}
	md := f == Markdown
	h := r.Host
	title := "host"
	if h.Name != "" {
		title += " " + h.Name
	}
	if h.Source != "" {
		title += " (" + h.Source + ")"
	}
	if md {
		ew.printf("# Capacity plan\n\n## %s\n\n```\n%s```\n\n", title, topology.Summary(h))
	} else {
		ew.printf("%s:\n%s", title, indentLines(topology.Summary(h), "  "))
	}
	ew.printf("%shyperthreading gain %.0f%% (%s); plans count physical cores only\n", bullet(md), r.HTGainPct, r.HTGainSource)

	for _, p := range r.VMs {
		vmPlan(ew, p, md)
	}
	if s := r.Sizing; s != nil && s.NotCPU != nil {
		// No VM: the target is past a knee CPU did not cause.
		what := "the host's CPUs were not busy"
		if s.NotCPU.Class != "" {
			what = s.NotCPU.Class
		}
		heading(ew, md, fmt.Sprintf("right-size: no VM: %.4g/s is past a knee CPU did not cause (%s): FAIL", s.NotCPU.Rate, what))
		for _, reason := range s.Reasons {
			ew.printf("%s%s\n", bullet(md), reason)
		}
	} else if s != nil {
		title := fmt.Sprintf("right-size: %d vCPUs", s.VCPU)
		if v := s.Verified; v != nil {
			title += map[bool]string{true: ", verified: PASS", false: ", verified: FAIL"}[v.Pass]
		}
		heading(ew, md, title)
		for _, reason := range s.Reasons {
			ew.printf("%s%s\n", bullet(md), reason)
		}
		if o := s.Objective; o != nil && len(o.At) > 0 {
			predictions(ew, o, s.Rate, md)
		}
		if v := s.Verified; v != nil {
			ew.printf("%sverified by a run: %s\n%s  %s\n", bullet(md), v.Sentence(), bullet(md), v.Command)
		}
		vmPlan(ew, s.Plan, md)
	}
	if c := r.Consolidation; c != nil {
		heading(ew, md, fmt.Sprintf("consolidation what-if: %d VMs, %d vCPUs on this host", len(c.VMs), c.VCPUs))
		checks(ew, c.Checks, md)
		ew.printf("%smodel: Erlang C over the host's capacity, and a simulation of the vCPUs (FIFO ready queue, hyperthread sibling slowdown, relaxed co-scheduling); it shows direction and order of magnitude, not what esxtop will read\n", bullet(md))
	}
	return ew.err
}

// predictions is the objective's model on the allotments asked
// (--predict-cpus): the capacity at the objective and the p99 at the
// target rate, each with the demand's spread.
func predictions(ew *errWriter, o *sizing.Objective, rate float64, md bool) {
	spread := func(x, lo, hi float64, f string) string {
		if hi > 0 {
			return fmt.Sprintf(f+" ("+f+" to "+f+")", x, lo, hi)
		}
		return fmt.Sprintf(f, x)
	}
	ew.printf("%spredicted at the objective (p99 <= %.3g ms), on each allotment; in brackets with the demand's spread:\n", bullet(md), o.P99Ms)
	pre := bullet(md) + "  "
	if md {
		ew.printf("\n| CPUs | capacity at the objective /s | p99 ms at %.4g/s | CPU busy | |\n|---|---|---|---|---|\n", rate)
	} else {
		ew.printf("%s%6s  %-28s  %-26s  %8s\n", pre, "CPUs", "capacity at the objective/s", fmt.Sprintf("p99 ms at %.4g/s", rate), "CPU busy")
	}
	for _, p := range o.At {
		cpus := strconv.FormatFloat(p.CPUs, 'g', 4, 64)
		capacity := spread(p.Capacity, p.CapacityLow, p.CapacityHigh, "%.4g")
		if p.CapacityReached {
			capacity += " (95% busy)"
		}
		p99 := spread(p.P99Ms, p.P99LowMs, p.P99HighMs, "%.3g")
		if p.P99Ms == 0 {
			p99 = "none: past its capacity"
		}
		where := "extrapolated"
		if p.CPUsMeasured {
			where = "measured CPUs"
		}
		if md {
			ew.printf("| %s | %s | %s | %.0f%% | %s |\n", cpus, capacity, p99, p.UtilisationPct, where)
		} else {
			ew.printf("%s%6s  %-28s  %-26s  %7.0f%%  %s\n", pre, cpus, capacity, p99, p.UtilisationPct, where)
		}
	}
	if md {
		ew.printf("\n")
	}
}

func vmPlan(ew *errWriter, p sizing.VMCheck, md bool) {
	l := p.Layout
	mem := ""
	if p.VM.Memory > 0 {
		mem = ", " + topology.FormatBytes(p.VM.Memory)
	}
	layout := fmt.Sprintf("%d vNUMA node(s) × %d vCPUs", l.VNUMANodes, l.VCPUPerNode)
	if l.MemoryPerNode > 0 {
		layout += " × " + topology.FormatBytes(l.MemoryPerNode)
	}
	layout += fmt.Sprintf(", %d virtual socket(s) of %d cores", l.Sockets, l.CoresPerSocket)
	heading(ew, md, fmt.Sprintf("VM %s: %d vCPUs%s: %s", p.VM.Name, p.VM.VCPU, mem, strings.ToUpper(p.Worst().String())))
	if !l.Fits {
		layout = "none: the VM does not fit this host"
	}
	ew.printf("%slayout: %s\n", bullet(md), layout)
	checks(ew, p.Checks, md)
}

func checks(ew *errWriter, cs []sizing.Check, md bool) {
	for _, c := range cs {
		line := fmt.Sprintf("%-4s %s: %s", c.Status, c.Rule, c.Detail)
		if md {
			line = fmt.Sprintf("**%s** %s: %s", c.Status, c.Rule, c.Detail)
		}
		if c.Advice != "" {
			line += " → " + c.Advice
		}
		ew.printf("%s%s\n", bullet(md), line)
	}
}

func heading(ew *errWriter, md bool, s string) {
	if md {
		ew.printf("\n## %s\n\n", s)
	} else {
		ew.printf("\n%s\n", s)
	}
}

func bullet(md bool) string {
	if md {
		return "- "
	}
	return "  "
}

func indentLines(s, pre string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(pre + l)
		}
	}
	return b.String()
}

package report

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/analysis"

	"github.com/rightsize/rightsize/internal/result"
)

// The step table's optional columns: how evenly a step's instances were
// served, and the views beside the guest's CPU (what the kernel, a cgroup
// and the hypervisor saw). A step table shows each only when some step has
// it.

// stepColumn is one optional column of the step table.
type stepColumn struct {
	head string
	// cell is the row's value; false when the row has none ("-").
	cell func(r StepRow) (float64, bool)
}

// onHost is a column of the step's host figures.
func onHost(f func(h *result.Host) (float64, bool)) func(StepRow) (float64, bool) {
	return func(r StepRow) (float64, bool) {
		if r.Host == nil {
			return 0, false
		}
		return f(r.Host)
	}
}

// onFairness is a column of the step's fairness between instances.
func onFairness(f func(*result.Fairness) float64) func(StepRow) (float64, bool) {
	return func(r StepRow) (float64, bool) {
		if r.Fairness == nil {
			return 0, false
		}
		return f(r.Fairness), true
	}
}

// The hypervisor's figures, by name.
func hvHostCPU(v *result.Hypervisor) *float64    { return v.HostCPUPct }
func hvReady(v *result.Hypervisor) *float64      { return v.ReadyPct }
func hvCoStop(v *result.Hypervisor) *float64     { return v.CoStopPct }
func hvMaxLimited(v *result.Hypervisor) *float64 { return v.MaxLimitedPct }

// hvCell is a step's hypervisor figure f as a cell.
func hvCell(f func(*result.Hypervisor) *float64) func(h *result.Host) (float64, bool) {
	return func(h *result.Host) (float64, bool) {
		if h.Hypervisor == nil || f(h.Hypervisor) == nil {
			return 0, false
		}
		return *f(h.Hypervisor), true
	}
}

// pressureCell is a step's CPU pressure ("some").
func pressureCell(h *result.Host) (float64, bool) {
	if h.Pressure == nil {
		return 0, false
	}
	return h.Pressure.CPUSomePct, true
}

// throttledCell is the throttled share of the step's most throttled cgroup.
func throttledCell(h *result.Host) (float64, bool) {
	g := mostThrottled(h)
	if g == nil {
		return 0, false
	}
	return g.ThrottledPct, true
}

// stepColumns are the optional columns, in order: the slowest and fastest
// instance's throughput and their coefficient of variation (steps of
// several instances), CPU pressure, the most throttled cgroup's share of
// periods, and the hypervisor's host CPU, ready and co-stop per vCPU.
var stepColumns = []stepColumn{
	{"slowest inst/s", onFairness(func(f *result.Fairness) float64 { return f.Min })},
	{"fastest inst/s", onFairness(func(f *result.Fairness) float64 { return f.Max })},
	{"inst cov%", onFairness(func(f *result.Fairness) float64 { return f.CoVPct })},
	{"cpu psi%", onHost(pressureCell)},
	{"throttled%", onHost(throttledCell)},
	{"hv host cpu%", onHost(hvCell(hvHostCPU))},
	{"ready%", onHost(hvCell(hvReady))},
	{"costop%", onHost(hvCell(hvCoStop))},
}

// mostThrottled is the host's cgroup with a limit that was throttled the
// most (nil when no cgroup has a limit or was throttled).
func mostThrottled(h *result.Host) *result.Cgroup {
	return analysis.MostThrottled(h, func(g *result.Cgroup) bool { return g.LimitCPUs > 0 || g.ThrottledPeriods > 0 })
}

// stepColumnsOf are the optional columns some row has.
func stepColumnsOf(rows []StepRow) []stepColumn {
	var out []stepColumn
	for _, c := range stepColumns {
		for _, r := range rows {
			if _, ok := c.cell(r); ok {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// stepCells are a row's cells of cols, with the given precision; missing
// where the row has none.
func stepCells(r StepRow, cols []stepColumn, format, missing string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = missing
		if v, ok := c.cell(r); ok {
			out[i] = fmt.Sprintf(format, v)
		}
	}
	return out
}

package report

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/result"
)

// The views beside the guest's CPU: what the kernel, a cgroup and the
// hypervisor saw. A step table shows each only when some step has it.

// guestColumn is one optional column of the step table.
type guestColumn struct {
	head string
	// cell is the row's value; false when the row has none ("-").
	cell func(h *result.Host) (float64, bool)
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

// guestColumns are the optional columns, in order: CPU pressure, the most
// throttled cgroup's share of periods, and the hypervisor's host CPU,
// ready and co-stop per vCPU.
var guestColumns = []guestColumn{
	{"cpu psi%", pressureCell},
	{"throttled%", throttledCell},
	{"hv host cpu%", hvCell(hvHostCPU)},
	{"ready%", hvCell(hvReady)},
	{"costop%", hvCell(hvCoStop)},
}

// mostThrottled is the host's cgroup with a limit that was throttled the
// most (nil when no cgroup has a limit or was throttled).
func mostThrottled(h *result.Host) *result.Cgroup {
	return mostThrottledOf(h, func(g *result.Cgroup) bool { return g.LimitCPUs > 0 || g.ThrottledPeriods > 0 })
}

// mostThrottledOf is the most throttled of the host's cgroups that keep
// accepts (nil when none).
func mostThrottledOf(h *result.Host, keep func(*result.Cgroup) bool) *result.Cgroup {
	var out *result.Cgroup
	for i := range h.Cgroups {
		g := &h.Cgroups[i]
		if keep(g) && (out == nil || g.ThrottledPct > out.ThrottledPct) {
			out = g
		}
	}
	return out
}

// guestColumnsOf are the optional columns some row has.
func guestColumnsOf(rows []StepRow) []guestColumn {
	var out []guestColumn
	for _, c := range guestColumns {
		for _, r := range rows {
			if r.Host == nil {
				continue
			}
			if _, ok := c.cell(r.Host); ok {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// guestCells are a row's cells of cols, with the given precision; missing
// where the row has none.
func guestCells(r StepRow, cols []guestColumn, format, missing string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = missing
		if r.Host == nil {
			continue
		}
		if v, ok := c.cell(r.Host); ok {
			out[i] = fmt.Sprintf(format, v)
		}
	}
	return out
}

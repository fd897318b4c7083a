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

// guestColumns are the optional columns, in order: CPU pressure, the most
// throttled cgroup's share of periods, and the hypervisor's host CPU,
// ready and co-stop per vCPU.
var guestColumns = []guestColumn{
	{"cpu psi%", func(h *result.Host) (float64, bool) {
		if h.Pressure == nil {
			return 0, false
		}
		return h.Pressure.CPUSomePct, true
	}},
	{"throttled%", func(h *result.Host) (float64, bool) {
		g := mostThrottled(h)
		if g == nil {
			return 0, false
		}
		return g.ThrottledPct, true
	}},
	{"hv host cpu%", func(h *result.Host) (float64, bool) {
		return hvFigure(h, func(v *result.Hypervisor) *float64 { return v.HostCPUPct })
	}},
	{"ready%", func(h *result.Host) (float64, bool) {
		return hvFigure(h, func(v *result.Hypervisor) *float64 { return v.ReadyPct })
	}},
	{"costop%", func(h *result.Host) (float64, bool) {
		return hvFigure(h, func(v *result.Hypervisor) *float64 { return v.CoStopPct })
	}},
}

func hvFigure(h *result.Host, f func(*result.Hypervisor) *float64) (float64, bool) {
	if h.Hypervisor == nil || f(h.Hypervisor) == nil {
		return 0, false
	}
	return *f(h.Hypervisor), true
}

// mostThrottled is the host's cgroup with a limit that was throttled the
// most (nil when no cgroup has a limit or was throttled).
func mostThrottled(h *result.Host) *result.Cgroup {
	var out *result.Cgroup
	for i := range h.Cgroups {
		g := &h.Cgroups[i]
		if (g.LimitCPUs > 0 || g.ThrottledPeriods > 0) && (out == nil || g.ThrottledPct > out.ThrottledPct) {
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

package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// Thresholds past which a step's own figures say that the load generator,
// not the system under test, limited it.
const (
	// GenStartLagMs: the p99 of how late idle virtual users woke for their
	// intended starts (open loop). A generator with CPU to spare wakes them
	// within a fraction of a millisecond. It does not apply to an embedded
	// database, nor where the database shares a host whose CPUs were
	// saturated (CPUBoundPct): the lag is then the system under test's load.
	GenStartLagMs = 10
	// GenCPUSharePct: the generator's own CPU as a share of the host's. It
	// does not apply to an embedded database, whose work is done in the
	// generator's process.
	GenCPUSharePct = 80
	// GenLateTickPct: the share of report ticks that fired more than an
	// interval late (the generator was starved of CPU).
	GenLateTickPct = 10
	// ThrottledPct: the share of a cgroup's CPU periods throttled from which
	// its limit held its tasks back (Kubernetes' CPUThrottlingHigh alert
	// fires at 25 %). The generator's own cgroup (not the database's) so
	// throttled limited the step.
	ThrottledPct = 25
)

// Limited is a step the load generator limited, and why.
type Limited struct {
	Index  int    `json:"index"` // into the Result's Steps
	Label  string `json:"label"`
	Reason string `json:"reason"`
}

// GeneratorLimit says why the load generator limited step st, "" when
// nothing says so. embedded tells that the database ran in the generator's
// process (its CPU is then the database's too), hostIsServer that it ran on
// the generator's host.
func GeneratorLimit(st result.SweepStep, embedded, hostIsServer bool) string {
	var why []string
	saturated := st.Host != nil && st.Host.CPU.Busy() >= CPUBoundPct
	if st.StartLagP99Ms >= GenStartLagMs && !embedded && !(hostIsServer && saturated) {
		why = append(why, fmt.Sprintf("idle virtual users woke up to %.3g ms late for their starts (p99, at least %d ms)", st.StartLagP99Ms, GenStartLagMs))
	}
	if !embedded && st.ClientSharePct >= GenCPUSharePct {
		why = append(why, fmt.Sprintf("the generator used %.0f%% of the host's CPU (at least %d%%)", st.ClientSharePct, GenCPUSharePct))
	}
	if st.Host != nil {
		for _, g := range st.Host.Cgroups {
			if g.Role == "rightsize" && g.ThrottledPct >= ThrottledPct {
				why = append(why, fmt.Sprintf("its cgroup %s was throttled in %.0f%% of its CPU periods (limit %.2f CPUs; at least %d%%)", g.Path, g.ThrottledPct, g.LimitCPUs, ThrottledPct))
			}
		}
	}
	if l := st.TickerLag; l != nil && l.Ticks > 0 && 100*l.Late >= GenLateTickPct*l.Ticks {
		why = append(why, fmt.Sprintf("%d of its %d report ticks fired more than an interval late (worst %.1f s)", l.Late, l.Ticks, l.MaxS))
	}
	return strings.Join(why, "; ")
}

// limits lists the steps the generator limited.
func limits(steps []result.SweepStep, embedded, hostIsServer bool) []Limited {
	var out []Limited
	for i, st := range steps {
		if why := GeneratorLimit(st, embedded, hostIsServer); why != "" {
			out = append(out, Limited{Index: i, Label: st.Label, Reason: why})
		}
	}
	return out
}

// Usable is how many steps, from the first, the knee methods read: those
// before the first step the generator limited (all when none was).
func (r *Result) Usable() int {
	if len(r.Limited) > 0 {
		return r.Limited[0].Index
	}
	return len(r.Steps)
}

// Thresholds past which a step's figures, beside the sweep's other steps,
// say that the load generator stalled in it (GeneratorStall).
const (
	// GenCPUOutlierX: the generator's CPU per event at least this many
	// times the median of the sweep's steps (three or more with the
	// figure): its process spent its time elsewhere than driving the load.
	GenCPUOutlierX = 10
	// GenStallPct: one report tick fired late by at least this share of
	// the step's measured window (a gap in its interval series).
	GenStallPct = 10
	// GenStallMinS: and by at least this many seconds, so that a
	// scheduler's hiccup of tens of milliseconds on a shared host does not
	// make a stall of a short step.
	GenStallMinS = 1.0
)

// GeneratorStall says why the load generator stalled in step st, "" when
// nothing says so: its CPU per event an outlier against medianCPUUs (the
// sweep's median; 0: unknown), or a report tick late by a tenth of the
// step's window and by a second at least. A stall is the step's alone: the step is left out of the
// knee, the steps after it are kept.
func GeneratorStall(st result.SweepStep, medianCPUUs float64) string {
	var why []string
	if medianCPUUs > 0 && st.ClientCPUUs >= GenCPUOutlierX*medianCPUUs {
		why = append(why, fmt.Sprintf("the generator used %.3g µs of CPU per event, %.0fx the sweep's median of %.3g µs (at least %dx)",
			st.ClientCPUUs, st.ClientCPUUs/medianCPUUs, medianCPUUs, GenCPUOutlierX))
	}
	if l, w := st.TickerLag, st.To.Sub(st.From).Seconds(); l != nil && w > 0 && 100*l.MaxS >= GenStallPct*w && l.MaxS >= GenStallMinS {
		why = append(why, fmt.Sprintf("a report tick fired %.1f s late in its %.0f s window (a gap in its interval series; at least %d%% of the window)", l.MaxS, w, GenStallPct))
	}
	return strings.Join(why, "; ")
}

// stalls lists the steps the generator stalled in, of those it did not
// limit.
func stalls(steps []result.SweepStep, limited []Limited) []Limited {
	var cpu []float64
	for _, st := range steps {
		if st.ClientCPUUs > 0 {
			cpu = append(cpu, st.ClientCPUUs)
		}
	}
	med := 0.0
	if len(cpu) >= 3 {
		slices.Sort(cpu)
		med = cpu[len(cpu)/2]
		if len(cpu)%2 == 0 {
			med = (cpu[len(cpu)/2-1] + cpu[len(cpu)/2]) / 2
		}
	}
	var out []Limited
	for i, st := range steps {
		if slices.ContainsFunc(limited, func(l Limited) bool { return l.Index == i }) {
			continue
		}
		if why := GeneratorStall(st, med); why != "" {
			out = append(out, Limited{Index: i, Label: st.Label, Reason: why})
		}
	}
	return out
}

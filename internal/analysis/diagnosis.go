package analysis

import (
	"math"

	"github.com/rightsize/rightsize/internal/result"
)

// ConflictPct is the share of a step's events re-run or deadlocked from
// which its conflicts count (Diagnosis.Conflicts).
const ConflictPct = 1

// DroppedWarnPct is the share of an open-loop run's intended starts that,
// dropped, make the run overloaded (Overload).
const DroppedWarnPct = 1.0

// Where names the step whose host figures say what held a sweep.
type Where string

const (
	// AtKnee: the knee's step.
	AtKnee Where = "knee"
	// PastKnee: the step after the sustained knee (the last rate kept),
	// where the system fell behind.
	PastKnee Where = "past_knee"
	// AtLastStep: no knee; the last step the methods read.
	AtLastStep Where = "last_step"
	// AtFirstStep: every step was past the limit (Result.PastLimit); the
	// first step.
	AtFirstStep Where = "first_step"
)

// Finding is where a sweep's limit shows and what held it there.
type Finding struct {
	// Step is the step (an index into the Result's Steps) whose host
	// figures say what held the system, Where why that one; -1 when there
	// is none (no step the methods read, or the workload's own steps).
	Step  int   `json:"step"`
	Where Where `json:"where,omitempty"`
	// Bottleneck is what that step's host figures say (nil: none sampled).
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
}

// Held is a step held back where the guest's CPU figures do not show it:
// its database's cgroup throttled, or the hypervisor's figures past their
// thresholds.
type Held struct {
	Step       int               `json:"step"` // into the Result's Steps
	Throttled  *result.Cgroup    `json:"throttled,omitempty"`
	Hypervisor []HypervisorCause `json:"hypervisor,omitempty"`
}

// GuestView says which views beside the guest's CPU figures a sweep's
// steps sampled, when none has the hypervisor's.
type GuestView struct {
	Pressure bool `json:"cpu_pressure"`
	Cgroups  bool `json:"cgroups"`
}

// Diagnosis is which limit held a sweep and at which step, with the
// figures that say so, and the steps whose figures need a caution. Step
// indexes are into the Result's Steps. A sweep of the workload's own
// steps has none of it (Limit.Step -1): its steps vary the work.
type Diagnosis struct {
	Limit Finding `json:"limit"`
	// Conflicts are the steps whose retries or deadlocks came to
	// ConflictPct of their events or more (any, where the step's window is
	// unknown): their throughput is the work that got through.
	Conflicts []int `json:"conflicts,omitempty"`
	// Overloaded are the open-loop steps that dropped starts: the system
	// could not take their rate.
	Overloaded []int `json:"overloaded,omitempty"`
	// Lagged are the steps whose load generator fell behind its report
	// ticks: their host figures are smeared.
	Lagged []int  `json:"generator_lagged,omitempty"`
	Held   []Held `json:"held,omitempty"`
	// GuestOnly is set when no step has the hypervisor's figures and the
	// database ran on the measured host: its CPU figures are the guest's
	// own.
	GuestOnly *GuestView `json:"guest_only,omitempty"`
	// Server is what the database's own sessions say held it at the
	// limit's step (nil: no server figures there).
	Server *ServerView `json:"server,omitempty"`
}

// Diagnose finds what held the analysed sweep r: the bottleneck at its
// knee (past a sustained knee, where it fell behind), at its last step the
// methods read when there is no knee, or at its first when it was past its
// limit throughout; and the steps in conflict, overloaded, lagging or held
// back where the guest's figures do not show it.
func Diagnose(r *Result) *Diagnosis {
	d := &Diagnosis{Limit: Finding{Step: -1}}
	if r.OwnSteps {
		return d
	}
	n := r.Usable()
	switch {
	case r.PastLimit != "" && len(r.Steps) > 0:
		d.Limit = Finding{Step: 0, Where: AtFirstStep, Bottleneck: BottleneckOf(r.Steps[0].Host, r.HostIsServer)}
	case n > 0:
		d.Limit = Locate(r.Points()[:n], r.Hosts()[:n], r.Knees, r.HostIsServer)
	}
	for i, st := range r.Steps {
		if conflicted(st) {
			d.Conflicts = append(d.Conflicts, i)
		}
		if st.Dropped > 0 {
			d.Overloaded = append(d.Overloaded, i)
		}
		if st.TickerLag != nil {
			d.Lagged = append(d.Lagged, i)
		}
		if st.Host == nil {
			continue
		}
		h := Held{Step: i, Throttled: ThrottledDatabase(st.Host)}
		if v := st.Host.Hypervisor; v != nil {
			h.Hypervisor = HypervisorHeld(v)
		}
		if h.Throttled != nil || len(h.Hypervisor) > 0 {
			d.Held = append(d.Held, h)
		}
	}
	if r.HostIsServer {
		d.GuestOnly = guestOnly(r.Steps)
	}
	d.Server = ServerViewOf(r.Steps, d.Limit.Step, d.Limit.Bottleneck)
	return d
}

// Locate says which of the steps ps (those the methods read; hosts their
// host figures, nil where none) shows what held the system, given the
// knees found in them: the knee's (Result.Knee), with the sustained knee
// the next one, where it fell behind; the last without a knee.
func Locate(ps []Point, hosts []*result.Host, knees []Knee, hostIsServer bool) Finding {
	if len(ps) == 0 {
		return Finding{Step: -1}
	}
	f := Finding{Step: len(ps) - 1, Where: AtLastStep}
	if k, ok := FirstKnee(knees, len(ps)); ok {
		f.Step, f.Where = k.Index, AtKnee
		if k.Method == "sustained" && k.Index+1 < len(ps) {
			f.Step, f.Where = k.Index+1, PastKnee
		}
	}
	if f.Step < len(hosts) {
		f.Bottleneck = BottleneckOf(hosts[f.Step], hostIsServer)
	}
	return f
}

// conflicted reports whether a step's retries or deadlocks came to
// ConflictPct of its events or more (any, where its window is unknown).
func conflicted(st result.SweepStep) bool {
	n := float64(max(st.Retries, st.Deadlocks))
	events := st.Throughput * st.To.Sub(st.From).Seconds()
	return n > 0 && (events <= 0 || 100*n >= ConflictPct*events)
}

// guestOnly says which views beside the guest's CPU were sampled, when no
// step has the hypervisor's figures (nil when one has).
func guestOnly(steps []result.SweepStep) *GuestView {
	var g GuestView
	for _, st := range steps {
		if st.Host == nil {
			continue
		}
		if st.Host.Hypervisor != nil {
			return nil
		}
		g.Pressure = g.Pressure || st.Host.Pressure != nil
		g.Cgroups = g.Cgroups || len(st.Host.Cgroups) > 0
	}
	return &g
}

// Overload is how many of an open-loop run's intended starts were dropped.
type Overload struct {
	Dropped, Intended int64
	Pct               float64
	// Over: DroppedWarnPct or more were dropped; the system did not
	// sustain the rate offered.
	Over bool
}

// OverloadOf is an open-loop run's dropped starts against those intended
// (the rate offered over the window; for a result from before the rate
// offered was recorded, every start counted); zero for a closed loop or
// a run that dropped none.
func OverloadOf(r *result.Run) Overload {
	s := r.Summary
	if r.Load.Mode != "open" || s.Dropped <= 0 {
		return Overload{}
	}
	intended := int64(math.Round(s.Offered * s.DurationS))
	if s.Offered == 0 {
		intended = s.Count + s.Errors + s.Cancelled + s.Dropped
	}
	pct := 100 * float64(s.Dropped) / float64(intended)
	return Overload{Dropped: s.Dropped, Intended: intended, Pct: pct, Over: pct >= DroppedWarnPct}
}

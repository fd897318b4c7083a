package sizing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/rightsize/rightsize/internal/topology"
)

// CurvePoint is one measured step of a sweep: the host's CPU busy share and
// the response times at it.
type CurvePoint struct {
	BusyPct, AvgMs, P99Ms float64
}

// SizeRequest asks for the smallest VM that carries a rate.
type SizeRequest struct {
	Host topology.Host
	// CoreSecondsPerEvent is the measured service demand (the sweep's
	// utilisation-law fit): CPU core-seconds one event costs.
	CoreSecondsPerEvent float64
	Rate                float64 // target events per second
	RateText            string  // how the user gave it ("3x of 230/s"), for the reasons
	// Baseline is the events per second that 1x is (of all the sweep's
	// instances), to give rates as multiples in the reasons (0: none).
	Baseline     float64
	CPUTargetPct float64 // peak CPU the VM should run at (80)
	Memory       int64   // the VM's memory (0: not given)
	// Curve is the sweep's measured response time against host CPU, for the
	// response-time estimate; Event names the unit ("transaction").
	Curve []CurvePoint
	Event string
}

// Sizing is the answer: the VM, its layout and rule checks, the expected
// utilisation and response time, and the reasons.
type Sizing struct {
	Rate           float64  `json:"target_rate"`     // events per second to carry
	BusyCores      float64  `json:"busy_cores"`      // cores the rate keeps busy
	VCPU           int      `json:"vcpu"`            // recommended vCPUs
	UtilisationPct float64  `json:"utilisation_pct"` // expected peak CPU at that size
	HostsNeeded    float64  `json:"hosts_needed"`    // > 1: one host's cores are not enough
	ResponseMs     float64  `json:"response_ms"`     // expected average response time (0: unknown)
	ResponseBasis  string   `json:"response_basis"`  // "measured", "queueing estimate" or ""
	Plan           VMCheck  `json:"plan"`            // the VM checked against the host
	Reasons        []string `json:"reasons"`
	// Limit is one sentence saying why the recommended VM fails on this
	// host, when it does ("No VM on this host carries 3x ..."), for the
	// headline; "" when it passes.
	Limit string `json:"limit,omitempty"`
	// NotCPU is set when the target rate is past a sweep's knee that CPU
	// did not cause: then there is no VM (VCPU 0, Plan empty), Limit says
	// why and the plan fails (Report.Fails).
	NotCPU *KneeNotCPU `json:"not_cpu,omitempty"`
	// Objective is the plan at the sweep's p99 objective (or plan's
	// --slo), when it has one: the fewest vCPUs whose predicted p99 meets
	// it. Its count is the answer (VCPU) when it finds one.
	Objective *Objective `json:"objective,omitempty"`
	// Verified is the plan checked against a measurement (plan --verify;
	// nil: not checked). A verification that failed fails the plan.
	Verified *Verification `json:"verified,omitempty"`
}

// MaxVCPU is the most vCPUs the planner gives one VM: 4096, KVM's limit on
// x86 (vSphere 8 allows 768, Hyper-V 2048). A rate that needs more has no
// VM (ErrNoVMFits), and a VM described with more is refused.
const MaxVCPU = 4096

// ErrNoVMFits wraps a sizing whose rate needs more than MaxVCPU vCPUs.
var ErrNoVMFits = errors.New("no VM fits")

// RightSize finds the smallest vCPU count that carries the rate at or below
// the CPU target (rule 5: size for the peak plus a buffer, about 80 %),
// rounded up to split evenly over NUMA nodes when the VM is wide, and checks
// it against the host's rules. The count is closed-form (the busy cores over
// the target, rounded up), so any rate answers at once; a rate that needs
// more than MaxVCPU vCPUs fails with ErrNoVMFits, saying what the host
// carries. When the VM fails on this host, Limit says why.
func RightSize(req SizeRequest) (Sizing, error) {
	var s Sizing
	switch {
	case !(req.CoreSecondsPerEvent > 0) || math.IsInf(req.CoreSecondsPerEvent, 1):
		return s, errors.New("right-size: no service demand (core-seconds per event) to size from")
	case !(req.Rate > 0) || math.IsInf(req.Rate, 1):
		return s, errors.New("right-size: the target rate must be above 0 and finite")
	case !(req.CPUTargetPct > 0 && req.CPUTargetPct <= 100):
		return s, fmt.Errorf("right-size: CPU target %g%%: want more than 0 and at most 100", req.CPUTargetPct)
	}
	h := req.Host
	s.Rate, s.BusyCores = req.Rate, req.Rate*req.CoreSecondsPerEvent
	target := req.CPUTargetPct / 100
	exact := s.BusyCores / target // vCPUs, unrounded
	if !(exact <= MaxVCPU) {
		return Sizing{}, fmt.Errorf("right-size: %w: %s at %.3g ms of CPU per %s keeps %.3g cores busy; at %.0f%% peak CPU that needs %.3g vCPUs, more than any VM can have (%d)%s",
			ErrNoVMFits, rateWords(req), 1000*req.CoreSecondsPerEvent, eventWord(req), s.BusyCores, req.CPUTargetPct, exact, MaxVCPU, hostCarries(req, "; "))
	}
	need := max(int(math.Ceil(exact-1e-9)), 1)
	s.Reasons = append(s.Reasons, fmt.Sprintf("%s at %.3g ms of CPU per %s keeps %.2f cores busy; at %.0f%% peak CPU that needs %d vCPU(s)",
		rateWords(req), 1000*req.CoreSecondsPerEvent, eventWord(req), s.BusyCores, req.CPUTargetPct, need))
	vcpu, why := numaRound(h, need)
	if why != "" {
		s.Reasons = append(s.Reasons, why)
	}
	s.VCPU = vcpu
	s.UtilisationPct = 100 * s.BusyCores / float64(vcpu)
	s.Reasons = append(s.Reasons, fmt.Sprintf("at %d vCPUs the rate runs at %.0f%% peak CPU", vcpu, s.UtilisationPct))
	s.Plan = CheckVM(h, VM{Name: "recommended", VCPU: vcpu, Memory: req.Memory})
	if cores := h.Cores(); cores > 0 && vcpu > cores {
		s.HostsNeeded = exact / float64(cores)
		s.Limit = fmt.Sprintf("No VM on this host carries %s: it needs %.1f vCPUs at %.0f%% peak CPU and the host has %d physical cores, %s.",
			rateShort(req, req.Rate), exact, req.CPUTargetPct, cores, hostCarries(req, "which "))
		short := fmt.Sprintf("%d cores", vcpu-cores)
		if vcpu-cores == 1 {
			short = "1 core"
		}
		s.Reasons = append(s.Reasons, s.Limit+fmt.Sprintf(" The rate needs %.1f such hosts' cores (%s short): split the load (shards, instances) or use a bigger host",
			s.HostsNeeded, short))
	} else if s.Plan.Worst() == Fail {
		s.Limit = failing(s.Plan)
		s.Reasons = append(s.Reasons, s.Limit)
	}
	s.ResponseMs, s.ResponseBasis = responseAt(req.Curve, vcpu, s.BusyCores, s.UtilisationPct)
	if r := responseReason(req.Curve, vcpu, s); r != "" {
		s.Reasons = append(s.Reasons, r)
	}
	return s, nil
}

// numaRound rounds need vCPUs up to split evenly over the fewest NUMA
// nodes, with an even count, when it is wider than a node and within the
// host (past the host's cores no layout exists to round to); the reason
// when it changed the count.
func numaRound(h topology.Host, need int) (int, string) {
	cpn := h.CoresPerNode()
	if cpn <= 0 || need <= cpn || need > h.Cores() {
		return need, ""
	}
	vcpu := need
	nodes := (vcpu + cpn - 1) / cpn
	if r := vcpu % nodes; r != 0 {
		vcpu += nodes - r
	}
	if vcpu%2 != 0 {
		vcpu += nodes // keeps the split even
	}
	if vcpu == need {
		return vcpu, ""
	}
	return vcpu, fmt.Sprintf("more than one NUMA node's %d cores: rounded up to %d vCPUs, %d nodes of %d", cpn, vcpu, nodes, vcpu/nodes)
}

// hostCarries says the most the host's cores carry at the CPU target,
// after prefix ("" without a host).
func hostCarries(req SizeRequest, prefix string) string {
	cores := req.Host.Cores()
	if cores <= 0 {
		return ""
	}
	most := float64(cores) * req.CPUTargetPct / 100 / req.CoreSecondsPerEvent
	if prefix == "which " {
		return fmt.Sprintf("which carry at most %s at %.0f%%", rateShort(req, most), req.CPUTargetPct)
	}
	return fmt.Sprintf("%sthis host's %d cores carry at most %s at %.0f%%", prefix, cores, rateShort(req, most), req.CPUTargetPct)
}

// rateShort writes a rate as a multiple of the baseline and per second
// ("1.61x (645/s)"), or per second alone without a baseline.
func rateShort(req SizeRequest, rate float64) string {
	if req.Baseline > 0 {
		return fmt.Sprintf("%.3gx (%.4g/s)", rate/req.Baseline, rate)
	}
	return fmt.Sprintf("%.4g/s", rate)
}

// failing is a sentence naming the first failing rule of p.
func failing(p VMCheck) string {
	for _, c := range p.Checks {
		if c.Status == Fail {
			return fmt.Sprintf("The recommended VM fails %s on this host: %s.", c.Rule, c.Detail)
		}
	}
	return ""
}

// responseAt is the expected average response time at vcpu vCPUs: from the
// measured curve when the utilisation lies in it, else from an M/M/c queue
// with the lightest step as service time; 0 and "" when neither says.
func responseAt(curve []CurvePoint, vcpu int, busy, pct float64) (float64, string) {
	if ms, ok := interpolate(curve, pct); ok {
		return ms, "measured"
	}
	if len(curve) == 0 {
		return 0, ""
	}
	svc := lightest(curve).AvgMs
	r := MMcResponse(vcpu, busy)
	if math.IsInf(r, 1) || !(svc > 0) {
		return 0, ""
	}
	return svc * r, "queueing estimate"
}

// byBusy orders curve points by their CPU busy.
func byBusy(a, b CurvePoint) int { return cmp.Compare(a.BusyPct, b.BusyPct) }

// responseReason says where s's response time came from.
func responseReason(curve []CurvePoint, vcpu int, s Sizing) string {
	switch s.ResponseBasis {
	case "measured":
		return fmt.Sprintf("the sweep measured an average response of %.3g ms at that CPU share (interpolated between its steps)", s.ResponseMs)
	case "queueing estimate":
		svc := lightest(curve).AvgMs
		return fmt.Sprintf("outside the CPU share the sweep's steps measured (%.0f%% to %.0f%% of the CPUs it had): an M/M/%d queue at %.0f%% puts the average response at %.2f× the lightest step's %.3g ms, about %.3g ms (an estimate, not a measurement)",
			slices.MinFunc(curve, byBusy).BusyPct, slices.MaxFunc(curve, byBusy).BusyPct, vcpu, s.UtilisationPct, s.ResponseMs/svc, svc, s.ResponseMs)
	}
	return ""
}

func eventWord(req SizeRequest) string {
	if req.Event == "" {
		return "event"
	}
	return req.Event
}

func rateWords(req SizeRequest) string {
	if req.RateText != "" {
		return req.RateText
	}
	return fmt.Sprintf("%.4g/s", req.Rate)
}

func lightest(c []CurvePoint) CurvePoint {
	best := c[0]
	for _, p := range c[1:] {
		if p.BusyPct < best.BusyPct {
			best = p
		}
	}
	return best
}

// interpolate returns the average response time at busy share pct, linear
// between the measured points sorted by CPU; false outside their range.
func interpolate(c []CurvePoint, pct float64) (float64, bool) {
	if len(c) == 0 {
		return 0, false
	}
	pts := append([]CurvePoint(nil), c...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].BusyPct < pts[j].BusyPct })
	if pct < pts[0].BusyPct || pct > pts[len(pts)-1].BusyPct {
		return 0, false
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if pct <= b.BusyPct {
			if b.BusyPct == a.BusyPct {
				return max(a.AvgMs, b.AvgMs), true
			}
			f := (pct - a.BusyPct) / (b.BusyPct - a.BusyPct)
			return a.AvgMs + f*(b.AvgMs-a.AvgMs), true
		}
	}
	return pts[len(pts)-1].AvgMs, true
}

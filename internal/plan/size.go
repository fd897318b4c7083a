package plan

import (
	"errors"
	"fmt"
	"math"
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
	CPUTargetPct        float64 // peak CPU the VM should run at (80)
	Memory              int64   // the VM's memory (0: not given)
	// Curve is the sweep's measured response time against host CPU, for the
	// response-time estimate; Event names the unit ("transaction").
	Curve []CurvePoint
	Event string
}

// Sizing is the answer: the VM, its layout and rule checks, the expected
// utilisation and response time, and the reasons.
type Sizing struct {
	BusyCores      float64  `json:"busy_cores"`      // cores the rate keeps busy
	VCPU           int      `json:"vcpu"`            // recommended vCPUs
	UtilisationPct float64  `json:"utilisation_pct"` // expected peak CPU at that size
	HostsNeeded    float64  `json:"hosts_needed"`    // > 1: one host's cores are not enough
	ResponseMs     float64  `json:"response_ms"`     // expected average response time (0: unknown)
	ResponseBasis  string   `json:"response_basis"`  // "measured", "queueing estimate" or ""
	Plan           VMPlan   `json:"plan"`            // the VM checked against the host
	Reasons        []string `json:"reasons"`
}

// RightSize finds the smallest vCPU count that carries the rate at or below
// the CPU target (rule 5: size for the peak plus a buffer, about 80 %),
// rounded up to split evenly over NUMA nodes when the VM is wide, and checks
// it against the host's rules.
func RightSize(req SizeRequest) (Sizing, error) {
	var s Sizing
	switch {
	case !(req.CoreSecondsPerEvent > 0):
		return s, errors.New("right-size: no service demand (core-seconds per event) to size from")
	case !(req.Rate > 0):
		return s, errors.New("right-size: the target rate must be above 0")
	case !(req.CPUTargetPct > 0 && req.CPUTargetPct <= 100):
		return s, fmt.Errorf("right-size: CPU target %g%%: want more than 0 and at most 100", req.CPUTargetPct)
	}
	h := req.Host
	event := req.Event
	if event == "" {
		event = "event"
	}
	s.BusyCores = req.Rate * req.CoreSecondsPerEvent
	target := req.CPUTargetPct / 100
	need := int(math.Ceil(s.BusyCores/target - 1e-9))
	need = max(need, 1)
	s.Reasons = append(s.Reasons, fmt.Sprintf("%s at %.3g ms of CPU per %s keeps %.2f cores busy; at %.0f%% peak CPU that needs %d vCPU(s)",
		rateWords(req), 1000*req.CoreSecondsPerEvent, event, s.BusyCores, req.CPUTargetPct, need))
	vcpu := need
	if cpn := h.CoresPerNode(); cpn > 0 && vcpu > cpn && vcpu <= h.Cores() {
		// Wide, within the host: split evenly over the fewest nodes, with an
		// even count. (Past the host's cores no layout exists to round to.)
		nodes := (vcpu + cpn - 1) / cpn
		if r := vcpu % nodes; r != 0 {
			vcpu += nodes - r
		}
		if vcpu%2 != 0 {
			vcpu += nodes // keeps the split even
		}
		if vcpu != need {
			s.Reasons = append(s.Reasons, fmt.Sprintf("more than one NUMA node's %d cores: rounded up to %d vCPUs, %d nodes of %d", cpn, vcpu, nodes, vcpu/nodes))
		}
	}
	if cores := h.Cores(); cores > 0 && vcpu > cores {
		s.HostsNeeded = s.BusyCores / target / float64(cores)
		s.Reasons = append(s.Reasons, fmt.Sprintf("that is more than this host's %d physical cores: the rate needs %.1f such hosts' cores (%d cores short); split the load (shards, instances) or use a bigger host",
			cores, s.HostsNeeded, vcpu-cores))
	}
	s.VCPU = vcpu
	s.UtilisationPct = 100 * s.BusyCores / float64(vcpu)
	s.Reasons = append(s.Reasons, fmt.Sprintf("at %d vCPUs the rate runs at %.0f%% peak CPU", vcpu, s.UtilisationPct))
	s.Plan = CheckVM(h, VM{Name: "recommended", VCPU: vcpu, Memory: req.Memory})

	// Response time: from the measured curve when the utilisation lies in
	// it, else from an M/M/c queue with the lightest step as service time.
	if ms, ok := interpolate(req.Curve, s.UtilisationPct); ok {
		s.ResponseMs, s.ResponseBasis = ms, "measured"
		s.Reasons = append(s.Reasons, fmt.Sprintf("the sweep measured an average response of %.3g ms at that CPU share (interpolated between its steps)", ms))
	} else if len(req.Curve) > 0 {
		svc := lightest(req.Curve).AvgMs
		r := MMcResponse(vcpu, s.BusyCores)
		if !math.IsInf(r, 1) && svc > 0 {
			s.ResponseMs, s.ResponseBasis = svc*r, "queueing estimate"
			s.Reasons = append(s.Reasons, fmt.Sprintf("beyond the measured steps: an M/M/%d queue at %.0f%% puts the average response at %.2f× the lightest step's %.3g ms, about %.3g ms (an estimate, not a measurement)",
				vcpu, s.UtilisationPct, r, svc, s.ResponseMs))
		}
	}
	return s, nil
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

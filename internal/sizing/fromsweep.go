package sizing

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/topology"
)

// ErrNoDemand is a sweep that gives no service demand to plan from: every
// step past the limit, or no host figures.
var ErrNoDemand = errors.New("no service demand")

// TargetRate is the rate a right-sized VM must carry, as --target-rate
// gives it: events per second, or (Multiple > 0) a multiple of the sweep's
// baseline rate per instance. Text is as the user gave it ("3x").
type TargetRate struct {
	PerSecond, Multiple float64
	Text                string
}

// FromSweep is a right-sizing from a sweep: the host, the sweep as stored
// (Name names it in messages: its file), the target rate, the peak CPU %
// the VM should run at and its memory (0: not given).
type FromSweep struct {
	Host         topology.Host
	Sweep        *result.Sweep
	Name         string
	Rate         TargetRate
	CPUTargetPct float64
	Memory       int64
	// SLOMs is the p99 objective the sweep is analysed at (0: the
	// sweep's own): its SLO knee is the one a target rate may not pass.
	SLOMs float64
	// PredictCPUs are allotments of CPUs the model at the objective also
	// predicts on (Objective.At): plan --predict-cpus.
	PredictCPUs []float64
}

// SizeFromSweep right-sizes a VM from a sweep's measured service demand
// (analysed at the CPU target): the database server's own processes' CPU
// per event when the sweep measured it on every step it reads
// (analysis.ServerCPUDemand), else the host's without the load
// generator's own CPU when it ran on the database's host (every other
// process on the host is then billed to the database, and the reasons say
// so); and with the sweep's response-time curve up to its knee. A target
// rate past a knee that CPU did not cause gets no VM: Sizing.NotCPU says
// why and what would have to change (Report.Fails). A sweep with no demand
// is ErrNoDemand; a rate no VM carries is ErrNoVMFits; other errors are
// the target rate's.
func SizeFromSweep(in FromSweep) (Sizing, error) {
	slo := in.Sweep.SLOMs
	if in.SLOMs > 0 {
		slo = in.SLOMs
	}
	sw := analysis.Analyze(in.Sweep, analysis.Options{SLOMs: slo, CPUTargetPct: in.CPUTargetPct})
	if sw.Demand == nil {
		return Sizing{}, fmt.Errorf("%s: %w: %s", in.Name, ErrNoDemand, sw.DemandError)
	}
	req := SizeRequest{Host: in.Host, CoreSecondsPerEvent: sw.Demand.CoreSecondsPerEvent, CPUTargetPct: in.CPUTargetPct, Memory: in.Memory, Event: "event"}
	var err error
	if req.Rate, req.RateText, err = targetRate(in.Rate, sw, in.Name); err != nil {
		return Sizing{}, err
	}
	if sw.BaselineRate > 0 { // 1x, of all the instances, as targetRate counts it
		req.Baseline = sw.BaselineRate * float64(max(sw.Steps[0].Instances, 1))
	}
	var pre []string
	if d, n, ok := analysis.ServerCPUDemand(sw); ok {
		pre = append(pre, serverShare(sw, d, n, req.CoreSecondsPerEvent))
		req.CoreSecondsPerEvent = d
		req.Curve = curveOf(sw, serverBusy)
	} else {
		var client float64
		pre, client = clientShare(sw, &req)
		if sw.HostIsServer && !sw.Embedded {
			pre = append(pre, "the sweep did not measure the database server's own processes (found from the process listening at the target's address on this host), so its demand is the host's CPU and bills every other process on the host to the database")
		}
		req.Curve = ResponseCurve(sw, client)
	}
	s, err := RightSize(req)
	if errors.Is(err, ErrNoVMFits) {
		return s, fmt.Errorf("target-rate %s: %w", in.Rate.Text, err)
	}
	if err != nil {
		return s, err
	}
	if knee := KneeReason(sw); knee != "" {
		pre = append([]string{knee}, pre...)
	}
	s.Reasons = append(pre, s.Reasons...)
	if o := planObjective(sw, req.CoreSecondsPerEvent, req.Rate, slo); o != nil {
		for _, c := range in.PredictCPUs {
			o.At = append(o.At, o.PredictAt(c, req.Rate))
		}
		s.atObjective(o, in, req)
	}
	if k := kneeNotCPU(sw, req.Rate); k != nil {
		k.CPUOnlyVCPU = s.VCPU
		s.Limit = k.sentence()
		s.Reasons = append(s.Reasons, s.Limit, fmt.Sprintf("were CPU the only limit, %d vCPUs would carry it; what would have to change is %s", s.VCPU, k.Change))
		s.VCPU, s.UtilisationPct, s.HostsNeeded, s.ResponseMs, s.ResponseBasis = 0, 0, 0, 0, ""
		s.Plan = VMCheck{}
		s.NotCPU = k
	}
	return s, nil
}

// serverShare is the reason a demand taken from the server's own
// processes gives: over how many steps, beside the host's.
func serverShare(sw *analysis.Result, server float64, steps int, hostDemand float64) string {
	var names []string
	if st := sw.Steps[sw.Used()[0]]; st.Host != nil {
		for _, c := range st.Host.ServerCPU {
			names = append(names, c.Server)
		}
	}
	return fmt.Sprintf("sized from the database server's own CPU: its processes on this host (%s and every process it started, from /proc) used %.3g ms of CPU per event over %d steps; the host as a whole used %.3g ms, the rest being the load generator's and other processes'",
		strings.Join(names, ", "), 1000*server, steps, 1000*hostDemand)
}

// clientShare takes the load generator's own CPU per event out of the
// demand when it ran on the database's host (and not embedded in it), and
// returns the reason it gives and the CPU seconds per event it took out.
func clientShare(sw *analysis.Result, req *SizeRequest) ([]string, float64) {
	if !sw.HostIsServer || sw.Embedded {
		return nil, 0
	}
	var sum float64
	n := 0
	for _, st := range sw.Steps {
		if st.ClientCPUUs > 0 {
			sum += st.ClientCPUUs
			n++
		}
	}
	c := sum / float64(max(n, 1)) / 1e6
	if n != len(sw.Steps) || c >= req.CoreSecondsPerEvent {
		return nil, 0
	}
	why := fmt.Sprintf("the sweep measured %.3g ms of host CPU per event, of which the load generator on the same host used %.3g ms: the database's share is %.3g ms",
		1000*req.CoreSecondsPerEvent, 1000*c, 1000*(req.CoreSecondsPerEvent-c))
	req.CoreSecondsPerEvent -= c
	return []string{why}, c
}

// targetRate is the target rate as the events per second of all the
// sweep's instances (name: the sweep's file), and says how it was
// computed for a multiple of the baseline.
func targetRate(r TargetRate, sw *analysis.Result, name string) (float64, string, error) {
	if r.Multiple <= 0 {
		return r.PerSecond, "", nil
	}
	if sw.BaselineRate <= 0 {
		return 0, "", fmt.Errorf("target-rate %s: %s has no baseline rate (it swept %s); give events per second", r.Text, name, sw.Axis)
	}
	// The baseline is per instance; the demand is of all the instances.
	n := max(sw.Steps[0].Instances, 1)
	rate := r.Multiple * sw.BaselineRate * float64(n)
	if math.IsInf(rate, 0) {
		return 0, "", fmt.Errorf("target-rate %s: %s of the baseline %.4g/s is past any number: give a rate a VM could carry", r.Text, r.Text, sw.BaselineRate)
	}
	if n > 1 {
		return rate, fmt.Sprintf("%s of the baseline %.4g/s per instance × %d instances = %.4g/s", r.Text, sw.BaselineRate, n, rate), nil
	}
	return rate, fmt.Sprintf("%s of the baseline %.4g/s per instance = %.4g/s", r.Text, sw.BaselineRate, rate), nil
}

// ResponseCurve is the steps up to the sweep's knee (the one its verdict
// names, analysis.PrimaryKnee; every step when it found none), while the
// host's CPU still rises with the load; past the knee a closed loop only
// queues, and its response time says nothing about CPU share. With the
// client's CPU taken out of the demand (client, CPU seconds per event), it
// is taken out of the curve's CPU too, so that both speak of the database
// alone.
func ResponseCurve(sw *analysis.Result, client float64) []CurvePoint {
	return curveOf(sw, func(st result.SweepStep) (float64, bool) {
		if st.Host == nil || st.Host.CPUs < 1 {
			return 0, false
		}
		return st.Host.CPU.Busy() - 100*client*st.Throughput/float64(st.Host.CPUs), true
	})
}

// serverBusy is a step's database server's own CPU in percent of the
// CPUs it had (its cgroup's limit, else the host's: measuredCPUs; false:
// not measured).
func serverBusy(st result.SweepStep) (float64, bool) {
	used, ok := st.Host.ServerUsedCPUs()
	cpus, _ := measuredCPUs(st)
	if !ok || !(cpus > 0) {
		return 0, false
	}
	return 100 * used / cpus, true
}

// curveOf is ResponseCurve with each step's CPU busy (percent of the
// host's CPUs) from busy.
func curveOf(sw *analysis.Result, busy func(result.SweepStep) (float64, bool)) []CurvePoint {
	last := len(sw.Steps) - 1
	if k, ok := analysis.PrimaryKnee(sw); ok {
		last = min(last, k.Index)
	}
	var curve []CurvePoint
	prev := -1.0
	for _, st := range sw.Steps[:last+1] {
		b, ok := busy(st)
		if !ok || b <= prev {
			break
		}
		prev = b
		curve = append(curve, CurvePoint{BusyPct: b, AvgMs: st.AvgMs, P99Ms: st.P99Ms})
	}
	return curve
}

// KneeReason says where the sweep found its knee ("" when it found none):
// the knee its verdict and report name (analysis.PrimaryKnee).
func KneeReason(sw *analysis.Result) string {
	k, ok := analysis.PrimaryKnee(sw)
	if !ok {
		return ""
	}
	st := sw.Steps[k.Index]
	on := "0 CPUs"
	if st.Host != nil {
		on = fmt.Sprintf("%d CPUs", st.Host.CPUs)
		if cpus, _ := measuredCPUs(st); cpus != float64(st.Host.CPUs) {
			on = fmt.Sprintf("the database's %.3g CPUs (its cgroup's limit; the host has %d)", cpus, st.Host.CPUs)
		}
	}
	if k.Method == "slo" && k.Index == len(sw.Steps)-1 {
		// The largest step within the objective is the last one: every
		// step met it, and the knee lies past the sweep.
		return fmt.Sprintf("the sweep (%s %s) met its objective at every step, up to %s: %.4g/s on %s: no knee in its range (sweep further to find one)", sw.Workload, sw.ID, st.Label, st.Throughput, on)
	}
	return fmt.Sprintf("the sweep (%s %s) found its knee at %s: %.4g/s on %s (%s method)", sw.Workload, sw.ID, st.Label, st.Throughput, on, k.Method)
}

// atObjective makes o's count the answer when it found one (the CPU
// target's rule stays a reason), and checks the VM again.
func (s *Sizing) atObjective(o *Objective, in FromSweep, req SizeRequest) {
	s.Objective = o
	s.Reasons = append(s.Reasons, o.sentence(s.VCPU, in.CPUTargetPct))
	if o.VCPU == 0 && s.Limit == "" {
		s.Limit = fmt.Sprintf("No vCPU count meets p99 <= %.3g ms at %s: %s.", o.P99Ms, rateShort(req, req.Rate), o.Why)
	}
	if o.VCPU == 0 || o.VCPU == s.VCPU || s.HostsNeeded > 1 {
		return
	}
	s.VCPU, s.UtilisationPct = o.VCPU, o.UtilisationPct
	s.Plan = CheckVM(in.Host, VM{Name: "recommended", VCPU: o.VCPU, Memory: req.Memory})
	s.Limit = ""
	if s.Plan.Worst() == Fail {
		s.Limit = failing(s.Plan)
	}
	s.ResponseMs, s.ResponseBasis = responseAt(req.Curve, o.VCPU, s.BusyCores, s.UtilisationPct)
}

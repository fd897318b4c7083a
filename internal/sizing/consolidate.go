package sizing

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rightsize/rightsize/internal/topology"
)

// ReadyWarnPct is the share of a vCPU's time lost to contention (ready,
// co-stop, a busy hyperthread sibling) above which the what-if warns: 5 %
// per vCPU is where response times start to show it.
const ReadyWarnPct = 5

// VMOutcome is one VM's fate on a shared host.
type VMOutcome struct {
	Name        string  `json:"name"`
	VCPU        int     `json:"vcpu"`
	Busy        float64 `json:"busy"`         // demanded busy share of its vCPUs
	DemandCores float64 `json:"demand_cores"` // VCPU × Busy
	// ModelReadyPct is the Erlang C estimate of the share of a runnable
	// vCPU's time spent waiting (M/M/c over the host's capacity in whole
	// cores, the same for every VM); compare it with RunnableWaitPct.
	ModelReadyPct float64 `json:"model_ready_pct"`
	// The simulation's figures (see SimResult), and from them the share of
	// runnable time spent ready or co-stopped.
	Sim             SimResult `json:"sim"`
	RunnableWaitPct float64   `json:"runnable_wait_pct"`
	// Keeps is the throughput the VM keeps, 0..1: all of it while the
	// host's capacity covers the demand, else capacity over demand (see
	// Consolidate). ResponseFactor is the simulation's.
	Keeps          float64 `json:"keeps"`
	ResponseFactor float64 `json:"response_factor"`
}

// Consolidation is the what-if of several VMs on one host.
type Consolidation struct {
	HTGainPct      float64     `json:"ht_gain_pct"`
	VCPUs          int         `json:"vcpus"`
	VCPUPerCore    float64     `json:"vcpu_per_core"`
	VCPUPerThread  float64     `json:"vcpu_per_thread"`
	DemandCores    float64     `json:"demand_cores"`   // Σ vCPU × busy
	CapacityCores  float64     `json:"capacity_cores"` // cores × (1 + HT gain) with hyperthreading
	UtilisationPct float64     `json:"utilisation_pct"`
	VMs            []VMOutcome `json:"vms"`
	Checks         []Check     `json:"checks"`
}

// Consolidate estimates what happens when vms share host h at their peak:
// the overcommit ratios, total demand against capacity (physical cores,
// plus htGain of a core for each busy sibling pair), the ready time by
// Erlang C, a simulation of the vCPUs (ready, co-stop, sibling slowdown,
// the response-time factor), and the throughput each VM keeps. A VM's busy
// share is its guest's CPU busy at its peak (the work it asks of its
// vCPUs; the hypervisor's own worlds are not in it); one without is taken
// as fully busy.
//
// The throughput kept is that of an open system: a database VM serves many
// sessions per vCPU, whose requests keep arriving while a vCPU is slowed,
// so the host does all the work it can — every VM keeps capacity over
// demand of its throughput when the demand is past the capacity, and all
// of it below. (The simulation's own Delivered is a closed loop of one
// session per vCPU, whose idle time waits for its last burst: it loses
// more, 32 % where the first study measured 16 %, and is kept as the
// pessimistic bound.)
func Consolidate(h topology.Host, vms []VM, htGain float64, seed uint64) (Consolidation, error) {
	c, sims, gain, err := consolidationTally(h, vms, htGain)
	if err != nil {
		return Consolidation{}, err
	}
	c.Checks = append(c.Checks, overcommitCheck(c, h), capacityCheck(c, h, gain))

	// Erlang C over the capacity, in whole servers.
	servers := max(int(math.Floor(c.CapacityCores)), 1)
	model := 100 * ReadyShare(servers, c.DemandCores)
	res, note, err := simulateConsolidation(c, h, sims, gain, seed)
	if err != nil {
		return Consolidation{}, err
	}
	if note != nil {
		c.Checks = append(c.Checks, *note)
	}
	keeps := math.Min(1, c.CapacityCores/c.DemandCores)
	for i := range c.VMs {
		o := &c.VMs[i]
		o.ModelReadyPct, o.Keeps = model, keeps
		var sim *SimResult
		if res != nil {
			sim = &res[i]
		}
		c.Checks = append(c.Checks, o.contentionCheck(sim, model))
	}
	return c, nil
}

// consolidationTally checks Consolidate's input and sums it up: the VMs'
// vCPUs and demand (a VM without a busy share taken as fully busy), the
// overcommit ratios, the capacity and the utilisation, one VMOutcome per
// VM with its demand, and the VMs as the simulation takes them. gain is
// the hyperthreading gain counted in the capacity: htGain on a host with
// hyperthreads, else 0.
func consolidationTally(h topology.Host, vms []VM, htGain float64) (c Consolidation, sims []SimVM, gain float64, err error) {
	if len(vms) == 0 {
		return Consolidation{}, nil, 0, errors.New("consolidate: no VMs")
	}
	if h.Cores() < 1 {
		return Consolidation{}, nil, 0, errors.New("consolidate: the host has no cores")
	}
	if htGain < 0 || htGain > 1 || math.IsNaN(htGain) {
		return Consolidation{}, nil, 0, fmt.Errorf("consolidate: hyperthreading gain %g: want 0 to 1", htGain)
	}
	c = Consolidation{HTGainPct: 100 * htGain}
	sims = make([]SimVM, len(vms))
	for i, vm := range vms {
		busy := vm.Busy
		if busy == 0 {
			busy = 1 // not given: the what-if of busy VMs
		}
		if !(busy > 0 && busy <= 1) || vm.VCPU < 1 {
			return Consolidation{}, nil, 0, fmt.Errorf("consolidate: VM %s: want at least 1 vCPU and a busy share from 0 to 1", vm.Name)
		}
		c.VCPUs += vm.VCPU
		c.DemandCores += float64(vm.VCPU) * busy
		sims[i] = SimVM{Name: vm.Name, VCPUs: vm.VCPU, Busy: busy}
		c.VMs = append(c.VMs, VMOutcome{Name: vm.Name, VCPU: vm.VCPU, Busy: busy, DemandCores: float64(vm.VCPU) * busy})
	}
	cores, threads := h.Cores(), h.Threads()
	c.VCPUPerCore = float64(c.VCPUs) / float64(cores)
	c.VCPUPerThread = float64(c.VCPUs) / float64(threads)
	c.CapacityCores = float64(cores)
	if h.ThreadsPerCore > 1 {
		gain = htGain
		c.CapacityCores *= 1 + htGain
	}
	c.UtilisationPct = 100 * c.DemandCores / c.CapacityCores
	return c, sims, gain, nil
}

// overcommitCheck states c's vCPUs per core and per logical CPU of h; more
// than one per core is Info: busy VMs will wait for one another.
func overcommitCheck(c Consolidation, h topology.Host) Check {
	ratio := fmt.Sprintf("%d vCPUs on %d cores (%d logical CPUs): %.2f vCPUs per core, %.2f per logical CPU", c.VCPUs, h.Cores(), h.Threads(), c.VCPUPerCore, c.VCPUPerThread)
	if c.VCPUPerCore > 1 {
		return Check{Rule: "overcommit", Status: Info, Detail: ratio + "; busy VMs will wait for one another"}
	}
	return Check{Rule: "overcommit", Status: Pass, Detail: ratio}
}

// capacityCheck weighs c's peak demand against its capacity: Fail past it,
// Warn above the 80 % peak target. gain is the hyperthreading gain counted
// in the capacity (0: none).
func capacityCheck(c Consolidation, h topology.Host, gain float64) Check {
	capWords := fmt.Sprintf("%.1f busy cores demanded at peak against %.1f of capacity", c.DemandCores, c.CapacityCores)
	if gain > 0 {
		capWords += fmt.Sprintf(" (%d cores + %.0f%% for hyperthreading)", h.Cores(), 100*gain)
	}
	switch {
	case c.DemandCores > c.CapacityCores:
		return Check{Rule: "demand-within-capacity", Status: Fail, Detail: fmt.Sprintf("%s: oversubscribed by %.0f%%; every VM loses throughput and response times grow", capWords, c.UtilisationPct-100),
			Advice: "move VMs to another host or shrink their peaks"}
	case c.UtilisationPct > 80:
		return Check{Rule: "demand-within-capacity", Status: Warn, Detail: fmt.Sprintf("%s: %.0f%%, above the 80 %% peak target", capWords, c.UtilisationPct),
			Advice: "leave headroom: about 80 % at peak"}
	default:
		return Check{Rule: "demand-within-capacity", Status: Pass, Detail: fmt.Sprintf("%s: %.0f%%", capWords, c.UtilisationPct)}
	}
}

// simulateConsolidation simulates sims on h (gain: the hyperthreading gain,
// 0 for none) for 5 s, or less for a large host so that it takes at most a
// few seconds (the work grows with events × (vCPUs + logical CPUs)). It
// returns no results when even 200 ms would take too long, and a
// "simulation" note (nil when none) when it simulated less than 5 s or
// nothing.
func simulateConsolidation(c Consolidation, h topology.Host, sims []SimVM, gain float64, seed uint64) ([]SimResult, *Check, error) {
	threads := h.Threads()
	perSec := (2*float64(c.VCPUs)/defaultMeanBurst.Seconds() + 1/defaultQuantum.Seconds()) * float64(c.VCPUs+threads)
	dur := min(5*time.Second, time.Duration(0.9*maxSimCost/perSec*float64(time.Second)))
	if dur < 200*time.Millisecond {
		return nil, &Check{Rule: "simulation", Status: Info, Detail: fmt.Sprintf("%d vCPUs on %d logical CPUs are too many to simulate here: Erlang C only", c.VCPUs, threads)}, nil
	}
	res, err := Simulate(SimSetup{Host: SimHost{Cores: h.Cores(), ThreadsPerCore: h.ThreadsPerCore, HTGain: gain}, Seed: seed, Duration: dur}, sims)
	if err != nil {
		return nil, nil, fmt.Errorf("consolidate: %w", err)
	}
	if dur < 5*time.Second {
		return res, &Check{Rule: "simulation", Status: Info, Detail: fmt.Sprintf("%d vCPUs on %d logical CPUs: simulated %v rather than 5 s to keep it quick", c.VCPUs, threads, dur.Round(time.Millisecond))}, nil
	}
	return res, nil, nil
}

// contentionCheck fills o from its simulation s (nil when there was none:
// then the check gives the Erlang C estimate model alone) and weighs its
// contention: Warn when ready, co-stop and sibling loss pass ReadyWarnPct
// or it keeps less than 95 % of its throughput. o.Keeps must be set.
func (o *VMOutcome) contentionCheck(s *SimResult, model float64) Check {
	if s == nil {
		return Check{Rule: "cpu-contention", Status: Info, Detail: fmt.Sprintf("%s (%d vCPUs, %.0f%% busy): Erlang C: a runnable vCPU waits %.1f%% of its runnable time", o.Name, o.VCPU, 100*o.Busy, model)}
	}
	o.Sim = *s
	o.ResponseFactor = s.ResponseFactor
	if runnable := s.ReadyPct + s.CoStopPct + s.RunPct; runnable > 0 {
		o.RunnableWaitPct = 100 * (s.ReadyPct + s.CoStopPct) / runnable
	}
	detail := fmt.Sprintf("%s (%d vCPUs, %.0f%% busy): simulated ready %.1f%%, co-stop %.1f%%, lost to a busy hyperthread sibling %.1f%%; keeps %.0f%% of its throughput (%.0f%% if each vCPU were one session waiting on its last request), response ×%.2f; a runnable vCPU waits %.1f%% of its runnable time (Erlang C: %.1f%%)",
		o.Name, o.VCPU, 100*o.Busy, s.ReadyPct, s.CoStopPct, s.HTLossPct, 100*o.Keeps, 100*s.Delivered, s.ResponseFactor, o.RunnableWaitPct, model)
	if s.ReadyPct+s.CoStopPct+s.HTLossPct > ReadyWarnPct || o.Keeps < 0.95 {
		return Check{Rule: "cpu-contention", Status: Warn, Detail: detail + fmt.Sprintf(": ready, co-stop and sibling loss above %d %% of its time show in response times (guest CPU figures do not show them; steal does)", ReadyWarnPct),
			Advice: "give the busiest VMs a host of their own, or fewer vCPUs (a busy small VM beats an idle large one)"}
	}
	return Check{Rule: "cpu-contention", Status: Pass, Detail: detail}
}

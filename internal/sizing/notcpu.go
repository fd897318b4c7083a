package sizing

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/analysis"
)

// KneeNotCPU is a target rate past a sweep's knee that CPU did not cause:
// the database's own sessions waited on something else there (the
// server's view: analysis.CheckNotCPU), or, without that view, the host's
// CPUs were not busy at the limit. No vCPU count carries such a rate, and
// the plan says what would have to change instead (Report.Fails).
type KneeNotCPU struct {
	// Step labels the step where the limit shows; KneeRate is the most the
	// sweep carried up to it, in events per second; Rate the target.
	Step     string  `json:"step"`
	KneeRate float64 `json:"knee_rate"`
	Rate     float64 `json:"target_rate"`
	// Class is the server's dominant wait class there (analysis.WaitLocks,
	// WaitInternal, WaitCommit, WaitDataIO); "" when only the host's
	// figures say it (the server's view was not sampled).
	Class string `json:"class,omitempty"`
	// BusyPct is the host's CPU busy at that step (user + system), percent.
	BusyPct float64 `json:"busy_pct"`
	// ServerCPUs is the CPU the database's own processes used there, of
	// CapacityCPUs (its cgroup's limit, else the host's CPUs); 0 when not
	// measured.
	ServerCPUs   float64 `json:"server_cpus,omitempty"`
	CapacityCPUs float64 `json:"capacity_cpus,omitempty"`
	// Change says what would have to change to carry the rate.
	Change string `json:"change"`
	// CPUOnlyVCPU is the vCPUs the rate would need were CPU its only
	// limit: what the planner would have answered, and why it does not.
	CPUOnlyVCPU int `json:"cpu_only_vcpu"`
}

// changeFor is what would have to change to move a knee that class held.
var changeFor = map[string]string{
	analysis.WaitLocks: "the workload's hot rows, not the VM: spread the updates over more rows or tables, shorten the transactions that hold the locks, " +
		"or change the schema or isolation level that makes them wait (sessions queue for the same rows however many CPUs there are)",
	analysis.WaitInternal: "the server's internal contention, not the VM: fewer sessions on the same buffers (a connection pool sized to the CPUs), " +
		"partitioned hot tables or indexes, or a server version or setting that relieves the lock it waits on",
	analysis.WaitCommit: "the log, not the VM: a faster log device (lower fsync latency), group commit (PostgreSQL commit_delay, MySQL binlog_group_commit_sync_delay), " +
		"fewer, larger transactions, or asynchronous commit where losing the last commits on a crash is acceptable",
	analysis.WaitDataIO: "memory or storage, not vCPUs: enough memory to keep the working set in the buffer pool, or storage with more IOPS and lower latency",
	"": "what held it, not the VM's CPUs: the figures point away from CPU (row or table locks, a single writer, commit latency, storage or the network); " +
		"sweep again with --server-stats on to have the database say which",
}

// IdleBusyPct is the host CPU busy (user + system, percent) under which,
// without the server's own view, the host's figures alone say that a knee
// where the database ran on this host was not CPU's. It is lower than
// analysis.NotCPUBusyPct, which backs the server's word: the host's figures
// alone do not say what the database waited on, and a generator on the same
// host, or a few busy CPUs, make a busier host ambiguous.
const IdleBusyPct = 50

// IdleServerShare is the share of its CPUs (its allotment, else the
// host's) under which a database server's own processes were not held by
// CPU at a knee.
const IdleServerShare = 0.5

// kneeNotCPU says whether rate (events per second, all instances) is past
// a knee of sw that CPU did not cause, and the refusal if so (nil when it
// is not: no knee, a CPU-bound one, or a rate within it).
func kneeNotCPU(sw *analysis.Result, rate float64) *KneeNotCPU {
	d := sw.Diagnosis
	if d == nil || d.Limit.Step < 0 || d.Limit.Step >= len(sw.Steps) || (d.Limit.Where != analysis.AtKnee && d.Limit.Where != analysis.PastKnee) {
		return nil
	}
	b := d.Limit.Bottleneck
	k := &KneeNotCPU{Step: sw.Steps[d.Limit.Step].Label, Rate: rate}
	if b != nil {
		k.BusyPct = b.BusyPct
	}
	switch v := d.Server; {
	case b != nil && b.HostIsServer && b.ServerCPUs != nil && b.CapacityCPUs() > 0:
		// The database's own CPU first, against its capacity: its
		// allotment used (or throttled), half its CPUs busy, or the host's
		// CPUs saturated is CPU, whatever a sample of its sessions saw.
		// Under that, the server's view (its sessions on CPU, or waiting)
		// decides where there is one.
		k.ServerCPUs, k.CapacityCPUs = *b.ServerCPUs, b.CapacityCPUs()
		if b.Throttled != nil || k.ServerCPUs >= IdleServerShare*k.CapacityCPUs || b.BusyPct >= analysis.CPUBoundPct {
			return nil
		}
		if v != nil && v.Class != "" {
			if v.Check != analysis.CheckNotCPU {
				return nil
			}
			k.Class = v.Class
		} else if b.Limit == analysis.StorageBound {
			k.Class = analysis.WaitDataIO
		}
	case v != nil && v.Class != "":
		// The server's own view decides: only waits with idle CPUs refuse.
		if v.Check != analysis.CheckNotCPU {
			return nil
		}
		k.Class = v.Class
	case b != nil && b.HostIsServer && (b.Limit == analysis.Elsewhere || b.Limit == analysis.StorageBound) && b.BusyPct < IdleBusyPct:
		// Without the server's view, the host's: the database ran here and
		// its CPUs were not busy at the limit.
		if b.Limit == analysis.StorageBound {
			k.Class = analysis.WaitDataIO
		}
	default:
		return nil
	}
	for _, st := range sw.Steps[:d.Limit.Step+1] {
		k.KneeRate = max(k.KneeRate, st.Throughput)
	}
	if !(rate > k.KneeRate) {
		return nil
	}
	k.Change = changeFor[k.Class]
	return k
}

// sentence is the refusal in one sentence, for the plan's headline
// (Sizing.Limit).
func (k *KneeNotCPU) sentence() string {
	why := fmt.Sprintf("the database ran on this host and its CPUs were only %.0f%% busy there", k.BusyPct)
	if k.CapacityCPUs > 0 {
		why = fmt.Sprintf("the database's own processes used %.2f of its %.3g CPUs there (%.0f%%, under %.0f%%), unthrottled, while the host's CPUs were %.0f%% busy",
			k.ServerCPUs, k.CapacityCPUs, 100*k.ServerCPUs/k.CapacityCPUs, 100*IdleServerShare, k.BusyPct)
		if k.Class != "" {
			why += fmt.Sprintf("; its sessions mostly waited on %s", k.Class)
		}
	} else if k.Class != "" && k.BusyPct > 0 {
		why = fmt.Sprintf("the database's sessions mostly waited on %s there while the host's CPUs were %.0f%% busy", k.Class, k.BusyPct)
	} else if k.Class != "" {
		why = fmt.Sprintf("the database's sessions mostly waited on %s there, few on CPU", k.Class)
	}
	return fmt.Sprintf("No vCPU count carries %.4g/s: it is past the sweep's knee at %s (%.4g/s), which CPU did not cause (%s); more vCPUs would not raise it.",
		k.Rate, k.Step, k.KneeRate, why)
}

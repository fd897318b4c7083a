package analysis

import (
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// TestAtAllotment: a database's cgroup that used 0.45 of its 0.5 CPUs and
// ran out of quota in 13 % of its periods is held back by its allotment
// (under the 25 % of throttled periods that alone would say so); at 0.2
// of 0.5 it is not, and the host's figures decide.
func TestAtAllotment(t *testing.T) {
	h := func(used float64) *result.Host {
		return &result.Host{CPUs: 2, CPU: result.CPUPct{User: 15, System: 8, Idle: 77},
			Cgroups: []result.Cgroup{{Role: "database", Path: "/db", LimitCPUs: 0.5, UsedCPUs: used, Periods: 50, ThrottledPeriods: 6.5, ThrottledPct: 13}}}
	}
	b := BottleneckOf(h(0.45), true)
	if b.Limit != HeldBack || b.Throttled == nil || b.Throttled.Path != "/db" || b.AllotmentCPUs != 0.5 || b.CapacityCPUs() != 0.5 {
		t.Errorf("0.45 of 0.5 CPUs: %+v, want held back by /db's allotment", b)
	}
	b = BottleneckOf(h(0.2), true)
	if b.Limit != Elsewhere || b.Throttled != nil || b.CapacityCPUs() != 0.5 {
		t.Errorf("0.2 of 0.5 CPUs: %+v, want the host's figures (elsewhere)", b)
	}
}

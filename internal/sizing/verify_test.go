package sizing

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// TestVerify: a run that carried the rate within the objective passes; one
// that fell behind, or missed the objective, fails the plan with why;
// without an objective the database's CPU against the CPU target decides.
func TestVerify(t *testing.T) {
	s := &Sizing{VCPU: 1, BusyCores: 0.3, Objective: &Objective{P99Ms: 50, ServiceMs: 1, WaitScale: 1, OtherP99Ms: 2, VCPU: 1}}
	run := func(tput, p99, used float64) *result.Run {
		return &result.Run{Summary: result.Summary{Throughput: tput, Latency: result.Latency{P99Ms: p99}},
			Host: &result.Host{Cgroups: []result.Cgroup{{Role: "database", UsedCPUs: used, LimitCPUs: 1, ThrottledPct: 4}}}}
	}
	for _, c := range []struct {
		name      string
		r         *result.Run
		objective bool
		pass      bool
		why       string
	}{
		{"within", run(299, 12, 0.31), true, true, "within the objective (50 ms)"},
		{"behind", run(250, 12, 0.31), true, false, "it carried 250/s of the 300/s asked"},
		{"over", run(300, 80, 0.31), true, false, "its p99 was 80 ms, over the objective (50 ms)"},
		{"no objective, busy", run(300, 80, 0.9), false, false, "its database used 0.90 of 1 CPUs, over the 80% CPU target"},
		{"no objective", run(300, 80, 0.31), false, true, "its database within 80% of 1 CPUs"},
	} {
		sz := *s
		if !c.objective {
			sz.Objective = nil
		}
		v := Verify(&sz, 1, 300, 80, c.r)
		if v.Pass != c.pass || !strings.Contains(v.Why, c.why) || v.Measured.BusyCPUs != c.r.Host.Cgroups[0].UsedCPUs || v.Measured.ThrottledPct != 4 {
			t.Errorf("%s: %+v, want pass %v, %q", c.name, v, c.pass, c.why)
		}
		if c.objective && !(v.PredictedP99Ms > 3) {
			t.Errorf("%s: predicted p99 %g", c.name, v.PredictedP99Ms)
		}
		sz.Verified = &v
		if (&Report{Sizing: &sz}).Fails() == c.pass {
			t.Errorf("%s: the plan fails: %v, want %v", c.name, !c.pass, !c.pass)
		}
	}
}

package analysis

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

var (
	idleHost = &result.Host{CPU: result.CPUPct{User: 30, System: 10}}
	busyHost = &result.Host{CPU: result.CPUPct{User: 85, System: 10}}
)

func TestGeneratorLimit(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		st                     result.SweepStep
		embedded, hostIsServer bool
		want                   string // in the reason; "" for none
	}{
		{"quiet", result.SweepStep{StartLagP99Ms: 0.4, ClientSharePct: 30, TickerLag: &result.TickerLag{Ticks: 60, Late: 1}}, false, false, ""},
		{"late wake-ups", result.SweepStep{StartLagP99Ms: 25}, false, false, "woke up to 25 ms late"},
		{"late wake-ups, host not saturated", result.SweepStep{StartLagP99Ms: 25, Host: idleHost}, false, true, "woke up to 25 ms late"},
		{"late wake-ups on the database's saturated host", result.SweepStep{StartLagP99Ms: 25, Host: busyHost}, false, true, ""},
		{"late wake-ups, database elsewhere", result.SweepStep{StartLagP99Ms: 25, Host: busyHost}, false, false, "woke up to 25 ms late"},
		{"late wake-ups, embedded database", result.SweepStep{StartLagP99Ms: 25}, true, false, ""},
		{"busy generator", result.SweepStep{ClientSharePct: 93}, false, true, "used 93% of the host's CPU"},
		{"embedded database's CPU", result.SweepStep{ClientSharePct: 93}, true, true, ""},
		{"late ticks", result.SweepStep{TickerLag: &result.TickerLag{Ticks: 20, Late: 2, MaxS: 1.5}}, false, false, "2 of its 20 report ticks"},
	} {
		got := GeneratorLimit(tc.st, tc.embedded, tc.hostIsServer)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: GeneratorLimit = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestNoKneeWhereTheGeneratorLimited: the curve's knee would be at 8
// threads, but the generator limited that step: the methods read the steps
// before it only, and find none there.
func TestNoKneeWhereTheGeneratorLimited(t *testing.T) {
	sw := &result.Sweep{Axis: "threads", Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, P99Ms: 1},
		{Label: "threads 2", X: 2, Throughput: 200, P99Ms: 1},
		{Label: "threads 4", X: 4, Throughput: 400, P99Ms: 1},
		{Label: "threads 8", X: 8, Throughput: 800, P99Ms: 2},
		{Label: "threads 16", X: 16, Throughput: 820, P99Ms: 9},
	}}
	free := Analyze(sw, OptionsOf(sw))
	if k := free.Knees[0]; k.Index != 3 {
		t.Fatalf("without a limit the marginal knee is at %v, want 8 threads: the test needs it there", k.X)
	}
	sw.Steps[3].StartLagP99Ms = 40
	r := Analyze(sw, OptionsOf(sw))
	if len(r.Limited) != 1 || r.Limited[0].Index != 3 || r.Usable() != 3 {
		t.Fatalf("limited %+v, usable %d; want threads 8 alone, and the 3 steps before it", r.Limited, r.Usable())
	}
	for _, k := range r.Knees {
		if k.Index >= 3 {
			t.Errorf("%s knee at %v, a step the generator limited or after it", k.Method, k.X)
		}
	}
}

// The generator's own cgroup throttled limits the step; the database's, or
// one both share (an embedded database), is the system under test's.
func TestGeneratorLimitByItsCgroup(t *testing.T) {
	step := func(role string, pct float64) result.SweepStep {
		return result.SweepStep{Label: "threads 4", Host: &result.Host{Cgroups: []result.Cgroup{{Role: role, Path: "/gen", LimitCPUs: 0.5, ThrottledPct: pct}}}}
	}
	if why := GeneratorLimit(step("rightsize", 60), false, true); !strings.Contains(why, "its cgroup /gen was throttled in 60% of its CPU periods (limit 0.50 CPUs") {
		t.Errorf("the generator throttled: %q", why)
	}
	for _, st := range []result.SweepStep{step("rightsize", 10), step("database", 90), step("rightsize and database", 90)} {
		if why := GeneratorLimit(st, false, true); why != "" {
			t.Errorf("%+v: %q, want no generator limit", st.Host.Cgroups, why)
		}
	}
}

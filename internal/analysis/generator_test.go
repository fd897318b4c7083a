package analysis

import (
	"strings"
	"testing"
	"time"

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

// TestStalledStepLeftOut: a step in which the generator spent 199 µs of
// CPU per event where the others spent 4.6 (it stalled) is flagged, and
// the knee is sought without it; the steps after it are kept.
func TestStalledStepLeftOut(t *testing.T) {
	sw := &result.Sweep{Axis: "threads", Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, P99Ms: 1, ClientCPUUs: 4.6},
		{Label: "threads 2", X: 2, Throughput: 200, P99Ms: 1, ClientCPUUs: 4.5},
		{Label: "threads 4", X: 4, Throughput: 40, P99Ms: 900, ClientCPUUs: 199},
		{Label: "threads 8", X: 8, Throughput: 800, P99Ms: 2, ClientCPUUs: 4.7},
		{Label: "threads 16", X: 16, Throughput: 820, P99Ms: 9, ClientCPUUs: 4.6},
	}}
	r := Analyze(sw, OptionsOf(sw))
	if len(r.Stalled) != 1 || r.Stalled[0].Index != 2 || !strings.Contains(r.Stalled[0].Reason, "199 µs of CPU per event, 43x the sweep's median of 4.6 µs") {
		t.Fatalf("stalled %+v; want threads 4, with its CPU per event against the median", r.Stalled)
	}
	k, ok := PrimaryKnee(r)
	if !ok || k.Index != 3 || k.Method != "marginal" {
		t.Errorf("knee %+v (found %v); want the marginal knee at threads 8, the stalled step left out", k, ok)
	}
	for _, k := range r.Knees {
		if k.Index == 2 {
			t.Errorf("%s knee at the stalled step", k.Method)
		}
	}
	// A tick 74 s late in a 10 s window is a gap in the series: a stall.
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := result.SweepStep{TickerLag: &result.TickerLag{Ticks: 100, Late: 1, MaxS: 74}, From: at, To: at.Add(10 * time.Second)}
	if why := GeneratorStall(st, 0); !strings.Contains(why, "74.0 s late in its 10 s window") {
		t.Errorf("late tick: %q", why)
	}
	// A tick 50 ms late in a 300 ms step is a shared host's hiccup, not a
	// stall (a test's short sweep lost its knees to it on a loaded machine).
	st = result.SweepStep{TickerLag: &result.TickerLag{Ticks: 2, Late: 1, MaxS: 0.05}, From: at, To: at.Add(300 * time.Millisecond)}
	if why := GeneratorStall(st, 0); why != "" {
		t.Errorf("a 50 ms late tick in 300 ms is called a stall: %q", why)
	}
	// A workload's own steps (fileio's read mixes) are checked too.
	own := &result.Sweep{Axis: "read %", OwnSteps: true, Steps: []result.SweepStep{
		{Label: "100", X: 100, ClientCPUUs: 4.6}, {Label: "90", X: 90, ClientCPUUs: 199}, {Label: "70", X: 70, ClientCPUUs: 4.6}}}
	if r := Analyze(own, OptionsOf(own)); len(r.Stalled) != 1 || r.Stalled[0].Label != "90" {
		t.Errorf("own steps: stalled %+v, want the read mix 90", r.Stalled)
	}
}

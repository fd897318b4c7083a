package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// linearThenFlat scales linearly up to the knee, then gains 1 % per step
// while p99 doubles.
func linearThenFlat(knee float64, xs []float64) []Point {
	var ps []Point
	for _, x := range xs {
		p := Point{X: x, Throughput: 100 * x, P99Ms: 2}
		if x > knee {
			over := x / knee
			p.Throughput = 100 * knee * (1 + 0.01*over)
			p.P99Ms = 2 * over * over
		}
		ps = append(ps, p)
	}
	return ps
}

var steps = []float64{1, 2, 4, 8, 16, 24, 32, 48, 64}

func TestKneesOnALinearThenFlatCurve(t *testing.T) {
	ps := linearThenFlat(16, steps)
	for _, k := range []Knee{MarginalKnee(ps, 0.2), Kneedle(ps), SLOKnee(ps, 3)} {
		if k.X != 16 {
			t.Errorf("%s knee at %g, want 16: %s", k.Method, k.X, k.Reason)
		}
		if k.Reason == "" {
			t.Errorf("%s: no reason", k.Method)
		}
	}
	if r := MarginalKnee(ps, 0.2).Reason; !strings.Contains(r, "stops scaling at 16") || !strings.Contains(r, "p99 rose") {
		t.Errorf("marginal reason %q", r)
	}
}

func TestTippingPoint(t *testing.T) {
	ps := []Point{{X: 1, Throughput: 100, P99Ms: 1}, {X: 2, Throughput: 200, P99Ms: 1}, {X: 4, Throughput: 390, P99Ms: 1.2}, {X: 8, Throughput: 700, P99Ms: 2}, {X: 16, Throughput: 650, P99Ms: 9}, {X: 32, Throughput: 500, P99Ms: 40}}
	k := MarginalKnee(ps, 0.1)
	if k.X != 8 || !strings.Contains(k.Reason, "tipping point at 8") {
		t.Errorf("knee %+v", k)
	}
	// An objective tighter than the good steps: the SLO knee is earlier.
	if s := SLOKnee(ps, 1.5); s.X != 4 || !strings.Contains(s.Reason, "objective binds") {
		t.Errorf("slo knee %+v", s)
	}
}

func TestNoKnee(t *testing.T) {
	lin := linearThenFlat(1000, steps)
	if k := MarginalKnee(lin, 0.2); k.Index != -1 {
		t.Errorf("linear scaling has a marginal knee: %+v", k)
	}
	if k := SLOKnee(lin, 0.5); k.Index != -1 || !strings.Contains(k.Reason, "no step keeps p99") {
		t.Errorf("an objective no step meets: %+v", k)
	}
	for _, k := range []Knee{MarginalKnee(nil, 0.2), Kneedle(lin[:2]), SLOKnee(nil, 1)} {
		if k.Index != -1 || k.Reason == "" {
			t.Errorf("%s on too few steps: %+v", k.Method, k)
		}
	}
}

// With a looser objective the SLO knee moves to the last step that still
// meets it while throughput is within 5 % of the best.
func TestSLOKneeFollowsTheObjective(t *testing.T) {
	ps := linearThenFlat(16, steps)
	if k := SLOKnee(ps, 5); k.X != 24 {
		t.Errorf("slo 5 ms: knee %+v, want 24 (p99 4.5 ms)", k)
	}
}

func TestUSLJSONHasNoInfinities(t *testing.T) {
	u := USL{Lambda: 100, Sigma: 0.1, Peak: math.Inf(1), PeakX: math.Inf(1), R2: math.NaN(), N: 5}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"peak":null`) || !strings.Contains(s, `"r2":null`) || !strings.Contains(s, `"lambda":100`) {
		t.Errorf("json %s", s)
	}
}

// The highest rate sustained: the quickstart's SQLite sweep (400/s
// offered per 1x) did 400 and 800/s at 1x and 2x, then 918 of 1,200/s at
// 3x; the marginal method puts the knee at 3x, already behind schedule.
func TestSustainedKnee(t *testing.T) {
	ps := []Point{{X: 1, Throughput: 400, P99Ms: 8, Offered: 400}, {X: 2, Throughput: 799.9, P99Ms: 116, Offered: 800},
		{X: 3, Throughput: 917.5, P99Ms: 3114, Offered: 1200}, {X: 4, Throughput: 922.8, P99Ms: 5671, Offered: 1600}, {X: 5, Throughput: 783.5, P99Ms: 7986, Offered: 2000}}
	k := SustainedKnee(ps)
	if k.Index != 1 || k.X != 2 || !strings.Contains(k.Reason, "2 is the highest rate sustained (800/s done of 800/s offered); at 3 the system fell behind (918/s of 1200/s, 76%)") {
		t.Errorf("knee %+v", k)
	}
	sw := &result.Sweep{Axis: "rate", BaselineRate: 400}
	for _, p := range ps {
		sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprintf("rate %gx", p.X), X: p.X, Throughput: p.Throughput, P99Ms: p.P99Ms, Offered: p.Offered})
	}
	if k, ok := PrimaryKnee(Analyze(sw, OptionsOf(sw))); !ok || k.Method != "sustained" || k.X != 2 {
		t.Errorf("primary knee %+v %v, want the sustained one at 2x", k, ok)
	}
	for name, tc := range map[string]struct {
		ps   []Point
		want string
	}{
		"closed loop": {[]Point{{X: 1, Throughput: 10}, {X: 2, Throughput: 20}}, "not an open loop"},
		"all kept":    {ps[:2], "every step was sustained"},
		"none kept":   {ps[2:], "the first step (3) already fell behind: 918/s done of 1200/s offered"},
	} {
		if k := SustainedKnee(tc.ps); k.Index != -1 || !strings.Contains(k.Reason, tc.want) {
			t.Errorf("%s: %+v, want none: %q", name, k, tc.want)
		}
	}
}

// TestNoKneePastTheLimit: when the first step already fell behind its
// schedule, or no step met the SLO, the system was past its limit from
// the start: no knee is named (although the marginal method finds a bend)
// and no service demand is given, so that no VM is planned from it.
func TestNoKneePastTheLimit(t *testing.T) {
	host := func(busy float64) *result.Host { return &result.Host{CPUs: 2, CPU: result.CPUPct{User: busy}} }
	behind := &result.Sweep{Axis: "rate", BaselineRate: 400, Steps: []result.SweepStep{
		{Label: "1x", X: 1, Offered: 400, Throughput: 300, P99Ms: 4000, Host: host(95)},
		{Label: "2x", X: 2, Offered: 800, Throughput: 360, P99Ms: 11300, Host: host(97)},
		{Label: "3x", X: 3, Offered: 1200, Throughput: 340, P99Ms: 15000, Host: host(98)},
		{Label: "4x", X: 4, Offered: 1600, Throughput: 330, P99Ms: 17000, Host: host(98)},
	}}
	r := Analyze(behind, OptionsOf(behind))
	k, ok := PrimaryKnee(r)
	if ok || r.Knee != nil || !strings.Contains(k.Reason, "no step kept up: the system was past its limit at the first step (1x: 300/s done of 400/s offered, 75%)") {
		t.Errorf("behind from the first step: knee %+v (found %v)", k, ok)
	}
	for _, k := range r.Knees {
		if k.Index >= 0 {
			t.Errorf("the %s method's knee at %v is named", k.Method, k.X)
		}
	}
	if r.Demand != nil || !strings.Contains(r.DemandError, "no VM is planned") {
		t.Errorf("demand %+v (%q); want none, and why", r.Demand, r.DemandError)
	}
	slo := &result.Sweep{Axis: "threads", SLOMs: 5, Steps: []result.SweepStep{
		{Label: "1", X: 1, Throughput: 100, P99Ms: 6, Host: host(20)},
		{Label: "2", X: 2, Throughput: 190, P99Ms: 8, Host: host(40)},
		{Label: "4", X: 4, Throughput: 200, P99Ms: 30, Host: host(45)},
	}}
	r = Analyze(slo, OptionsOf(slo))
	if k, ok := PrimaryKnee(r); ok || !strings.Contains(k.Reason, "no step met the SLO (p99 within 5 ms): the system was past its limit at the first step (1: p99 6 ms)") || r.Demand != nil {
		t.Errorf("no step within the SLO: knee %+v (found %v), demand %+v", k, ok, r.Demand)
	}
	slo.SLOMs = 7 // the first step meets it: a knee is named
	if r = Analyze(slo, OptionsOf(slo)); r.PastLimit != "" || r.Knee == nil || r.Demand == nil {
		t.Errorf("first step within the SLO: past limit %q, knee %+v, demand %+v", r.PastLimit, r.Knee, r.Demand)
	}
}

// TestOneKnee: the sweep's knee is chosen once, by KneeMethods' order,
// whatever the order the methods ran in.
func TestOneKnee(t *testing.T) {
	sw := &result.Sweep{Axis: "rate", BaselineRate: 100, Steps: []result.SweepStep{
		{Label: "1x", X: 1, Offered: 100, Throughput: 100, P99Ms: 2},
		{Label: "2x", X: 2, Offered: 200, Throughput: 199, P99Ms: 3},
		{Label: "3x", X: 3, Offered: 300, Throughput: 250, P99Ms: 900},
		{Label: "4x", X: 4, Offered: 400, Throughput: 260, P99Ms: 2000},
		{Label: "5x", X: 5, Offered: 500, Throughput: 262, P99Ms: 3000},
	}}
	r := Analyze(sw, OptionsOf(sw))
	if r.Knee == nil || r.Knee.Method != "sustained" || r.Knee.X != 2 {
		t.Fatalf("knee %+v, want the sustained knee at 2x", r.Knee)
	}
	if k, ok := PrimaryKnee(r); !ok || k != *r.Knee {
		t.Errorf("PrimaryKnee %+v, want the Result's %+v", k, *r.Knee)
	}
}

// The type-slo knee is the most load at which every named type keeps its
// p95 objective; the reason names the type that missed it next.
func TestTypeSLOKnee(t *testing.T) {
	step := func(x, tp, noP95, payP95 float64) Point {
		return Point{X: x, Throughput: tp, Label: fmt.Sprintf("rate %gx", x), Types: []result.Type{
			{Name: "new_order", Count: 100, P95Ms: noP95, Frequent: true}, {Name: "payment", Count: 90, P95Ms: payP95, Frequent: true}}}
	}
	ps := []Point{step(1, 100, 10, 5), step(2, 200, 12, 6), step(3, 300, 18, 7), step(4, 310, 60, 9), step(5, 305, 400, 30)}
	k := TypeSLOKnee(ps, map[string]float64{"new_order": 20, "payment": 10})
	if k.Index != 2 || k.Method != "type-slo" {
		t.Fatalf("knee %+v, want rate 3x", k)
	}
	for _, want := range []string{"rate 3x is the largest step", "new_order p95 ≤ 20 ms, payment p95 ≤ 10 ms", "at rate 4x, new_order (p95 60 ms > 20 ms)"} {
		if !strings.Contains(k.Reason, want) {
			t.Errorf("reason %q lacks %q", k.Reason, want)
		}
	}
	if k := TypeSLOKnee(ps, map[string]float64{"new_order": 5}); k.Index != -1 || !strings.Contains(k.Reason, "at rate 1x, new_order (p95 10 ms > 5 ms)") {
		t.Errorf("objective never met: %+v", k)
	}
	if k := TypeSLOKnee(ps, map[string]float64{"delivery": 500}); k.Index != -1 || !strings.Contains(k.Reason, "delivery (no figures)") {
		t.Errorf("a type the steps lack: %+v", k)
	}
	// A type whose every event failed has no figures: it does not meet
	// its objective (its p95 of 0 is no measurement).
	failed := []Point{{X: 1, Throughput: 100, Label: "rate 1x", Types: []result.Type{{Name: "a", Count: 10, P95Ms: 1}, {Name: "b", Count: 0, Errors: 50}}}}
	if k := TypeSLOKnee(failed, map[string]float64{"b": 5}); k.Index != -1 || !strings.Contains(k.Reason, "b (no figures)") {
		t.Errorf("a type that always failed: %+v", k)
	}
	// The sweep's analysis takes its objectives from the sweep.
	sw := &result.Sweep{Axis: "rate", TypeSLOMs: map[string]float64{"new_order": 20}}
	for _, p := range ps {
		sw.Steps = append(sw.Steps, result.SweepStep{Label: p.Label, X: p.X, Throughput: p.Throughput, Types: p.Types})
	}
	r := Analyze(sw, OptionsOf(sw))
	if r.Knee == nil || r.Knee.Method != "type-slo" || r.Knee.X != 3 {
		t.Errorf("sweep knee %+v, want type-slo at 3x (knees %+v)", r.Knee, r.Knees)
	}
}

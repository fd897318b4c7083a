package analysis

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
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
	ps := []Point{{1, 100, 1}, {2, 200, 1}, {4, 390, 1.2}, {8, 700, 2}, {16, 650, 9}, {32, 500, 40}}
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

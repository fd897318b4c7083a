package analysis

import (
	"math"
	"strings"
	"testing"
)

// Synthetic load of 2 ms of CPU per event on 4 cores: busy% = X·0.002/4.
func TestServiceDemandRecoversTheCost(t *testing.T) {
	var ls []Load
	for i, tps := range []float64{100, 300, 600, 1000, 1400, 1800} {
		p99 := 5.0
		if i >= 4 {
			p99 = 5 * float64(i*i) // response time climbs near saturation
		}
		ls = append(ls, Load{X: float64(i + 1), Throughput: tps, P99Ms: p99, BusyPct: 100 * tps * 0.002 / 4})
	}
	d, err := ServiceDemand(ls, 4, 80)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d.CoreSecondsPerEvent-0.002) > 1e-12 || math.Abs(d.EventsPerCore-500) > 1e-6 {
		t.Errorf("demand %+v, want 2 ms per event, 500 per core", d)
	}
	// Step 5 (1400/s) is at 70 % CPU but p99 is 80 ms; step 4 (1000/s, 50 %) is the sweet spot.
	if d.SweetSpot.X != 4 || !strings.Contains(d.SweetSpot.Reason, "under 80% CPU") {
		t.Errorf("sweet spot %+v", d.SweetSpot)
	}
	if _, err := ServiceDemand(ls[:1], 4, 80); err == nil {
		t.Error("one step accepted")
	}
}

package tpcc

import (
	"math"
	"testing"

	"github.com/rightsize/rightsize/internal/datagen"
)

func TestDeckMeetsTheMixAtEveryMoment(t *testing.T) {
	for _, weights := range []string{"45,43,4,4,4", "1,1,1,0,0", "10.5,80.25,3,3,3.25"} {
		w, err := parseWeights(weights)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(20) {
			var d deck
			s := datagen.NewSource(seed)
			d.init(w, s)
			var counts [numTx]int
			for n := 1; n <= 5000; n++ {
				counts[d.deal(s)]++
				for ty := range numTx {
					share := w[ty] / 100 * float64(n)
					if math.Abs(float64(counts[ty])-share) > 2 {
						t.Fatalf("weights %s seed %d: after %d deals %s has %d, share %.2f", weights, seed, n, txDefs[ty].name, counts[ty], share)
					}
				}
			}
		}
	}
}

// Terminals start at different points of the cycle.
func TestDecksAreOutOfStep(t *testing.T) {
	w, _ := parseWeights("45,43,4,4,4")
	seqs := map[string]bool{}
	for seed := range uint64(10) {
		var d deck
		s := datagen.NewSource(seed)
		d.init(w, s)
		seq := ""
		for range 30 {
			seq += txDefs[d.deal(s)].name[:1]
		}
		seqs[seq] = true
	}
	if len(seqs) < 5 {
		t.Errorf("10 terminals dealt only %d distinct opening sequences", len(seqs))
	}
}

// Terminals that start together deal every type at its share together over
// a short window, not only over whole cycles: at the spec's think times
// 1,000 terminals run about 3 transactions each in a minute's warm-up and 28
// in the next 10 minutes, and clause 5.2.3's minimums hold over that window.
func TestDecksMeetTheMixTogetherOverShortWindows(t *testing.T) {
	w, _ := parseWeights("45,43,4,4,4")
	const terminals = 1000
	for _, win := range []struct{ skip, n int }{{3, 28}, {0, 28}, {10, 50}} {
		var counts [numTx]int
		for id := range terminals {
			var d deck
			s := datagen.NewSource(uint64(id) + 1)
			d.init(w, s)
			for n := range win.skip + win.n {
				if ty := d.deal(s); n >= win.skip {
					counts[ty]++
				}
			}
		}
		for ty := range numTx {
			got := 100 * float64(counts[ty]) / float64(terminals*win.n)
			if math.Abs(got-w[ty]) > 0.25 {
				t.Errorf("%d terminals, deals %d..%d: %s dealt %.2f %%, want %.0f %% within 0.25", terminals, win.skip+1, win.skip+win.n, txDefs[ty].name, got, w[ty])
			}
		}
	}
}

func TestWeightsValidation(t *testing.T) {
	for _, bad := range []string{"", "45,43,4,4", "a,1,1,1,1", "-1,1,1,1,1", "0,0,0,0,0", "NaN,1,1,1,1", "1e308,1e308,0,0,0", "Inf,1,1,1,1"} {
		o := DefaultOptions()
		o.Weights = bad
		if err := o.Validate(); err == nil {
			t.Errorf("weights %q accepted", bad)
		}
	}
	o := DefaultOptions()
	o.Weights = "50,40,4,4,2"
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if low := o.belowMinimum(); len(low) != 2 {
		t.Errorf("50,40,4,4,2: below minimum %v, want payment and stock_level", low)
	}
}

// The spec's own figure: 10 terminals per warehouse at the spec's keying and
// think times reach at most 12.86 tpmC per warehouse.
func TestCeilingIs1286PerWarehouse(t *testing.T) {
	got := Ceiling(100, 1, defaultWeights)
	if math.Abs(got-128.6) > 0.05 {
		t.Errorf("ceiling of 10 warehouses' 100 terminals = %.3f tpmC, want 128.6", got)
	}
	if q := Ceiling(100, 0.25, defaultWeights); math.Abs(q-4*got) > 1e-9 {
		t.Errorf("a quarter of the times should give 4x the ceiling: %v vs %v", q, got)
	}
	if Ceiling(100, 0, defaultWeights) != 0 {
		t.Error("ceiling without think time should be 0 (none)")
	}
}

func TestPauseScalesKeyingAndThink(t *testing.T) {
	v := &vu{src: datagen.NewSource(2), scale: 1, last: newOrder, next: payment}
	const n = 20000
	var sum float64
	for range n {
		p := v.Pause().Seconds()
		// think truncated at 10 x 12 s, plus Payment's 3 s keying
		if p < 3 || p > 123.0001 {
			t.Fatalf("pause %v s outside [3, 123]", p)
		}
		sum += p
	}
	// mean: 12 s think (slightly less for the truncation) + 3 s keying
	if mean := sum / n; math.Abs(mean-15) > 0.4 {
		t.Errorf("mean pause %.2f s, want about 15", mean)
	}
	v.scale = 0.25
	for range 100 {
		if p := v.Pause().Seconds(); p < 0.75 || p > 30.76 {
			t.Fatalf("scaled pause %v outside [0.75, 30.75]", p)
		}
	}
	v.scale = 0
	if v.Pause() != 0 {
		t.Error("think-scale 0 must not pause")
	}
}

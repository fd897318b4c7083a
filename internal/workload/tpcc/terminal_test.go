package tpcc

import (
	"math"
	"testing"

	"github.com/rightsize/rightsize/internal/datagen"
)

func TestDeckMeetsTheMixEveryPass(t *testing.T) {
	var d deck
	s := datagen.NewSource(11)
	w, err := parseWeights("45,43,4,4,4")
	if err != nil {
		t.Fatal(err)
	}
	d.init(w, s)
	var counts [numTx]int
	for range 3 * deckSize {
		counts[d.deal(s)]++
	}
	want := [numTx]int{1350, 1290, 120, 120, 120}
	if counts != want {
		t.Errorf("three passes dealt %v, want exactly %v", counts, want)
	}
}

func TestDeckRoundsOddWeights(t *testing.T) {
	w, err := parseWeights("1,1,1,0,0")
	if err != nil {
		t.Fatal(err)
	}
	var d deck
	d.init(w, datagen.NewSource(1))
	var counts [numTx]int
	for _, c := range d.cards {
		counts[c]++
	}
	if len(d.cards) != deckSize || counts[delivery] != 0 || counts[stockLevel] != 0 || counts[0]+counts[1]+counts[2] != deckSize {
		t.Errorf("deck of %d cards: %v", len(d.cards), counts)
	}
}

func TestWeightsValidation(t *testing.T) {
	for _, bad := range []string{"", "45,43,4,4", "a,1,1,1,1", "-1,1,1,1,1", "0,0,0,0,0", "NaN,1,1,1,1"} {
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

package tpcc

import (
	"math"
	"testing"
)

// FuzzParseWeights: --weights never panics; an accepted mix is five finite
// shares from 0 to 100 that add up to 100.
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"45,43,4,4,4", "1,2,3", "1,2,3,4,5,6", "0,0,0,0,0", "-1,1,1,1,1", "NaN,1,1,1,1",
		"1e308,1e308,0,0,0", "5e-324,0,0,0,0", " 10 , 20,30,40, 0", "a,b,c,d,e", ",,,,", "Inf,0,0,0,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := parseWeights(s)
		if err != nil {
			return
		}
		var sum float64
		for _, x := range w {
			if math.IsNaN(x) || x < 0 || x > 100 {
				t.Fatalf("parseWeights(%q) = %v", s, w)
			}
			sum += x
		}
		if math.Abs(sum-100) > 1e-9 {
			t.Fatalf("parseWeights(%q) = %v: sum %v", s, w, sum)
		}
	})
}

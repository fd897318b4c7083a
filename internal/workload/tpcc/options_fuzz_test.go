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

// FuzzParseRanges: the loaded-unit ranges read back from rightsize_objects
// never panic, whatever the record holds; an accepted set has count members
// inside [0, n), and formatRanges writes it back to the same set.
func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"", "0", "1-3,5", "3-1", "-1", "0-99999999999", "1,1,1", "a", "1-", ",", "0-9"} {
		f.Add(s, uint8(10))
	}
	f.Fuzz(func(t *testing.T, s string, n8 uint8) {
		n := int(n8)
		done, count, ok := parseRanges(s, n)
		if !ok {
			return
		}
		if len(done) != n {
			t.Fatalf("parseRanges(%q, %d): %d flags", s, n, len(done))
		}
		c := 0
		for _, d := range done {
			if d {
				c++
			}
		}
		if c != count {
			t.Fatalf("parseRanges(%q, %d): count %d, %d set", s, n, count, c)
		}
		again, count2, ok := parseRanges(formatRanges(done), n)
		if !ok || count2 != count {
			t.Fatalf("parseRanges(%q) = %v; formatRanges gives %q, which parses to %v %d %v", s, done, formatRanges(done), again, count2, ok)
		}
		for i := range done {
			if done[i] != again[i] {
				t.Fatalf("round trip of %q changed index %d", s, i)
			}
		}
	})
}

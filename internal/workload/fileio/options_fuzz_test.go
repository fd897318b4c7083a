package fileio

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseReadMix: --read never panics; a refusal wraps ErrInvalidValue;
// an accepted list holds distinct whole numbers 0..100, one per item, and
// its printed form parses to the same list.
func FuzzParseReadMix(f *testing.F) {
	for _, s := range []string{"100,90,70", "100", "150", "-1", "", ",", "50,50", " 0 , 100 ", "007", "+5", "1e2", "100,,90"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mix, err := ParseReadMix(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidValue) || mix != nil {
				t.Fatalf("ParseReadMix(%q) = %v, %v", s, mix, err)
			}
			return
		}
		if len(mix) == 0 || len(mix) != len(strings.Split(s, ",")) {
			t.Fatalf("ParseReadMix(%q) = %v", s, mix)
		}
		seen := map[int]bool{}
		parts := make([]string, len(mix))
		for i, n := range mix {
			if n < 0 || n > 100 || seen[n] {
				t.Fatalf("ParseReadMix(%q) = %v", s, mix)
			}
			seen[n] = true
			parts[i] = strconv.Itoa(n)
		}
		again, err := ParseReadMix(strings.Join(parts, ","))
		if err != nil || len(again) != len(mix) {
			t.Fatalf("ParseReadMix(%q) = %v; printed, it parses to %v, %v", s, mix, again, err)
		}
	})
}

// FuzzParseRW: --rw never panics; an accepted value reads 100, 0 or (mixed)
// the default share, and a refusal wraps ErrInvalidValue.
func FuzzParseRW(f *testing.F) {
	for _, s := range []string{"read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "RandRW", " read ", "trim", "rw:4k", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		random, pct, mixed, err := ParseRW(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("ParseRW(%q): %v", s, err)
			}
			return
		}
		if mixed != (pct == DefaultReadPct) || !mixed && pct != 0 && pct != 100 {
			t.Fatalf("ParseRW(%q) = %v %d %v", s, random, pct, mixed)
		}
	})
}

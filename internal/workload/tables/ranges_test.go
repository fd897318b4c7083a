package tables

import (
	"slices"
	"testing"
)

func TestLoadRanges(t *testing.T) {
	t.Parallel()
	done := make([]bool, 12)
	for _, i := range []int{1, 2, 3, 5, 8, 9, 11} {
		done[i] = true
	}
	s := FormatRanges(done)
	if s != "1-3,5,8-9,11" {
		t.Fatalf("FormatRanges = %q", s)
	}
	back, n, ok := ParseRanges(s, 12)
	if !ok || n != 7 || !slices.Equal(back, done) {
		t.Fatalf("ParseRanges(%q) = %v %d %v", s, back, n, ok)
	}
	if _, n, ok := ParseRanges("", 3); !ok || n != 0 {
		t.Error("empty set")
	}
	for _, bad := range []string{"x", "1-", "3-1", "12", "-1", "1,,2"} {
		if _, _, ok := ParseRanges(bad, 12); ok {
			t.Errorf("ParseRanges(%q) accepted", bad)
		}
	}
}

// FuzzParseRanges: the loaded-unit ranges read back from rightsize_objects
// never panic, whatever the record holds; an accepted set has count members
// inside [0, n), and FormatRanges writes it back to the same set.
func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"", "0", "1-3,5", "3-1", "-1", "0-99999999999", "1,1,1", "a", "1-", ",", "0-9"} {
		f.Add(s, uint8(10))
	}
	f.Fuzz(func(t *testing.T, s string, n8 uint8) {
		n := int(n8)
		done, count, ok := ParseRanges(s, n)
		if !ok {
			return
		}
		if len(done) != n {
			t.Fatalf("ParseRanges(%q, %d): %d flags", s, n, len(done))
		}
		c := 0
		for _, d := range done {
			if d {
				c++
			}
		}
		if c != count {
			t.Fatalf("ParseRanges(%q, %d): count %d, %d set", s, n, count, c)
		}
		again, count2, ok := ParseRanges(FormatRanges(done), n)
		if !ok || count2 != count {
			t.Fatalf("ParseRanges(%q) = %v; FormatRanges gives %q, which parses to %v %d %v", s, done, FormatRanges(done), again, count2, ok)
		}
		for i := range done {
			if done[i] != again[i] {
				t.Fatalf("round trip of %q changed index %d", s, i)
			}
		}
	})
}

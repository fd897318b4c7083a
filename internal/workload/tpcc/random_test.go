package tpcc

import (
	"testing"

	"github.com/rightsize/rightsize/internal/datagen"
)

func TestNURandRangesAndSkew(t *testing.T) {
	s := datagen.NewSource(1)
	c := Constants{Last: 123, CID: 259, Item: 7911}
	const n = 200000
	hits := map[int64]int{}
	for range n {
		id := c.CustomerID(s)
		if id < 1 || id > 3000 {
			t.Fatalf("CustomerID %d outside [1, 3000]", id)
		}
		it := c.ItemID(s)
		if it < 1 || it > 100000 {
			t.Fatalf("ItemID %d outside [1, 100000]", it)
		}
		ln := c.LastNameNumber(s)
		if ln < 0 || ln > 999 {
			t.Fatalf("LastNameNumber %d outside [0, 999]", ln)
		}
		hits[id]++
	}
	// NURand is non-uniform: the most popular customer id is drawn far more
	// often than the uniform share (n/3000 = 67).
	most := 0
	for _, h := range hits {
		most = max(most, h)
	}
	if most < 3*n/3000 {
		t.Errorf("most frequent customer id drawn %d times of %d: no skew, is A right?", most, n)
	}
}

// The A values and ranges of clause 2.1.6 belong to their own uses: the
// customer range with A=1023, the item range with A=8191. Swapping them (a
// known bug elsewhere) changes the distribution; pin each use's formula.
func TestNURandUsesTheRightA(t *testing.T) {
	c := Constants{Last: 10, CID: 20, Item: 30}
	a, b := datagen.NewSource(9), datagen.NewSource(9)
	for range 1000 {
		if got, want := c.CustomerID(a), ((b.Uniform(0, 1023)|b.Uniform(1, 3000))+20)%3000+1; got != want {
			t.Fatalf("CustomerID = %d, want NURand(1023, 1, 3000) = %d", got, want)
		}
		if got, want := c.ItemID(a), ((b.Uniform(0, 8191)|b.Uniform(1, 100000))+30)%100000+1; got != want {
			t.Fatalf("ItemID = %d, want NURand(8191, 1, 100000) = %d", got, want)
		}
		if got, want := c.LastNameNumber(a), ((b.Uniform(0, 255)|b.Uniform(0, 999))+10)%1000; got != want {
			t.Fatalf("LastNameNumber = %d, want NURand(255, 0, 999) = %d", got, want)
		}
	}
}

func TestRunConstantsDelta(t *testing.T) {
	s := datagen.NewSource(3)
	for cload := int64(0); cload <= 255; cload++ {
		load := Constants{Last: cload, CID: 1, Item: 2}
		for range 20 {
			run := NewRunConstants(s, load)
			d := run.Last - cload
			if d < 0 {
				d = -d
			}
			if d < 65 || d > 119 || d == 96 || d == 112 {
				t.Fatalf("C_load %d: C_run %d, delta %d breaks clause 2.1.6.1", cload, run.Last, d)
			}
			if run.Last < 0 || run.Last > 255 || run.CID < 0 || run.CID > 1023 || run.Item < 0 || run.Item > 8191 {
				t.Fatalf("run constants out of range: %+v", run)
			}
		}
	}
	// A recorded C_load out of range (another tool's record) cannot hang the draw.
	for _, bad := range []int64{-5, 256, 1 << 40} {
		if run := NewRunConstants(s, Constants{Last: bad}); run.Last < 0 || run.Last > 255 {
			t.Errorf("C_load %d: C_run %d", bad, run.Last)
		}
	}
	if validDelta(100, 4) || validDelta(0, 112) || !validDelta(0, 65) || !validDelta(200, 81) || validDelta(0, 120) {
		t.Error("validDelta disagrees with 65 <= |d| <= 119, d != 96, 112")
	}
}

func TestLastName(t *testing.T) {
	for n, want := range map[int64]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING", 40: "BARPRESBAR"} {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestStrings(t *testing.T) {
	s := datagen.NewSource(5)
	orig := 0
	for range 10000 {
		a := appendAString(nil, s, 8, 16)
		if len(a) < 8 || len(a) > 16 {
			t.Fatalf("a-string length %d outside [8, 16]", len(a))
		}
		for _, ch := range a {
			if !('a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9') {
				t.Fatalf("a-string %q has %q", a, ch)
			}
		}
		n := appendNString(nil, s, 16)
		for _, ch := range n {
			if ch < '0' || ch > '9' {
				t.Fatalf("n-string %q", n)
			}
		}
		z := appendZip(nil, s)
		if len(z) != 9 || string(z[4:]) != "11111" {
			t.Fatalf("zip %q", z)
		}
		d := appendData(nil, s)
		if len(d) < 26 || len(d) > 50 {
			t.Fatalf("data length %d", len(d))
		}
		if containsOriginal(d) {
			orig++
		}
	}
	if orig < 850 || orig > 1150 {
		t.Errorf("%d of 10000 data values hold ORIGINAL, want about 10 %%", orig)
	}
}

func containsOriginal(b []byte) bool {
	for i := 0; i+len(original) <= len(b); i++ {
		if string(b[i:i+len(original)]) == original {
			return true
		}
	}
	return false
}

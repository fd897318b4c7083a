package fileio

import (
	"fmt"
	"math"
	"testing"
)

func TestParseCapacity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"2TB", 2_000_000_000_000},
		{"2000GB", 2_000_000_000_000},
		{"2000 GB", 2_000_000_000_000},
		{"2tb", 2_000_000_000_000},
		{"2Tb", 2_000_000_000_000},
		{"1.92TB", 1_920_000_000_000},
		{"3.84 TB", 3_840_000_000_000},
		{"1kB", 1000},
		{"1KB", 1000},
		{"1MB", 1_000_000},
		{"1PB", 1_000_000_000_000_000},
		{"9000PB", 9_000_000_000_000_000_000},
		{"1000000B", 1_000_000},
		{"1KiB", 1024},
		{"500GiB", 500 << 30},
		{"2TiB", 2 << 40},
		{"1.5TiB", 3 << 39},
		{"1PiB", 1 << 50},
	} {
		got, err := ParseCapacity(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseCapacity(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestParseCapacityErrors(t *testing.T) {
	for _, tc := range []struct {
		in    string
		parts []string
	}{
		{"2000", []string{`capacity "2000": a unit is required: GB or TB (decimal, 1 GB = 10^9 bytes) or GiB or TiB (binary, 1 GiB = 2^30 bytes), e.g. 2000GB`}},
		{"1.92", []string{"a unit is required", "e.g. 1.92GB"}},
		{"2T", []string{`capacity "2T": unit "T" is ambiguous: write TB (decimal, as vendors state capacity) or TiB (binary)`}},
		{"2g", []string{`unit "g" is ambiguous: write GB`}},
		{"2Ti", []string{`unit "Ti" is ambiguous`}},
		{"0GB", []string{`capacity "0GB": must be more than 0`}},
		{"0", []string{"a unit is required"}},
		{"-1TB", []string{`capacity "-1TB": negative`}},
		{"2,000GB", []string{`capacity "2,000GB"`, "without separators"}},
		{"2 000 GB", []string{"without separators"}},
		{"2XB", []string{`capacity "2XB": unknown unit "XB"`, "want kB, MB, GB, TB, PB (decimal) or KiB, MiB, GiB, TiB, PiB (binary) or B"}},
		{"2EB", []string{`unknown unit "EB"`}},
		{"2 GBs", []string{`unknown unit "GBs"`}},
		{"", []string{`capacity ""`, "empty", "want a number and a unit"}},
		{"TB", []string{"does not start with a digit"}},
		{"1.5B", []string{"not a whole number of bytes"}},
		{"0.0000000001GB", []string{"not a whole number of bytes"}},
		{"10000PB", []string{"too large"}},
		{"9000PiB", []string{"too large"}},
	} {
		n, err := ParseCapacity(tc.in)
		wantInvalid(t, fmt.Sprintf("ParseCapacity(%q)", tc.in), err, tc.parts...)
		if n != 0 {
			t.Errorf("ParseCapacity(%q) = %d with an error, want 0", tc.in, n)
		}
	}
}

// near reports whether got is want within a relative 1e-12.
func near(got, want float64) bool {
	if want == 0 {
		return got == 0
	}
	return math.Abs(got-want) <= 1e-12*math.Abs(want)
}

func TestDeriveSeed(t *testing.T) {
	// The seed study (DOMAIN.md §4): b16k 100 % random read, 475,000 IOPS and
	// 7,750 MB/s per volume; 9,500 IOPS and 155 MB/s per VM among 50 VMs;
	// "237" IOPS per GB of a 2,000 GB volume (237.5 exactly).
	want := Derived{VMs: 50, CapacityGB: 2000, IOPSPerVM: 9500, MBpsPerVM: 155, IOPSPerGB: 237.5, MBpsPerGB: 3.875}
	for _, capacity := range []string{"2TB", "2000GB", "2000000MB"} {
		c, err := ParseCapacity(capacity)
		if err != nil {
			t.Fatal(err)
		}
		got := Derive(475_000, 7_750, 50, c)
		if got.VMs != want.VMs || !near(got.CapacityGB, want.CapacityGB) ||
			!near(got.IOPSPerVM, want.IOPSPerVM) || !near(got.MBpsPerVM, want.MBpsPerVM) ||
			!near(got.IOPSPerGB, want.IOPSPerGB) || !near(got.MBpsPerGB, want.MBpsPerGB) {
			t.Errorf("Derive(475000, 7750, 50, %s) = %+v, want %+v", capacity, got, want)
		}
	}
}

func TestDerive(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name     string
		iops, mb float64
		vms      int
		capacity int64
		want     Derived
	}{
		{"no VMs, no capacity", 1000, 100, 0, 0, Derived{}},
		{"VMs only", 1000, 100, 4, 0, Derived{VMs: 4, IOPSPerVM: 250, MBpsPerVM: 25}},
		{"capacity only", 1000, 100, 0, 500_000_000_000, Derived{CapacityGB: 500, IOPSPerGB: 2, MBpsPerGB: 0.2}},
		{"negative VMs", 1000, 100, -3, 0, Derived{}},
		{"negative capacity", 1000, 100, 1, -1, Derived{VMs: 1, IOPSPerVM: 1000, MBpsPerVM: 100}},
		{"binary capacity in decimal GB", 1074, 0, 0, 1 << 30, Derived{CapacityGB: 1.073741824, IOPSPerGB: 1074 / 1.073741824}},
		{"zero totals", 0, 0, 50, 2_000_000_000_000, Derived{VMs: 50, CapacityGB: 2000}},
		{"NaN IOPS", nan, 100, 2, 1_000_000_000, Derived{VMs: 2, CapacityGB: 1, MBpsPerVM: 50, MBpsPerGB: 100}},
		{"Inf MB/s", 100, inf, 2, 1_000_000_000, Derived{VMs: 2, CapacityGB: 1, IOPSPerVM: 50, IOPSPerGB: 100}},
		{"-Inf", math.Inf(-1), math.Inf(-1), 2, 1_000_000_000, Derived{VMs: 2, CapacityGB: 1}},
		{"quotient overflows", math.MaxFloat64, 1, 1, 1, Derived{VMs: 1, CapacityGB: 1e-9, IOPSPerVM: math.MaxFloat64, MBpsPerVM: 1, MBpsPerGB: 1e9}},
		{"negative totals pass through", -100, -10, 2, 1_000_000_000, Derived{VMs: 2, CapacityGB: 1, IOPSPerVM: -50, MBpsPerVM: -5, IOPSPerGB: -100, MBpsPerGB: -10}},
	} {
		got := Derive(tc.iops, tc.mb, tc.vms, tc.capacity)
		if got.VMs != tc.want.VMs || !near(got.CapacityGB, tc.want.CapacityGB) ||
			!near(got.IOPSPerVM, tc.want.IOPSPerVM) || !near(got.MBpsPerVM, tc.want.MBpsPerVM) ||
			!near(got.IOPSPerGB, tc.want.IOPSPerGB) || !near(got.MBpsPerGB, tc.want.MBpsPerGB) {
			t.Errorf("%s: Derive(%v, %v, %d, %d) = %+v, want %+v", tc.name, tc.iops, tc.mb, tc.vms, tc.capacity, got, tc.want)
		}
	}
}

// TestDeriveFinite: no combination of awkward inputs gives NaN or Inf.
func TestDeriveFinite(t *testing.T) {
	floats := []float64{0, 1, -1, 1e-300, math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	ints := []int{math.MinInt, -1, 0, 1, 50, math.MaxInt}
	caps := []int64{math.MinInt64, -1, 0, 1, 2_000_000_000_000, math.MaxInt64}
	for _, iops := range floats {
		for _, mb := range floats {
			for _, vms := range ints {
				for _, c := range caps {
					d := Derive(iops, mb, vms, c)
					for _, x := range []float64{d.CapacityGB, d.IOPSPerVM, d.MBpsPerVM, d.IOPSPerGB, d.MBpsPerGB} {
						if math.IsNaN(x) || math.IsInf(x, 0) {
							t.Fatalf("Derive(%v, %v, %d, %d) = %+v: not finite", iops, mb, vms, c, d)
						}
					}
					if d.VMs < 0 {
						t.Fatalf("Derive(%v, %v, %d, %d).VMs = %d < 0", iops, mb, vms, c, d.VMs)
					}
				}
			}
		}
	}
}

func ExampleDerive() {
	capacity, err := ParseCapacity("2TB")
	if err != nil {
		panic(err)
	}
	d := Derive(475_000, 7_750, 50, capacity)
	fmt.Printf("%d VMs, %.0f GB: %.0f IOPS and %.0f MB/s per VM, %.1f IOPS per GB\n",
		d.VMs, d.CapacityGB, d.IOPSPerVM, d.MBpsPerVM, d.IOPSPerGB)
	// Output:
	// 50 VMs, 2000 GB: 9500 IOPS and 155 MB/s per VM, 237.5 IOPS per GB
}

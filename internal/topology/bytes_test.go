package topology

import (
	"math"
	"strings"
	"testing"
)

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{512 << 20, "512 MiB"},
		{96 * gib, "96 GiB"},
		{128 * gib, "128 GiB"},
		{3 * gib / 2, "1.5 GiB"},
		{1536 * gib, "1.5 TiB"},
		{131825796 * 1024, "125.7 GiB"},
		{128e9, "119.2 GiB"},
		{1024*gib - 1<<20, "1 TiB"}, // 1023.999 GiB rounds up to the next unit
		{-2 * gib, "-2 GiB"},
		{math.MaxInt64, "8 EiB"},
		{math.MinInt64, "-8 EiB"},
	} {
		if got := FormatBytes(c.n); got != c.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"128GB", 128e9},
		{"128 GB", 128e9},
		{"128GiB", 128 * gib},
		{"128 gib", 128 * gib},
		{"131072MB", 131072e6},
		{"131072MiB", 128 * gib},
		{"512MiB", 512 << 20},
		{"1.5TiB", 1536 * gib},
		{"1.5TB", 15e11},
		{"2TB", 2e12},
		{"64KiB", 64 << 10},
		{"64kB", 64e3},
		{"137438953472", 128 * gib},
		{"4096 B", 4096},
		{" 256GiB\n", 256 * gib},
		{"0", 0},
		{"1.1GB", 1100000000},
		{"8191PiB", 8191 << 50},
	} {
		got, err := ParseBytes(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestParseBytesRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "want a number"},
		{"GB", "want a number"},
		{"-1GB", "want a number"},
		{"1..5GB", "want a number"},
		{".", "want a number"},
		{"128G", `unknown unit "G"`},
		{"128Gi", `unknown unit "Gi"`},
		{"128 gigabytes", "unknown unit"},
		{"12XB", "unknown unit"},
		{"1e9", "unknown unit"},
		{"1.5", "not a whole number of bytes"},
		{"0.0001KB", "not a whole number of bytes"},
		{"8192PiB", "too large"},
		{"99999999999999999999", "too large"},
	} {
		got, err := ParseBytes(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseBytes(%q) = %d, %v; want an error containing %q", c.in, got, err, c.want)
		}
	}
}

func TestFormatParseRoundTrip(t *testing.T) {
	for _, n := range []int64{0, 1, 1 << 20, 96 * gib, 128 * gib, 1536 * gib, 3 << 40} {
		s := strings.ReplaceAll(FormatBytes(n), " ", "")
		if got, err := ParseBytes(s); err != nil || got != n {
			t.Errorf("ParseBytes(FormatBytes(%d) = %q) = %d, %v", n, s, got, err)
		}
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"128GB", "1.5TiB", "512 MiB", "137438953472", "1.5", "8192PiB", ".5kb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseBytes(%q) = %d < 0", s, n)
		}
		if FormatBytes(n) == "" {
			t.Fatalf("FormatBytes(%d) is empty", n)
		}
	})
}

package topology

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

var binaryUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// FormatBytes writes n bytes in the largest binary unit (KiB = 2^10 bytes,
// MiB, GiB, TiB, ...) in which it is at least 1, with at most one decimal
// and a trailing ".0" dropped: "128 GiB", "1.5 TiB", "512 MiB", "0 B".
// The figure is rounded to that decimal: 131825796 KiB is "125.7 GiB".
func FormatBytes(n int64) string {
	if n < 0 {
		if n == math.MinInt64 {
			return "-8 EiB"
		}
		return "-" + FormatBytes(-n)
	}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	u := 0
	for v >= 1024 && u < len(binaryUnits)-1 {
		v /= 1024
		u++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if s == "1024.0" && u < len(binaryUnits)-1 { // 1023.96 GiB rounds to 1 TiB
		s, u = "1.0", u+1
	}
	return strings.TrimSuffix(s, ".0") + " " + binaryUnits[u]
}

// unitBytes are the units ParseBytes accepts, lower-cased, with their size.
var unitBytes = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "pib": 1 << 50,
}

// ParseBytes reads a memory size: a number, optionally with a fraction, then
// optionally a unit, with or without a space: "128GB", "128 GiB", "1.5TiB",
// "131072MB", "512 MiB", "137438953472". Decimal units are powers of 1000
// (KB, MB, GB = 10^9, TB, PB) and binary units powers of 1024 (KiB, MiB,
// GiB = 2^30, TiB, PiB); a plain number is bytes. Units are
// case-insensitive. It refuses negative sizes, a result that is not a whole
// number of bytes ("1.5" or "0.0001KB"), sizes above the int64 range, and
// a unit with no B ("128G", "128Gi"), which is ambiguous.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" || strings.Count(num, ".") > 1 || num == "." {
		return 0, fmt.Errorf("memory size %q: want a number and a unit, such as 128GiB or 64GB", s)
	}
	mult, ok := unitBytes[unit]
	if !ok {
		return 0, fmt.Errorf("memory size %q: unknown unit %q; use B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)", s, t[i:])
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("memory size %q: %q is not a number", s, num)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, fmt.Errorf("memory size %q is not a whole number of bytes", s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("memory size %q is too large", s)
	}
	return r.Num().Int64(), nil
}

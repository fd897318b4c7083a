package fileio

import (
	"math"
	"strings"
)

// bytesPerGB is the decimal gigabyte of Derived.CapacityGB and ParseCapacity.
const bytesPerGB = 1e9

// ParseCapacity parses a volume's capacity as vendors and cloud providers
// state it: a number and a unit, the unit required. kB, MB, GB, TB and PB are
// decimal (1 GB = 10^9 bytes); KiB, MiB, GiB, TiB and PiB are binary (1 GiB =
// 2^30 bytes); B is bytes. Case does not matter ("2tb" is 2 TB), but a unit
// of one letter ("2T") is rejected as ambiguous, since fio and ParseSize read
// it as binary and a vendor's sheet would mean decimal. The number may have a
// decimal fraction ("1.92TB") when the result is a whole number of bytes.
// Zero, negative numbers, a missing or unknown unit and values above 2^63-1
// bytes are rejected with an error that wraps ErrInvalidValue.
func ParseCapacity(s string) (int64, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, invalidf("capacity %q: %s; want a number and a unit, e.g. 2TB or 1.92TB (decimal, as vendors state capacity) or 2TiB (binary)", s, err)
	}
	u := asciiLowerString(unit)
	var mult int64
	switch u {
	case "":
		return 0, invalidf("capacity %q: a unit is required: GB or TB (decimal, 1 GB = 10^9 bytes) or GiB or TiB (binary, 1 GiB = 2^30 bytes), e.g. %sGB", s, num.String())
	case "b":
		mult = 1
	case "kb", "mb", "gb", "tb", "pb":
		mult = 1
		for range 1 + strings.IndexByte(binaryUnits, u[0]) {
			mult *= 1000
		}
	case "kib", "mib", "gib", "tib", "pib":
		mult = int64(1) << (10 * (1 + strings.IndexByte(binaryUnits, u[0])))
	case "k", "m", "g", "t", "p", "ki", "mi", "gi", "ti", "pi":
		up := asciiUpper(u[0])
		return 0, invalidf("capacity %q: unit %q is ambiguous: write %cB (decimal, as vendors state capacity) or %ciB (binary)", s, unit, up, up)
	default:
		return 0, invalidf("capacity %q: unknown unit %q; want kB, MB, GB, TB, PB (decimal) or KiB, MiB, GiB, TiB, PiB (binary) or B", s, unit)
	}
	n, err := num.times(mult)
	if err != nil {
		return 0, invalidf("capacity %q: %s", s, err)
	}
	if n == 0 {
		return 0, invalidf("capacity %q: must be more than 0", s)
	}
	return n, nil
}

// Derived are the seed study's figures derived from a volume's totals: per VM
// (the volume divided among the VMs that share it) and per GB of capacity.
// A figure that cannot be derived (no VMs, no capacity) is 0 (absent in
// the result's fileio.derived).
type Derived struct {
	VMs        int     `json:"vms,omitempty"`         // VMs sharing the volume; 0 when not given
	CapacityGB float64 `json:"capacity_gb,omitempty"` // capacity in decimal GB (10^9 bytes); 0 when not given

	IOPSPerVM float64 `json:"iops_per_vm,omitempty"` // IOPS / VMs
	MBpsPerVM float64 `json:"mb_s_per_vm,omitempty"` // MB/s / VMs, in the unit of Derive's mbps
	IOPSPerGB float64 `json:"iops_per_gb,omitempty"` // IOPS / CapacityGB
	MBpsPerGB float64 `json:"mb_s_per_gb,omitempty"` // MB/s / CapacityGB, in the unit of Derive's mbps
}

// Derive divides a volume's IOPS and MB/s among vms VMs and over its capacity
// in decimal GB. vms <= 0 leaves the per-VM fields 0, capacityBytes <= 0 the
// per-GB fields. NaN and ±Inf inputs count as 0, and a quotient too large for
// a float64 is 0, so no field is ever NaN or Inf. Negative inputs are not
// judged: they give negative figures.
//
// The seed study's example: 475,000 IOPS and 7,750 MB/s on a 2 TB volume
// shared by 50 VMs give 9,500 IOPS and 155 MB/s per VM and 237.5 IOPS per GB.
func Derive(iops, mbps float64, vms int, capacityBytes int64) Derived {
	iops, mbps = finite(iops), finite(mbps)
	var d Derived
	if vms > 0 {
		d.VMs = vms
		d.IOPSPerVM = finite(iops / float64(vms))
		d.MBpsPerVM = finite(mbps / float64(vms))
	}
	if capacityBytes > 0 {
		d.CapacityGB = float64(capacityBytes) / bytesPerGB
		d.IOPSPerGB = finite(iops / d.CapacityGB)
		d.MBpsPerGB = finite(mbps / d.CapacityGB)
	}
	return d
}

// finite returns x, or 0 when x is NaN or ±Inf.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

func asciiUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

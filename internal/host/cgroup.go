package host

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// Throttling is a cgroup's CPU bandwidth counters, cumulative: the
// enforcement periods that had runnable tasks, the periods in which the
// cgroup ran out of quota, and the time its tasks were throttled.
type Throttling struct {
	Periods     uint64
	Throttled   uint64
	ThrottledUs uint64
}

// ParseCPUStat reads a cgroup's cpu.stat: cgroup v2's (nr_periods,
// nr_throttled, throttled_usec) or v1's (nr_periods, nr_throttled,
// throttled_time in nanoseconds). Other keys are ignored. A file with
// neither form's throttling keys is an error (the cpu controller is not
// enabled on that cgroup, or it is not a cpu.stat).
func ParseCPUStat(data []byte) (Throttling, error) {
	var t Throttling
	seen := 0 // bits: periods, throttled, throttled time
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		var dst *uint64
		scale, bit := uint64(1), 0
		switch f[0] {
		case "nr_periods":
			dst, bit = &t.Periods, 1
		case "nr_throttled":
			dst, bit = &t.Throttled, 2
		case "throttled_usec":
			dst, bit = &t.ThrottledUs, 4
		case "throttled_time": // v1: nanoseconds
			dst, scale, bit = &t.ThrottledUs, 1000, 4
		default:
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return Throttling{}, fmt.Errorf("cpu.stat: %s: %w", f[0], err)
		}
		*dst = v / scale
		seen |= bit
	}
	if err := sc.Err(); err != nil {
		return Throttling{}, fmt.Errorf("cpu.stat: %w", err)
	}
	if seen != 7 {
		return Throttling{}, fmt.Errorf("cpu.stat: no nr_periods, nr_throttled and throttled_usec (v2) or throttled_time (v1): is the cpu controller enabled on this cgroup?")
	}
	return t, nil
}

// Quota is a cgroup's CPU limit in CPUs (quota / period); math.Inf(1) when
// it has none.
type Quota float64

// ParseCPUMax reads cgroup v2's cpu.max ("max 100000" or "50000 100000":
// quota and period in µs).
func ParseCPUMax(data []byte) (Quota, error) {
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return 0, fmt.Errorf("cpu.max: %q: want \"QUOTA PERIOD\"", strings.TrimSpace(string(data)))
	}
	return quota(f[0], f[1], "cpu.max")
}

// ParseCFSQuota reads cgroup v1's cpu.cfs_quota_us (-1: none) and
// cpu.cfs_period_us.
func ParseCFSQuota(quotaUs, periodUs []byte) (Quota, error) {
	q := strings.TrimSpace(string(quotaUs))
	if q == "-1" {
		q = "max"
	}
	return quota(q, strings.TrimSpace(string(periodUs)), "cpu.cfs_quota_us")
}

func quota(q, p, file string) (Quota, error) {
	period, err := strconv.ParseUint(p, 10, 64)
	if err != nil || period == 0 {
		return 0, fmt.Errorf("%s: period %q: want a positive number of µs", file, p)
	}
	if q == "max" {
		return Quota(math.Inf(1)), nil
	}
	n, err := strconv.ParseUint(q, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%s: quota %q: want \"max\" or a positive number of µs", file, q)
	}
	return Quota(float64(n) / float64(period)), nil
}

// cgSnap is one cgroup's counters at one moment.
type cgSnap struct {
	ok       bool // cpu.stat was read
	thr      Throttling
	hasThr   bool   // the cpu controller's bandwidth counters are there
	usageUs  uint64 // CPU time used
	hasUsage bool
	limit    Quota // math.Inf(1): none
}

// readCgroup reads c's counters; a cgroup gone or unreadable is !ok.
func readCgroup(c Cgroup) cgSnap {
	stat, err := os.ReadFile(filepath.Join(c.CPUDir, "cpu.stat"))
	if err != nil {
		return cgSnap{}
	}
	s := cgSnap{ok: true, limit: Quota(math.Inf(1))}
	if t, err := ParseCPUStat(stat); err == nil {
		s.thr, s.hasThr = t, true
	}
	if c.V2 {
		s.usageUs, s.hasUsage = statValue(stat, "usage_usec")
		if q, err := os.ReadFile(filepath.Join(c.CPUDir, "cpu.max")); err == nil {
			if l, err := ParseCPUMax(q); err == nil {
				s.limit = l
			}
		}
		return s
	}
	if c.AcctDir != "" {
		if u, err := os.ReadFile(filepath.Join(c.AcctDir, "cpuacct.usage")); err == nil {
			if ns, err := strconv.ParseUint(strings.TrimSpace(string(u)), 10, 64); err == nil {
				s.usageUs, s.hasUsage = ns/1000, true
			}
		}
	}
	q, errQ := os.ReadFile(filepath.Join(c.CPUDir, "cpu.cfs_quota_us"))
	p, errP := os.ReadFile(filepath.Join(c.CPUDir, "cpu.cfs_period_us"))
	if errQ == nil && errP == nil {
		if l, err := ParseCFSQuota(q, p); err == nil {
			s.limit = l
		}
	}
	return s
}

// statValue is the value of key in a flat-keyed cgroup file.
func statValue(data []byte, key string) (uint64, bool) {
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok && k == key {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// cgroupDelta is c's figures between two readings secs apart; false when
// either reading failed.
func cgroupDelta(c Cgroup, prev, cur cgSnap, secs float64) (result.Cgroup, bool) {
	if !prev.ok || !cur.ok || secs <= 0 {
		return result.Cgroup{}, false
	}
	out := result.Cgroup{Role: c.Role, Path: c.Path, Server: c.Server}
	if !math.IsInf(float64(cur.limit), 1) {
		out.LimitCPUs = float64(cur.limit)
	}
	if prev.hasUsage && cur.hasUsage && cur.usageUs >= prev.usageUs {
		out.UsedCPUs = float64(cur.usageUs-prev.usageUs) / 1e6 / secs
	}
	if prev.hasThr && cur.hasThr && cur.thr.Periods >= prev.thr.Periods && cur.thr.Throttled >= prev.thr.Throttled && cur.thr.ThrottledUs >= prev.thr.ThrottledUs {
		out.Periods = float64(cur.thr.Periods - prev.thr.Periods)
		out.ThrottledPeriods = float64(cur.thr.Throttled - prev.thr.Throttled)
		if out.Periods > 0 {
			out.ThrottledPct = 100 * out.ThrottledPeriods / out.Periods
		}
		out.ThrottledMsPerS = float64(cur.thr.ThrottledUs-prev.thr.ThrottledUs) / 1e3 / secs
	}
	return out, true
}

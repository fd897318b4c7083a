package host

import (
	"fmt"
	"math"
	"os"
	"testing"
)

// The files as the kernel writes them (cgroup v2 since 5.x with nr_bursts
// since 5.14; v1 with burst_time since 5.14).
const (
	cpuStatV2 = "usage_usec 8387920000\nuser_usec 4020756000\nsystem_usec 4367164000\nnice_usec 57160000\n" +
		"core_sched.force_idle_usec 0\nnr_periods 1200\nnr_throttled 300\nthrottled_usec 45000000\nnr_bursts 0\nburst_usec 0\n"
	cpuStatV1 = "nr_periods 1200\nnr_throttled 300\nthrottled_time 45000000123\nnr_bursts 0\nburst_time 0\n"
)

func TestParseCPUStat(t *testing.T) {
	for name, data := range map[string]string{"v2": cpuStatV2, "v1": cpuStatV1} {
		got, err := ParseCPUStat([]byte(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := (Throttling{Periods: 1200, Throttled: 300, ThrottledUs: 45000000}); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	for name, data := range map[string]string{
		"no cpu controller": "usage_usec 10\nuser_usec 5\nsystem_usec 5\n",
		"not a number":      "nr_periods x\nnr_throttled 1\nthrottled_usec 2\n",
		"empty":             "",
		"one key thrice":    "nr_periods 1\nnr_periods 2\nnr_periods 3\n",
	} {
		if _, err := ParseCPUStat([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestParseQuota(t *testing.T) {
	for in, want := range map[string]float64{"max 100000\n": math.Inf(1), "50000 100000\n": 0.5, "200000 100000": 2} {
		got, err := ParseCPUMax([]byte(in))
		if err != nil || float64(got) != want {
			t.Errorf("cpu.max %q: %v (%v), want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "max", "max 0", "-5 100000", "abc 100000", "1 2 3"} {
		if _, err := ParseCPUMax([]byte(in)); err == nil {
			t.Errorf("cpu.max %q: accepted", in)
		}
	}
	if q, err := ParseCFSQuota([]byte("-1\n"), []byte("100000\n")); err != nil || !math.IsInf(float64(q), 1) {
		t.Errorf("v1 without a quota: %v (%v)", q, err)
	}
	if q, err := ParseCFSQuota([]byte("50000\n"), []byte("100000\n")); err != nil || q != 0.5 {
		t.Errorf("v1 half a CPU: %v (%v)", q, err)
	}
}

// TestRealCgroup reads this process's cgroup files where they exist (v1's
// cpu controller or the v2 hierarchy's root).
func TestRealCgroup(t *testing.T) {
	read := 0
	for _, p := range []string{"/sys/fs/cgroup/cpu/cpu.stat", "/sys/fs/cgroup/cpu.stat", "/sys/fs/cgroup/unified/cpu.stat"} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if _, err := ParseCPUStat(data); err != nil {
			t.Logf("%s: %v (a v2 root has no throttling keys)", p, err)
			continue
		}
		read++
	}
	if read == 0 {
		t.Skip("no cgroup cpu.stat with throttling counters here")
	}
}

func FuzzParseCPUStat(f *testing.F) {
	f.Add([]byte(cpuStatV2))
	f.Add([]byte(cpuStatV1))
	f.Fuzz(func(t *testing.T, data []byte) {
		tt, err := ParseCPUStat(data)
		if err != nil {
			return
		}
		// What it read, written back in v2's form, reads the same.
		again, err := ParseCPUStat(fmt.Appendf(nil, "nr_periods %d\nnr_throttled %d\nthrottled_usec %d\n", tt.Periods, tt.Throttled, tt.ThrottledUs))
		if err != nil || again != tt {
			t.Fatalf("%q: %+v, written back %+v (%v)", data, tt, again, err)
		}
	})
}

func FuzzParseCPUMax(f *testing.F) {
	f.Add([]byte("max 100000"))
	f.Add([]byte("50000 100000"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseCPUMax(data)
		if err == nil && !(q > 0) {
			t.Fatalf("%q: quota %v", data, q)
		}
	})
}

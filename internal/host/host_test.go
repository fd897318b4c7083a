package host

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeProc writes a minimal /proc tree: stat with two CPUs, diskstats and
// meminfo, with counters advanced by step.
func writeProc(t *testing.T, dir string, step uint64) {
	t.Helper()
	// user nice system idle iowait irq softirq steal guest guest_nice (USER_HZ = 100)
	cpu := func(u, s, idle, io, st uint64) string {
		return " " + itoa(u) + " 0 " + itoa(s) + " " + itoa(idle) + " " + itoa(io) + " 0 0 " + itoa(st) + " 0 0\n"
	}
	stat := "cpu " + cpu(100+60*step, 50+20*step, 1000+100*step, 10+10*step, 5+10*step) +
		"cpu0" + cpu(50+40*step, 25+10*step, 500+40*step, 5+5*step, 2+5*step) +
		"cpu1" + cpu(50+20*step, 25+10*step, 500+60*step, 5+5*step, 3+5*step) +
		"intr 0 0\nctxt " + itoa(1000+5000*step) + "\nbtime 1\nprocesses 10\nprocs_running " + itoa(3+step) + "\nprocs_blocked 1\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n"
	disk := func(name string, reads, rsect, writes, wsect, ticks uint64) string {
		return " 253 0 " + name + " " + itoa(reads) + " 0 " + itoa(rsect) + " 0 " + itoa(writes) + " 0 " + itoa(wsect) + " 0 0 " + itoa(ticks) + " 0 0 0 0 0 0 0\n"
	}
	diskstats := disk("vda", 100+1000*step, 800+8000*step, 50+500*step, 400+4000*step, 10+500*step) +
		disk("vda1", 100+1000*step, 800+8000*step, 50+500*step, 400+4000*step, 10+500*step) +
		disk("loop0", 5, 10, 0, 0, 0)
	meminfo := "MemTotal:        8192000 kB\nMemFree:         1000000 kB\nMemAvailable:    2048000 kB\n"
	for name, body := range map[string]string{"stat": stat, "diskstats": diskstats, "meminfo": meminfo} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func itoa(n uint64) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestSampleFromAProcTree(t *testing.T) {
	dir := t.TempDir()
	writeProc(t, dir, 0)
	s, err := NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	writeProc(t, dir, 1)
	h, err := s.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	// Deltas over the host: user 60, system 20, idle 100, iowait 10, steal 10 (of 200).
	near(t, "user %", h.CPU.User, 30)
	near(t, "system %", h.CPU.System, 10)
	near(t, "idle %", h.CPU.Idle, 50)
	near(t, "iowait %", h.CPU.Iowait, 5)
	near(t, "steal %", h.CPU.Steal, 5)
	if h.CPUs != 2 || len(h.PerCPU) != 2 {
		t.Fatalf("CPUs %d, per CPU %d", h.CPUs, len(h.PerCPU))
	}
	near(t, "cpu0 user %", h.PerCPU[0].User, 40) // 40 of 100
	near(t, "context switches/s", h.ContextSwitchesPerS, 5000)
	if h.RunQueue != 4 || h.Blocked != 1 {
		t.Errorf("run queue %d blocked %d", h.RunQueue, h.Blocked)
	}
	if len(h.Disks) != 1 || h.Disks[0].Name != "vda" {
		t.Fatalf("disks %+v: want vda only (no partition, no loop device)", h.Disks)
	}
	d := h.Disks[0]
	near(t, "read IOPS", d.ReadIOPS, 1000)
	near(t, "write IOPS", d.WriteIOPS, 500)
	near(t, "read MB/s", d.ReadMBps, 8000*512/1e6)
	near(t, "util %", d.UtilPct, 50)
	near(t, "memory used %", h.MemUsedPct, 75)
	// A second sample over 2 s halves the rates.
	writeProc(t, dir, 2)
	h, err = s.Sample(2)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "read IOPS over 2 s", h.Disks[0].ReadIOPS, 500)
}

// writePressure writes /proc/pressure/cpu and io with totals advanced by
// step: cpu some 250 ms a step, io some 100 ms and full 40 ms.
func writePressure(t *testing.T, dir string, step uint64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "pressure"), 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(kind string, total uint64) string {
		return kind + " avg10=1.00 avg60=2.00 avg300=3.00 total=" + itoa(total) + "\n"
	}
	files := map[string]string{
		"cpu": line("some", 1000+250000*step) + line("full", 0),
		"io":  line("some", 5000+100000*step) + line("full", 7000+40000*step),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, "pressure", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPressure: the stall totals' growth over the interval as a share of
// wall time; none where the kernel has no /proc/pressure, and none when a
// total went back (a counter reset is not negative pressure).
func TestPressure(t *testing.T) {
	dir := t.TempDir()
	writeProc(t, dir, 0)
	s, err := NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	writeProc(t, dir, 1)
	if h, err := s.Sample(1); err != nil || h.Pressure != nil {
		t.Fatalf("no /proc/pressure: pressure %+v (%v), want none", h.Pressure, err)
	}
	writePressure(t, dir, 0)
	if _, err := s.Sample(1); err != nil {
		t.Fatal(err)
	}
	writePressure(t, dir, 2)
	h, err := s.Sample(2)
	if err != nil || h.Pressure == nil {
		t.Fatalf("pressure %+v (%v)", h.Pressure, err)
	}
	near(t, "cpu some %", h.Pressure.CPUSomePct, 25) // 500 ms in 2 s
	near(t, "cpu full %", h.Pressure.CPUFullPct, 0)
	near(t, "io some %", h.Pressure.IOSomePct, 10)
	near(t, "io full %", h.Pressure.IOFullPct, 4)
	writePressure(t, dir, 1) // totals went back
	h, err = s.Sample(1)
	if err != nil || h.Pressure == nil || h.Pressure.CPUSomePct != 0 || h.Pressure.IOSomePct != 0 {
		t.Errorf("after a reset: pressure %+v (%v), want zeros", h.Pressure, err)
	}
}

func FuzzPressure(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint64(3), uint64(4), uint64(10), uint64(2), uint64(30), uint64(9), 1.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, a2, b2, c2, d2 uint64, secs float64) {
		p := snapshot{hasPSI: true, psi: [2][2]uint64{{a, b}, {c, d}}}
		q := snapshot{hasPSI: true, psi: [2][2]uint64{{a2, b2}, {c2, d2}}}
		pr := pressure(p, q, secs)
		if !(secs > 0) {
			if pr != nil {
				t.Fatalf("pressure over %v s: %+v", secs, pr)
			}
			return
		}
		for _, x := range []float64{pr.CPUSomePct, pr.CPUFullPct, pr.IOSomePct, pr.IOFullPct} {
			if !(x >= 0 && x <= 100) {
				t.Fatalf("a share of %v", x)
			}
		}
	})
}

func TestWholeDisk(t *testing.T) {
	for name, want := range map[string]bool{
		"vda": true, "vda1": false, "sda": true, "sdb3": false, "nvme0n1": true, "nvme0n1p2": false,
		"loop0": false, "dm-0": true, "md127": true, "mmcblk0": true, "mmcblk0p1": false, "xvda": true,
	} {
		if got := wholeDisk(name); got != want {
			t.Errorf("wholeDisk(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRealProc(t *testing.T) {
	s, err := NewSampler("/proc")
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Sample(0.1)
	if err != nil {
		t.Fatal(err)
	}
	if h.CPUs < 1 || h.MemUsedPct <= 0 {
		t.Errorf("real /proc: %+v", h)
	}
	if _, err := os.Stat("/proc/pressure/cpu"); err == nil && h.Pressure == nil {
		t.Error("this kernel has /proc/pressure, and the sample has no pressure")
	}
}

func FuzzCPUPct(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 1.0, 0.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, u, s, i, io, st, u2, s2, i2, io2, st2 float64) {
		for _, x := range []float64{u, s, i, io, st, u2, s2, i2, io2, st2} {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e15 {
				return
			}
		}
		p := snapshot{}
		p.total.User, p.total.System, p.total.Idle, p.total.Iowait, p.total.Steal = u, s, i, io, st
		c := snapshot{}
		c.total.User, c.total.System, c.total.Idle, c.total.Iowait, c.total.Steal = u2, s2, i2, io2, st2
		h := delta(p, c, 1)
		sum := h.CPU.User + h.CPU.System + h.CPU.Iowait + h.CPU.Steal + h.CPU.Idle
		for _, x := range []float64{h.CPU.User, h.CPU.System, h.CPU.Iowait, h.CPU.Steal, h.CPU.Idle} {
			if x < 0 || math.IsNaN(x) || x > 100+1e-9 {
				t.Fatalf("a share of %v", x)
			}
		}
		if sum != 0 && math.Abs(sum-100) > 1e-6 {
			t.Fatalf("shares add to %v, not 100", sum)
		}
	})
}

// TestCPUModel reads the model from /proc/cpuinfo: one model for a host of
// identical CPUs, each distinct one for a mixed host, "" when it names none.
func TestCPUModel(t *testing.T) {
	cpu := func(n int, model string) string {
		return "processor\t: " + itoa(uint64(n)) + "\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\nmodel name\t: " + model +
			"\nstepping\t: 6\ncpu MHz\t\t: 2900.000\ncache size\t: 55296 KB\nflags\t\t: fpu vme\n\n"
	}
	for _, tc := range []struct {
		cpuinfo, want string
	}{
		{cpu(0, "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz") + cpu(1, "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"),
			"Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"},
		{cpu(0, "12th Gen Intel(R) Core(TM) i7-1260P") + cpu(1, "12th Gen Intel(R) Core(TM) i7-1260P ") + cpu(2, "Other CPU"),
			"12th Gen Intel(R) Core(TM) i7-1260P, Other CPU"},
		{"processor\t: 0\nvendor_id\t: GenuineIntel\n\n", ""},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "cpuinfo"), []byte(tc.cpuinfo), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := CPUModel(dir)
		if err != nil || got != tc.want {
			t.Errorf("CPUModel = %q, %v; want %q", got, err, tc.want)
		}
	}
	if _, err := CPUModel(t.TempDir()); err == nil {
		t.Error("no cpuinfo: no error")
	}
}

func TestMemTotal(t *testing.T) {
	dir := t.TempDir()
	writeProc(t, dir, 0)
	if got, err := MemTotal(dir); err != nil || got != 8192000*1024 {
		t.Errorf("MemTotal = %d, %v; want %d", got, err, 8192000*1024)
	}
	if err := os.WriteFile(filepath.Join(dir, "meminfo"), []byte("MemFree: 1 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MemTotal(dir); err == nil || !strings.Contains(err.Error(), "no MemTotal") {
		t.Errorf("meminfo without MemTotal: error %v", err)
	}
	if _, err := MemTotal(filepath.Join(dir, "absent")); err == nil {
		t.Error("no /proc tree: no error")
	}
	if got, err := MemTotal("/proc"); err != nil || got <= 0 {
		t.Errorf("this machine: MemTotal = %d, %v", got, err)
	}
}

package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sleeper starts a process that sleeps until the test ends.
func sleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// v1Cgroup makes a cgroup under v1's cpu controller holding pids, removed
// (its processes moved back to the root) when the test ends; it skips where
// there is no v1 cpu controller or it cannot be written.
func v1Cgroup(t *testing.T, pids ...int) Cgroup {
	t.Helper()
	root := "/sys/fs/cgroup/cpu"
	if _, err := os.Stat(filepath.Join(root, "cpu.cfs_quota_us")); err != nil {
		t.Skip("no cgroup v1 cpu controller here")
	}
	name := fmt.Sprintf("rightsize-hold-test-%d", os.Getpid())
	dir := filepath.Join(root, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a cgroup: %v", err)
	}
	t.Cleanup(func() {
		for _, p := range pids {
			_ = os.WriteFile(filepath.Join(root, "cgroup.procs"), []byte(strconv.Itoa(p)), 0o644)
		}
		_ = os.Remove(dir)
	})
	for _, p := range pids {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cg, err := CgroupOf("/proc", pids[0])
	if err != nil {
		t.Fatal(err)
	}
	cg.Role = "database"
	return cg
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestHoldSetsAndRestoresTheQuota holds a cgroup of one process to 0.5 and
// then 1.5 CPUs, each a quota over a 20 ms period that the sampler reads
// back as the limit, and puts back what it found (no limit, 100 ms).
func TestHoldSetsAndRestoresTheQuota(t *testing.T) {
	pid := sleeper(t)
	cg := v1Cgroup(t, pid)
	h, err := NewHold("/proc", cg, []Server{{Name: "sleep", PID: pid}})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Before(); got != "no limit" {
		t.Errorf("Before() = %q, want no limit", got)
	}
	period := readFile(t, filepath.Join(cg.CPUDir, "cpu.cfs_period_us"))
	for _, c := range []struct {
		cpus  float64
		quota string
	}{{0.5, "10000"}, {1.5, "30000"}} {
		if err := h.Set(c.cpus); err != nil {
			t.Fatal(err)
		}
		if q, p := readFile(t, filepath.Join(cg.CPUDir, "cpu.cfs_quota_us")), readFile(t, filepath.Join(cg.CPUDir, "cpu.cfs_period_us")); q != c.quota || p != "20000" {
			t.Errorf("Set(%g): quota %s period %s, want %s over 20000", c.cpus, q, p, c.quota)
		}
		if s := readCgroup(cg); float64(s.limit) != c.cpus {
			t.Errorf("Set(%g): the sampler reads a limit of %g", c.cpus, float64(s.limit))
		}
	}
	if err := h.Restore(); err != nil {
		t.Fatal(err)
	}
	if q, p := readFile(t, filepath.Join(cg.CPUDir, "cpu.cfs_quota_us")), readFile(t, filepath.Join(cg.CPUDir, "cpu.cfs_period_us")); q != "-1" || p != period {
		t.Errorf("after Restore: quota %s period %s, want -1 over %s", q, p, period)
	}
}

// TestHoldRefusesOthersProcesses refuses a cgroup that holds a process
// neither the server nor descended from it, and rightsize's own and the
// root cgroup, each with what is wrong.
func TestHoldRefusesOthersProcesses(t *testing.T) {
	server, other := sleeper(t), sleeper(t)
	cg := v1Cgroup(t, server, other)
	_, err := NewHold("/proc", cg, []Server{{Name: "sleep", PID: server}})
	if !errors.Is(err, ErrCannotHold) || !strings.Contains(err.Error(), strconv.Itoa(other)+" (sleep)") || strings.Contains(err.Error(), strconv.Itoa(server)+" (") {
		t.Errorf("a cgroup with another process: %v", err)
	}
	if _, err := NewHold("/proc", cg, []Server{{PID: server}, {PID: other}}); err != nil {
		t.Errorf("a cgroup of two servers: %v", err)
	}
	own := cg
	own.Role = "rightsize and database"
	if _, err := NewHold("/proc", own, nil); err == nil || !strings.Contains(err.Error(), "load generator") {
		t.Errorf("rightsize's own cgroup: %v", err)
	}
	root := cg
	root.Path = "/"
	if _, err := NewHold("/proc", root, nil); err == nil || !strings.Contains(err.Error(), "root cgroup") {
		t.Errorf("the root cgroup: %v", err)
	}
}

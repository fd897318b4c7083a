package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// halfCPUCgroup creates a cgroup limited to half a CPU (cgroup v1's cpu
// controller, with cpuacct beside it where that is mounted apart; else
// v2 where its cpu controller can be enabled) and returns the directories
// a process joins it by writing its PID to their cgroup.procs, and its
// path. It skips only where no cgroup can be created here.
func halfCPUCgroup(t *testing.T) (dirs []string, path string) {
	t.Helper()
	name := fmt.Sprintf("rightsize-test-%d", os.Getpid())
	path = "/" + name
	mk := func(dir string) bool {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return false
		}
		t.Cleanup(func() { _ = os.Remove(dir) }) // after the process in it has exited
		dirs = append(dirs, dir)
		return true
	}
	if _, err := os.Stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"); err == nil {
		if !mk(filepath.Join("/sys/fs/cgroup/cpu", name)) {
			t.Skip("cannot create a cgroup under /sys/fs/cgroup/cpu (not root?)")
		}
		write(t, filepath.Join(dirs[0], "cpu.cfs_period_us"), "100000")
		write(t, filepath.Join(dirs[0], "cpu.cfs_quota_us"), "50000")
		if fi, err := os.Stat("/sys/fs/cgroup/cpuacct"); err == nil && fi.IsDir() {
			if real, _ := filepath.EvalSymlinks("/sys/fs/cgroup/cpuacct"); real != "/sys/fs/cgroup/cpu" && real != "/sys/fs/cgroup/cpu,cpuacct" {
				mk(filepath.Join("/sys/fs/cgroup/cpuacct", name))
			}
		}
		return dirs, path
	}
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		ctl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil || !strings.Contains(" "+string(ctl)+" ", " cpu ") {
			continue
		}
		_ = os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+cpu"), 0o644)
		if !mk(filepath.Join(root, name)) {
			continue
		}
		write(t, filepath.Join(dirs[0], "cpu.max"), "50000 100000")
		return dirs, path
	}
	t.Skip("no cgroup v1 cpu controller nor a cgroup v2 hierarchy with the cpu controller here")
	return nil, ""
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSweepInHalfACPU runs a CPU-bound sweep (embedded SQLite: the
// database is in the process) inside a cgroup limited to half a CPU, then
// outside it: inside, every step shows the cgroup's throttling and the
// verdict names it; outside, neither.
func TestSweepInHalfACPU(t *testing.T) {
	dirs, cgPath := halfCPUCgroup(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "rightsize")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	sweep := func(name string, inside bool) (string, *result.Sweep) {
		args := []string{"sweep", "oltp_point_select", "--target", "sqlite:" + filepath.Join(dir, "db.sqlite"), "--prepare", "always",
			"--table-size", "1000", "--threads", "1,2", "--time", "2s", "--out", filepath.Join(dir, name+".json"), "--no-history"}
		cmd := exec.Command(bin, args...)
		if inside {
			// The shell joins the cgroup, then becomes rightsize.
			join := ""
			for _, d := range dirs {
				join += "echo $$ > " + filepath.Join(d, "cgroup.procs") + " && "
			}
			cmd = exec.Command("sh", append([]string{"-c", join + `exec "$0" "$@"`, bin}, args...)...)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", name, err, stdout.String(), stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, name+"-sweep.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sw result.Sweep
		if err := json.Unmarshal(b, &sw); err != nil {
			t.Fatal(err)
		}
		return stdout.String(), &sw
	}
	out, sw := sweep("inside", true)
	for _, st := range sw.Steps {
		var g *result.Cgroup
		for i := range st.Host.Cgroups {
			if st.Host.Cgroups[i].Path == cgPath {
				g = &st.Host.Cgroups[i]
			}
		}
		if g == nil || g.Role != "rightsize and database" || g.LimitCPUs != 0.5 || g.ThrottledPct < 25 || g.ThrottledMsPerS <= 0 {
			t.Errorf("%s: cgroups %+v, want %s of rightsize and its database, limit 0.5 CPUs, throttled in 25%% of periods or more", st.Label, st.Host.Cgroups, cgPath)
		}
	}
	for _, want := range []string{"Held back where the guest's CPU figures do not show it: threads 1 (the load generator's and database's cgroup " + cgPath + " throttled in",
		"warning: the load generator's and database's cgroup " + cgPath + ": limit 0.50 CPUs"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside the cgroup, the output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("inside:\n%s", out[strings.Index(out, "steps:"):])
	out, sw = sweep("outside", false)
	if strings.Contains(out, "throttled in") || strings.Contains(out, "Held back") {
		t.Errorf("outside the cgroup, throttling named:\n%s", out)
	}
	for _, st := range sw.Steps {
		for _, g := range st.Host.Cgroups {
			if g.Path == cgPath {
				t.Errorf("%s: the test's cgroup sampled outside it: %+v", st.Label, g)
			}
		}
	}
	t.Logf("outside:\n%s", out[strings.Index(out, "steps:"):])
}

package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/prometheus/procfs"
)

// PID is the server's main process (postmaster, mariadbd); 0 when it is
// not running.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// OwnCgroup moves the server's processes (its main process and every
// process descended from it; connections made later start in it) into a
// cgroup of their own, without a CPU limit: cgroup v1's cpu controller,
// with cpuacct where it is mounted apart, else cgroup v2 with the cpu
// controller enabled. It returns the cgroup's path in its hierarchy and
// the directory of its CPU quota. When the test ends the processes are
// moved back to the root cgroup and the cgroup removed. It skips where no
// cgroup can be made (not root, no cpu controller), as a missing server
// does under CI (fails) or elsewhere (skips).
func (s *Server) OwnCgroup(t testing.TB) (path, cpuDir string) {
	t.Helper()
	name := fmt.Sprintf("rightsize-test-%s-%d-%d", s.Kind, os.Getpid(), s.Port)
	var roots []string
	if _, err := os.Stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"); err == nil {
		roots = append(roots, "/sys/fs/cgroup/cpu")
		if real, err := filepath.EvalSymlinks("/sys/fs/cgroup/cpuacct"); err == nil && real != "/sys/fs/cgroup/cpu" && !strings.Contains(filepath.Base(real), "cpu,") {
			roots = append(roots, "/sys/fs/cgroup/cpuacct")
		}
	} else if ctl, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && strings.Contains(" "+string(ctl)+" ", " cpu ") {
		_ = os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+cpu"), 0o644)
		roots = append(roots, "/sys/fs/cgroup")
	} else {
		ServerUnavailable(t, "no cgroup v1 cpu controller nor a cgroup v2 hierarchy with the cpu controller here")
	}
	pids := s.tree(t)
	for _, root := range roots {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			ServerUnavailable(t, "cannot create a cgroup: %v (not root?)", err)
		}
		t.Cleanup(func() {
			if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
				for f := range strings.FieldsSeq(string(b)) {
					_ = os.WriteFile(filepath.Join(root, "cgroup.procs"), []byte(f), 0o644)
				}
			}
			_ = os.Remove(dir)
		})
		for _, pid := range pids {
			if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil && !errors.Is(err, syscall.ESRCH) { // gone since listed: nothing to move
				t.Fatalf("move PID %d into %s: %v", pid, dir, err)
			}
		}
	}
	return "/" + name, filepath.Join(roots[0], name)
}

// tree is the server's main process and every process descended from it.
func (s *Server) tree(t testing.TB) []int {
	t.Helper()
	root := s.PID()
	if root == 0 {
		t.Fatalf("%s is not running", s.Kind)
	}
	procs, err := procfs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	for _, p := range procs {
		if st, err := p.Stat(); err == nil {
			parent[p.PID] = st.PPID
		}
	}
	var out []int
	for pid := range parent {
		for q, n := pid, 0; q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

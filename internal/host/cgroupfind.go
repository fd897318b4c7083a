package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prometheus/procfs"
)

// Cgroup is where one control group's CPU figures are read.
type Cgroup struct {
	// Role is what runs in it ("database", "rightsize", "rightsize and
	// database"), Server the database process it was found from ("" for
	// rightsize's own and a cgroup given by path): see result.Cgroup.
	Role, Server string
	// Path is the cgroup in its hierarchy ("/system.slice/x.service").
	Path string
	// CPUDir holds cpu.stat and the quota (v1: cpu.cfs_quota_us and
	// cpu.cfs_period_us; v2: cpu.max). AcctDir holds v1's cpuacct.usage
	// ("" where v1's cpuacct is not mounted or puts the tasks in another
	// cgroup; v2 has usage_usec in cpu.stat).
	CPUDir, AcctDir string
	V2              bool
}

// ErrNoCgroup is a cgroup that cannot be found or read.
var ErrNoCgroup = errors.New("cgroup not found")

// CgroupOf is the cgroup process pid runs in (0: this process), from
// procRoot's /proc/PID/cgroup and this process's mount table.
func CgroupOf(procRoot string, pid int) (Cgroup, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	var p procfs.Proc
	if pid == 0 {
		p, err = fs.Self()
	} else {
		p, err = fs.Proc(pid)
	}
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	cgs, err := p.Cgroups()
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	mounts, err := fs.GetMounts()
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	return locate(cgs, mounts)
}

// locate finds the directories of a process's cgroup: v1's cpu hierarchy
// (with cpuacct's, which may share its mount) where the cpu controller is
// on v1, else the v2 hierarchy. A path is turned into a directory through
// the mount of its hierarchy, whose root may itself be a cgroup (inside a
// container that sees only its own part of the tree).
func locate(cgs []procfs.Cgroup, mounts []*procfs.MountInfo) (Cgroup, error) {
	v1 := func(ctrl string) (string, string, bool) {
		for _, c := range cgs {
			if c.HierarchyID == 0 || !slices.Contains(c.Controllers, ctrl) {
				continue
			}
			for _, m := range mounts {
				if _, ok := m.SuperOptions[ctrl]; ok && m.FSType == "cgroup" {
					if dir, ok := under(m, c.Path); ok {
						return c.Path, dir, true
					}
				}
			}
		}
		return "", "", false
	}
	if path, dir, ok := v1("cpu"); ok {
		c := Cgroup{Path: path, CPUDir: dir}
		// cpuacct counts the same tasks only when they are in the same
		// cgroup of its own hierarchy (a mount it shares with cpu, or one
		// kept alike, as systemd and container engines do).
		if apath, acct, ok := v1("cpuacct"); ok && apath == path {
			c.AcctDir = acct
		}
		return c, nil
	}
	for _, c := range cgs {
		if c.HierarchyID != 0 {
			continue
		}
		for _, m := range mounts {
			if m.FSType != "cgroup2" {
				continue
			}
			if dir, ok := under(m, c.Path); ok {
				return Cgroup{Path: c.Path, CPUDir: dir, V2: true}, nil
			}
		}
	}
	return Cgroup{}, fmt.Errorf("%w: neither a cgroup v1 cpu controller nor a cgroup v2 hierarchy is mounted where this process can read it", ErrNoCgroup)
}

// under is the directory of cgroup path in mount m: its mount point and the
// path below the mount's root; false when the path is outside that root.
func under(m *procfs.MountInfo, path string) (string, bool) {
	rel, ok := strings.CutPrefix(path, m.Root)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/") && m.Root != "/") {
		return "", false
	}
	return filepath.Join(m.MountPoint, rel), true
}

// CgroupAt is the cgroup the user named (--db-cgroup): a directory of a
// mounted cgroup hierarchy ("/sys/fs/cgroup/system.slice/x.service",
// "/sys/fs/cgroup/cpu/docker/ID"), or a path within the hierarchy that
// holds the cpu controller ("/system.slice/x.service"). Its cpu.stat must
// be readable.
func CgroupAt(procRoot, path string) (Cgroup, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	mounts, err := fs.GetMounts()
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // /sys/fs/cgroup/cpu -> cpu,cpuacct, the mount's name
	}
	cg, err := at(mounts, path, func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, "cpu.stat"))
		return err == nil
	})
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	return cg, nil
}

// at resolves a cgroup the user named against the mount table; exists
// reports whether a directory holds a cpu.stat.
func at(mounts []*procfs.MountInfo, path string, exists func(dir string) bool) (Cgroup, error) {
	var v1cpu, v1acct, v2 *procfs.MountInfo
	for _, m := range mounts {
		switch _, cpu := m.SuperOptions["cpu"]; {
		case m.FSType == "cgroup" && cpu:
			v1cpu = m
		case m.FSType == "cgroup2" && v2 == nil:
			v2 = m
		}
		if _, acct := m.SuperOptions["cpuacct"]; m.FSType == "cgroup" && acct {
			v1acct = m
		}
	}
	inHierarchy := func(m *procfs.MountInfo, rel string) Cgroup {
		cg := Cgroup{Path: filepath.Join(m.Root, rel), CPUDir: filepath.Join(m.MountPoint, rel), V2: m.FSType == "cgroup2"}
		if !cg.V2 && v1acct != nil {
			cg.AcctDir = filepath.Join(v1acct.MountPoint, rel)
		}
		return cg
	}
	// A directory of a mounted hierarchy, the cpu one first.
	for _, m := range []*procfs.MountInfo{v1cpu, v2} {
		if m == nil {
			continue
		}
		if rel, ok := strings.CutPrefix(path, m.MountPoint); ok && (rel == "" || strings.HasPrefix(rel, "/")) {
			cg := inHierarchy(m, rel)
			if !exists(cg.CPUDir) {
				return Cgroup{}, fmt.Errorf("no cpu.stat there (the cpu controller is not enabled on it, or it does not exist)")
			}
			return cg, nil
		}
	}
	// A path within the hierarchy that holds the cpu controller.
	for _, m := range []*procfs.MountInfo{v1cpu, v2} {
		if m == nil || !strings.HasPrefix(path, "/") {
			continue
		}
		rel, ok := strings.CutPrefix(path, strings.TrimSuffix(m.Root, "/"))
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		if cg := inHierarchy(m, rel); exists(cg.CPUDir) {
			return cg, nil
		}
	}
	return Cgroup{}, fmt.Errorf("not a cgroup with a cpu.stat: give its directory under a mounted cgroup hierarchy (e.g. /sys/fs/cgroup/system.slice/NAME.service, or /sys/fs/cgroup/cpu/NAME for cgroup v1)")
}

// mergeCgroups keeps each cgroup once: roles found in one cgroup become one
// ("rightsize and database"), as do the servers found in it.
func mergeCgroups(cgs []Cgroup) []Cgroup {
	var out []Cgroup
	for _, c := range cgs {
		i := slices.IndexFunc(out, func(o Cgroup) bool { return o.CPUDir == c.CPUDir })
		if i < 0 {
			out = append(out, c)
			continue
		}
		o := &out[i]
		if o.Role != c.Role && !strings.Contains(o.Role, " and ") {
			o.Role = "rightsize and database"
		}
		if c.Server != "" && !strings.Contains(o.Server, c.Server) {
			o.Server = strings.TrimPrefix(o.Server+", "+c.Server, ", ")
		}
	}
	return out
}

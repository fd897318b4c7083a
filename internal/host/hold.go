package host

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// HoldPeriodUs is the CPU bandwidth period an allotment is enforced over:
// short, so that a fraction of a CPU is a slower CPU more than a CPU that
// stops for long (a 100 ms period lets 0.5 CPU stall an event 50 ms), and
// long enough that its accounting costs little.
const HoldPeriodUs = 20000

// MinHoldCPUs is the smallest allotment: the kernel's least quota, 1 ms,
// of the period.
const MinHoldCPUs = 1000.0 / HoldPeriodUs

// ErrCannotHold is a database whose CPUs rightsize may not or cannot set.
var ErrCannotHold = errors.New("cannot hold the database to an allotment of CPUs")

// Hold sets the CPU allotment of the database's cgroup by its CPU
// bandwidth quota (cgroup v1's cpu.cfs_quota_us over cpu.cfs_period_us,
// v2's cpu.max) and puts back what it found there (Restore).
type Hold struct {
	cg Cgroup
	// saved is the quota and period as found (v1: the two files; v2:
	// cpu.max's line).
	savedQuota, savedPeriod string
	set                     bool
}

// NewHold checks that the database's cgroup cg may be held (it is the
// database's alone, not the root, not rightsize's own) and reads what it
// holds now. servers are the database's processes on this host as found
// from its address: every process in the cgroup must be one of them or
// descended from one (else holding the cgroup would hold others too);
// none found (a cgroup --db-cgroup named, for a server not found) is the
// user's word that it is the database's.
func NewHold(procRoot string, cg Cgroup, servers []Server) (*Hold, error) {
	switch {
	case cg.Role != "database":
		return nil, fmt.Errorf("%w: the database runs in rightsize's own cgroup %s (an embedded database, or the server and rightsize in one cgroup): holding it would hold the load generator too", ErrCannotHold, cg.Path)
	case cg.Path == "/" || cg.Path == "":
		return nil, fmt.Errorf("%w: the database runs in the root cgroup, which has no quota: run it in a cgroup of its own (a systemd service, a container) or name one with --db-cgroup", ErrCannotHold)
	}
	if err := onlyServers(procRoot, cg, servers); err != nil {
		return nil, err
	}
	h := &Hold{cg: cg}
	var err error
	if cg.V2 {
		h.savedQuota, err = readTrim(filepath.Join(cg.CPUDir, "cpu.max"))
	} else {
		h.savedQuota, err = readTrim(filepath.Join(cg.CPUDir, "cpu.cfs_quota_us"))
		if err == nil {
			h.savedPeriod, err = readTrim(filepath.Join(cg.CPUDir, "cpu.cfs_period_us"))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotHold, err)
	}
	return h, nil
}

// Path is the held cgroup's path in its hierarchy.
func (h *Hold) Path() string { return h.cg.Path }

// Before says what the cgroup held before: "no limit", or its CPUs.
func (h *Hold) Before() string {
	var q Quota
	var err error
	if h.cg.V2 {
		q, err = ParseCPUMax([]byte(h.savedQuota))
	} else {
		q, err = ParseCFSQuota([]byte(h.savedQuota), []byte(h.savedPeriod))
	}
	switch {
	case err != nil:
		return "unreadable"
	case math.IsInf(float64(q), 1):
		return "no limit"
	}
	return strconv.FormatFloat(float64(q), 'g', 4, 64) + " CPUs"
}

// Set holds the cgroup to cpus CPUs: a quota of cpus periods of
// HoldPeriodUs.
func (h *Hold) Set(cpus float64) error {
	if !(cpus >= MinHoldCPUs) {
		return fmt.Errorf("%w: %g CPUs: want at least %g", ErrCannotHold, cpus, MinHoldCPUs)
	}
	q := strconv.FormatInt(int64(math.Round(cpus*HoldPeriodUs)), 10)
	p := strconv.Itoa(HoldPeriodUs)
	h.set = true
	if h.cg.V2 {
		return h.write("cpu.max", q+" "+p)
	}
	// No quota first: a new period under the old quota, or the reverse,
	// may be refused as more than the parent allows in between.
	return errors.Join(h.write("cpu.cfs_quota_us", "-1"), h.write("cpu.cfs_period_us", p), h.write("cpu.cfs_quota_us", q))
}

// Restore puts back the quota and period found (nothing when Set was
// never called).
func (h *Hold) Restore() error {
	if !h.set {
		return nil
	}
	h.set = false
	if h.cg.V2 {
		return h.write("cpu.max", h.savedQuota)
	}
	return errors.Join(h.write("cpu.cfs_quota_us", "-1"), h.write("cpu.cfs_period_us", h.savedPeriod), h.write("cpu.cfs_quota_us", h.savedQuota))
}

func (h *Hold) write(file, value string) error {
	path := filepath.Join(h.cg.CPUDir, file)
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("%w: write %s to %s: %v", ErrCannotHold, value, path, err)
	}
	return nil
}

func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// onlyServers checks that every process in cg is one of servers or
// descended from one (none: not checked).
func onlyServers(procRoot string, cg Cgroup, servers []Server) error {
	if len(servers) == 0 {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(cg.CPUDir, "cgroup.procs"))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCannotHold, err)
	}
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCannotHold, err)
	}
	roots := map[int]bool{}
	for _, s := range servers {
		roots[s.PID] = true
	}
	var others []string
	for f := range strings.FieldsSeq(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil || descends(fs, pid, roots) {
			continue
		}
		others = append(others, f+" ("+comm(fs, pid)+")")
	}
	if len(others) > 0 {
		if len(others) > 5 {
			others = append(others[:5], fmt.Sprintf("and %d more", len(others)-5))
		}
		return fmt.Errorf("%w: its cgroup %s also holds processes that are not the database server's: %s; give the database a cgroup of its own (--db-cgroup)", ErrCannotHold, cg.Path, strings.Join(others, ", "))
	}
	return nil
}

// descends reports whether pid is one of roots or descended from one; a
// process that is gone counts as one of them (it can no longer be held).
func descends(fs procfs.FS, pid int, roots map[int]bool) bool {
	for range 64 {
		if roots[pid] {
			return true
		}
		p, err := fs.Proc(pid)
		if err != nil {
			return true
		}
		st, err := p.Stat()
		if err != nil {
			return true
		}
		if st.PPID <= 1 {
			return false
		}
		pid = st.PPID
	}
	return false
}

func comm(fs procfs.FS, pid int) string {
	if p, err := fs.Proc(pid); err == nil {
		if c, err := p.Comm(); err == nil {
			return c
		}
	}
	return "?"
}

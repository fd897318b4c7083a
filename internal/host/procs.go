package host

import (
	"errors"
	"fmt"

	"github.com/prometheus/procfs"

	"github.com/rightsize/rightsize/internal/result"
)

// ErrServerGone is a watched server process that no longer runs (or
// runs as another process under its PID: its start time changed).
var ErrServerGone = errors.New("the server process is gone")

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's CPU
// times: 100 on every Linux architecture rightsize runs on (procfs assumes
// the same).
const clockTicks = 100

// Server is a database server's process tree on this host whose CPU a
// Sampler reads: the process listening at the server's address (Listener)
// and every process descended from it.
type Server struct {
	// Name names it in results ("postgres (PID 2243)"); Address is where it
	// was found ("tcp 127.0.0.1:5432").
	Name, Address string
	PID           int
}

// procTimes is one process's line of /proc/PID/stat, as far as the tree's
// CPU needs it. Times are in clock ticks.
type procTimes struct {
	PID, PPID int
	Start     uint64 // the process's start time, in ticks after boot
	// Own is utime + stime, Reaped cutime + cstime: the CPU of the
	// children it has waited for (the kernel adds a child's times, and its
	// own reaped children's, to its parent's when the parent reaps it).
	Own, Reaped uint64
}

// treeSnap is a server tree's CPU at one moment.
type treeSnap struct {
	ticks uint64 // Own + Reaped over the tree
	procs int    // processes in the tree
	start uint64 // the root's start time
	ok    bool
}

// treeCPU sums the CPU of root and its descendants among ps: every live
// process's own time and the time of the children it reaped. Summed this
// way the total only grows while the tree lives: a child that exits moves
// its time into its parent's reaped time when the parent waits for it
// (PostgreSQL's postmaster reaps each backend), so a connection's backend
// that came and went between two samples is still counted. What it misses:
// a child's time between its exit and its reaping (a zombie still shows its
// own times, so only a process already reaped by a parent outside the tree
// is lost), and the reaped time of a child whose parent ignores SIGCHLD
// (then the kernel adds it nowhere).
func treeCPU(ps []procTimes, root int) treeSnap {
	children := map[int][]int{}
	byPID := map[int]procTimes{}
	for _, p := range ps {
		byPID[p.PID] = p
		if p.PID != p.PPID {
			children[p.PPID] = append(children[p.PPID], p.PID)
		}
	}
	r, ok := byPID[root]
	if !ok {
		return treeSnap{}
	}
	s := treeSnap{ok: true, start: r.Start}
	seen := map[int]bool{}
	stack := []int{root}
	for len(stack) > 0 {
		pid := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		p := byPID[pid]
		s.ticks += p.Own + p.Reaped
		s.procs++
		stack = append(stack, children[pid]...)
	}
	return s
}

// readProcs reads every process's CPU times from fs (those that vanish
// while it reads are left out).
func readProcs(fs procfs.FS) ([]procTimes, error) {
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, err
	}
	out := make([]procTimes, 0, len(procs))
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // exited meanwhile
		}
		out = append(out, procTimes{PID: st.PID, PPID: st.PPID, Start: st.Starttime,
			Own: uint64(st.UTime + st.STime), Reaped: uint64(max(0, st.CUTime+st.CSTime))})
	}
	return out, nil
}

// treeDelta is a server tree's CPU between two snapshots secs apart, and
// whether there is a figure: none when the root is gone or was replaced
// (a restarted server). A total that fell (a child exited and was reaped
// outside the tree) counts as no CPU, not less than none.
func treeDelta(srv Server, prev, cur treeSnap, secs float64) (result.ServerCPU, bool) {
	if !prev.ok || !cur.ok || prev.start != cur.start || secs <= 0 {
		return result.ServerCPU{}, false
	}
	used := 0.0
	if cur.ticks > prev.ticks {
		used = float64(cur.ticks-prev.ticks) / clockTicks / secs
	}
	return result.ServerCPU{Server: srv.Name, Address: srv.Address, UsedCPUs: used, Processes: float64(cur.procs)}, true
}

// WatchServer adds a database server's process tree to what the sampler
// reads from its next sample on (ErrServerGone when srv.PID does not run).
func (s *Sampler) WatchServer(srv Server) error {
	ps, err := readProcs(s.fs)
	if err != nil {
		return fmt.Errorf("server CPU: %w", err)
	}
	snap := treeCPU(ps, srv.PID)
	if !snap.ok {
		return fmt.Errorf("%w: %s", ErrServerGone, srv.Name)
	}
	s.servers = append(s.servers, srv)
	s.last.srv = append(s.last.srv, snap)
	return nil
}

// readServers snapshots the watched servers' trees (nil when none are).
func (s *Sampler) readServers() []treeSnap {
	if len(s.servers) == 0 {
		return nil
	}
	ps, err := readProcs(s.fs)
	out := make([]treeSnap, len(s.servers))
	if err != nil {
		return out // no figure this time
	}
	for i, srv := range s.servers {
		out[i] = treeCPU(ps, srv.PID)
	}
	return out
}

package host

import (
	"testing"
)

// A PostgreSQL-like tree: the postmaster (100), its background processes
// and backends, a backend's own child (a parallel worker under it, say), and
// processes outside the tree.
func pgTree() []procTimes {
	return []procTimes{
		{PID: 1, PPID: 0, Own: 1000},
		{PID: 100, PPID: 1, Start: 50, Own: 10, Reaped: 200},
		{PID: 101, PPID: 100, Own: 5},
		{PID: 102, PPID: 100, Own: 30, Reaped: 7},
		{PID: 103, PPID: 102, Own: 4},
		{PID: 200, PPID: 1, Own: 900}, // the load generator
	}
}

func TestTreeCPU(t *testing.T) {
	s := treeCPU(pgTree(), 100)
	if !s.ok || s.ticks != 10+200+5+30+7+4 || s.procs != 4 || s.start != 50 {
		t.Errorf("tree %+v, want 256 ticks over 4 processes", s)
	}
	if s := treeCPU(pgTree(), 999); s.ok {
		t.Errorf("a root that does not run: %+v", s)
	}
	// A cycle (a PID reused as its own ancestor's parent) ends.
	if s := treeCPU([]procTimes{{PID: 5, PPID: 6, Own: 1}, {PID: 6, PPID: 5, Own: 2}}, 5); s.ticks != 3 || s.procs != 2 {
		t.Errorf("cycle: %+v", s)
	}
}

// A backend that exits between two samples and is reaped by the postmaster
// moves its time into the postmaster's reaped time: nothing is lost and
// nothing counted twice.
func TestTreeDeltaExitedBackend(t *testing.T) {
	srv := Server{Name: "postgres (PID 100)", Address: "tcp 127.0.0.1:5432", PID: 100}
	before := pgTree()
	after := pgTree()
	after[1].Own += 20                                             // the postmaster
	after[1].Reaped += after[2].Own + 45                           // backend 101 ran 45 more ticks, exited, was reaped
	after = append(after[:2], after[3:]...)                        // 101 is gone
	after = append(after, procTimes{PID: 104, PPID: 100, Own: 15}) // a new backend
	c, ok := treeDelta(srv, treeCPU(before, 100), treeCPU(after, 100), 2)
	if !ok || c.UsedCPUs != float64(20+45+15)/clockTicks/2 || c.Processes != 4 || c.Server != srv.Name || c.Address != srv.Address {
		t.Errorf("delta %+v, %v; want 0.4 CPUs over 4 processes", c, ok)
	}
	// A restarted server (the root's start time changed) gives no figure;
	// a total that fell gives 0, not less.
	restarted := pgTree()
	restarted[1].Start = 99
	if _, ok := treeDelta(srv, treeCPU(before, 100), treeCPU(restarted, 100), 1); ok {
		t.Error("a restarted server gave a figure")
	}
	fell := pgTree()
	fell = fell[:4] // 103 reaped by nobody in the tree
	if c, ok := treeDelta(srv, treeCPU(before, 100), treeCPU(fell, 100), 1); !ok || c.UsedCPUs != 0 {
		t.Errorf("a total that fell: %+v, %v; want 0", c, ok)
	}
}

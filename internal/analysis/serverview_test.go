package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

func server(waits ...result.Wait) *result.ServerStats {
	s := &result.ServerStats{Source: "pg_stat_activity", Samples: 100, Waits: waits}
	for _, w := range waits {
		s.Active += w.Samples
	}
	return s
}

// The server's view at the limit's step names the dominant wait class and
// squares it with the host: row locks with idle CPUs are no CPU shortage,
// sessions on CPU with the host CPU-bound are, and sessions waiting for
// their client point at the generator.
func TestServerViewOf(t *testing.T) {
	locks := server(result.Wait{Type: "Lock", Event: "transactionid", Samples: 200}, result.Wait{Type: "Lock", Event: "tuple", Samples: 60}, result.Wait{Type: "CPU", Samples: 90})
	cpu := server(result.Wait{Type: "CPU", Samples: 300}, result.Wait{Type: "Client", Event: "ClientRead", Samples: 50})
	client := server(result.Wait{Type: "Client", Event: "ClientRead", Samples: 80}, result.Wait{Type: "CPU", Samples: 20})
	commit := server(result.Wait{Type: "LWLock", Event: "WALWrite", Samples: 86}, result.Wait{Type: "CPU", Samples: 12}, result.Wait{Type: "IO", Event: "WALSync", Samples: 2})
	mixed := server(result.Wait{Type: "CPU", Samples: 35}, result.Wait{Type: "Lock", Event: "tuple", Samples: 33}, result.Wait{Type: "IO", Event: "DataFileRead", Samples: 32})
	idle := &Bottleneck{HostIsServer: true, BusyPct: 35, Limit: Elsewhere}
	busy := &Bottleneck{HostIsServer: true, BusyPct: 96, Limit: CPUBound}
	for _, c := range []struct {
		name         string
		s            *result.ServerStats
		b            *Bottleneck
		class, check string
		top          string
	}{
		{"row locks, idle CPUs", locks, idle, WaitLocks, CheckNotCPU, "Lock:transactionid"},
		{"row locks, busy CPUs", locks, busy, WaitLocks, "", "Lock:transactionid"},         // 26 % on CPU, the host busy: cannot say
		{"row locks, no host figures", locks, nil, WaitLocks, "", "Lock:transactionid"},    // 26 % on CPU: not few enough to say
		{"log waits, busy CPUs", commit, busy, WaitCommit, CheckNotCPU, "LWLock:WALWrite"}, // 12 % on CPU: the CPU went elsewhere
		{"on CPU, CPU-bound", cpu, busy, WaitCPU, CheckCPU, "CPU"},
		{"on CPU, idle host", cpu, idle, WaitCPU, "", "CPU"},
		{"waiting for the client", client, idle, WaitClient, CheckClient, "Client:ClientRead"},
		{"nothing dominates", mixed, idle, "", "", "CPU"},
	} {
		steps := []result.SweepStep{{Label: "a"}, {Label: "b", ServerStats: c.s}}
		v := ServerViewOf(steps, 1, c.b)
		if v == nil || v.Class != c.class || v.Check != c.check || v.Top[0].Name != c.top || v.Step != 1 {
			t.Errorf("%s: %+v; want class %q, check %q, top %s", c.name, v, c.class, c.check, c.top)
		}
	}
	idleTx := server(result.Wait{Type: "CPU", Samples: 5})
	idleTx.IdleInTx = 390 // 3.9 sessions idle in their transactions, 0.05 working
	if v := ServerViewOf([]result.SweepStep{{ServerStats: idleTx}}, 0, idle); v.Check != CheckClient || v.IdleInTx != 3.9 {
		t.Errorf("sessions idle in their transactions: %+v, want the client cross-check", v)
	}
	if v := ServerViewOf([]result.SweepStep{{ServerStats: commit}}, 0, busy); !v.HostBusy {
		t.Errorf("log waits on a CPU-bound host: HostBusy not set: %+v", v)
	}
	// An embedded database's lock waits counted by its client, on a
	// CPU-bound host: its writer runs on those CPUs, so no claim.
	sqlite := server(result.Wait{Type: "Lock", Event: "database", Samples: 88}, result.Wait{Type: "CPU", Samples: 12})
	sqlite.Source = "client"
	if v := ServerViewOf([]result.SweepStep{{ServerStats: sqlite}}, 0, busy); v.Class != WaitLocks || v.Check != "" {
		t.Errorf("SQLite's lock waits on a busy host: %+v, want no cross-check", v)
	}
	if v := ServerViewOf([]result.SweepStep{{ServerStats: sqlite}}, 0, idle); v.Check != CheckNotCPU {
		t.Errorf("SQLite's lock waits with idle CPUs: %+v, want not CPU", v)
	}
	if v := ServerViewOf([]result.SweepStep{{Label: "a"}}, 0, idle); v != nil {
		t.Errorf("no server figures: %+v", v)
	}
	if v := ServerViewOf(nil, -1, nil); v != nil {
		t.Errorf("no step: %+v", v)
	}
	// A lock-bound sweep's diagnosis carries the view of its limit's step.
	sw := &result.Sweep{Axis: "threads", HostIsServer: true}
	for i, x := range []float64{1, 2, 4, 8} {
		st := result.SweepStep{Label: "threads " + string(rune('1'+i)), X: x, Throughput: []float64{100, 180, 200, 201}[i], P99Ms: x,
			Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 20, System: 10}}, ServerStats: locks}
		sw.Steps = append(sw.Steps, st)
	}
	r := Analyze(sw, OptionsOf(sw))
	if d := r.Diagnosis; d.Server == nil || d.Server.Step != d.Limit.Step || d.Server.Check != CheckNotCPU {
		t.Errorf("diagnosis server view %+v at limit %+v", d.Server, d.Limit)
	}
}

// TestCPUTakenByOthers: a CPU-bound host whose database processes used
// less than half of the busy CPU, or whose sessions on CPU were too few to
// keep half the CPUs busy, never makes the database's CPU the limit
// (issue 49 item 6: 0.26 CPUs of the server's on a 97 % busy host; 0.07
// active sessions at 11.9/s).
func TestCPUTakenByOthers(t *testing.T) {
	host := func(serverCPUs float64) *result.Host {
		return &result.Host{CPUs: 2, CPU: result.CPUPct{User: 80, System: 17},
			ServerCPU: []result.ServerCPU{{Server: "postgres (PID 1)", UsedCPUs: serverCPUs, Processes: 8}}}
	}
	others := BottleneckOf(host(0.26), true)
	if others.Limit != CPUBound || !others.OthersTook || others.ServerCPUs == nil || *others.ServerCPUs != 0.26 {
		t.Errorf("0.26 of 1.94 busy CPUs: %+v, want CPU-bound, others took it", others)
	}
	if own := BottleneckOf(host(1.8), true); own.OthersTook {
		t.Errorf("1.8 of 1.94 busy CPUs: %+v, want the database's own", own)
	}
	if remote := BottleneckOf(host(0.26), false); remote.OthersTook || remote.ServerCPUs != nil {
		t.Errorf("a database elsewhere: %+v, want no claim about its processes", remote)
	}
	cpu := server(result.Wait{Type: "CPU", Samples: 300})
	if v := ServerViewOf([]result.SweepStep{{ServerStats: cpu}}, 0, others); v.Check == CheckCPU {
		t.Errorf("sessions on CPU, the CPU taken by others: %+v, want no CPU verdict", v)
	}
	own := BottleneckOf(host(1.8), true)
	if v := ServerViewOf([]result.SweepStep{{ServerStats: cpu}}, 0, own); v.Check != CheckCPU {
		t.Errorf("3 sessions on CPU, the database's CPU: %+v, want the CPU verdict", v)
	}
	few := server(result.Wait{Type: "CPU", Samples: 7}) // 0.07 active sessions
	if v := ServerViewOf([]result.SweepStep{{ServerStats: few}}, 0, own); v.Check == CheckCPU {
		t.Errorf("0.07 sessions on CPU: %+v, want no CPU verdict", v)
	}
}

// TestNoKneeWhenEveryStepKeptUp: the sweep, 1x to 5x of 210/s,
// every step done as offered: no knee (Kneedle had named 3x, bent "0 % of
// the range above the chord"), and a curve bent 2 % is straight.
func TestNoKneeWhenEveryStepKeptUp(t *testing.T) {
	sw := &result.Sweep{Axis: "rate", HostIsServer: true}
	for i, done := range []float64{209, 419, 629, 838, 1048} {
		offered := 209.6 * float64(i+1)
		sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprintf("%dx", i+1), X: offered, Offered: offered, Throughput: done, P99Ms: []float64{43, 21, 25, 31, 152}[i]})
	}
	r := Analyze(sw, OptionsOf(sw))
	if r.Knee != nil {
		t.Errorf("a knee at %s: %s", r.Steps[r.Knee.Index].Label, r.Knee.Reason)
	}
	for _, k := range r.Knees {
		if k.Index >= 0 {
			t.Errorf("%s found a knee: %s", k.Method, k.Reason)
		}
	}
	straight := []Point{{X: 1, Throughput: 100}, {X: 2, Throughput: 190}, {X: 4, Throughput: 370}, {X: 8, Throughput: 700}}
	if k := Kneedle(straight); k.Index >= 0 || !strings.Contains(k.Reason, "straight") {
		t.Errorf("a curve bent 2 %%: %+v", k)
	}
}

package analysis

import "github.com/rightsize/rightsize/internal/result"

// DominantWaitPct is the share of a server's active sessions from which a
// wait class is what held it (ServerView.Class).
const DominantWaitPct = 40

// ClientIdleRatio is how many times the active sessions the sessions idle
// inside a transaction (waiting for their client's next statement) must be,
// and at least half a session, for the server to have waited on its
// client (CheckClient).
const ClientIdleRatio = 2

// NotCPUBusyPct is the host CPU (busy: user + system) under which a
// server held by its waits (locks, contention, the log, data I/O) is not
// short of CPU: more vCPUs would not help.
const NotCPUBusyPct = 80

// Cross-checks of the server's view with the host's (ServerView.Check).
const (
	// CheckClient: the server's sessions mostly waited for their client
	// (Client:ClientRead), or sat idle inside their transactions twice as
	// much as they worked (ClientIdleRatio): the load generator or the
	// network was the limit, not the database.
	CheckClient = "client"
	// CheckCPU: the sessions were mostly on CPU and the host was
	// CPU-bound: the database's CPU is the limit.
	CheckCPU = "cpu"
	// CheckNotCPU: the sessions mostly waited on locks, the server's own
	// contention, the log or data I/O while the host's CPUs were not busy:
	// adding vCPUs would not raise the knee.
	CheckNotCPU = "not_cpu"
)

// ServerView is what the database's own sessions say held it at a step
// (the step of the sweep's limit): its average active sessions, by wait
// class and by event, the class that dominated, and how that squares with
// the host's figures.
type ServerView struct {
	Step      int     `json:"step"` // into the Result's Steps
	AvgActive float64 `json:"avg_active"`
	// IdleInTx is the average sessions idle inside a transaction.
	IdleInTx float64     `json:"idle_in_transaction,omitempty"`
	Classes  []WaitShare `json:"classes,omitempty"`
	Top      []WaitShare `json:"top,omitempty"`
	// Class is the largest wait class when it is DominantWaitPct of the
	// active sessions or more; "" when none is.
	Class string `json:"class,omitempty"`
	// Check is the cross-check with the host (CheckClient, CheckCPU,
	// CheckNotCPU); "" when none applies.
	Check string `json:"check,omitempty"`
	// HostBusy: with CheckNotCPU, the host was CPU-bound all the same:
	// its CPU went to other processes than the database's sessions.
	HostBusy bool `json:"host_busy,omitempty"`
	// Note is the server figures' own (what could not be read).
	Note string `json:"note,omitempty"`
}

// ServerViewOf is step i's server view, with b the host's bottleneck
// there (nil: no host figures); nil when the step has no server figures.
// Sessions idle inside their transactions are not in the classes (the
// server does nothing for them), but twice the active sessions of them
// are a server waiting on its client.
func ServerViewOf(steps []result.SweepStep, i int, b *Bottleneck) *ServerView {
	if i < 0 || i >= len(steps) || steps[i].ServerStats == nil {
		return nil
	}
	s := steps[i].ServerStats
	v := &ServerView{Step: i, AvgActive: s.AvgActive(), Classes: WaitClassesOf(s), Top: TopWaits(s, 3), Note: s.Note}
	if len(v.Classes) > 0 && v.Classes[0].Pct >= DominantWaitPct {
		v.Class = v.Classes[0].Name
	}
	v.IdleInTx = s.AvgIdleInTx()
	if v.Class == WaitClient || v.IdleInTx >= 0.5 && v.IdleInTx >= ClientIdleRatio*v.AvgActive {
		v.Check = CheckClient
		return v
	}
	switch v.Class {
	case WaitCPU:
		// The database's CPU is the limit when the host was CPU-bound with
		// the database's own work: not when other processes took most of
		// the busy CPU, nor when its sessions on CPU were too few to keep
		// half the CPUs busy (0.07 active sessions at 11.9/s).
		onCPU := v.AvgActive * v.pct(WaitCPU) / 100
		if b != nil && b.HostIsServer && b.Limit == CPUBound && !b.OthersTook && (b.CPUs == 0 || onCPU >= 0.5*float64(b.CPUs)) {
			v.Check = CheckCPU
		}
	case WaitLocks, WaitInternal, WaitCommit, WaitDataIO:
		// Few sessions on CPU, or the host's CPUs not busy: CPU is not
		// what they lacked. A host CPU-bound all the same spent its CPU
		// elsewhere (the load generator, other processes): HostBusy. That
		// holds of a server's own view only: an embedded database's waits
		// counted by its client (SQLite's write lock, Source "client")
		// queue behind a writer that runs on the same busy CPUs.
		few := v.pct(WaitCPU) < 100-2*DominantWaitPct && s.Source != "client"
		if few || b != nil && b.HostIsServer && b.BusyPct < NotCPUBusyPct {
			v.Check = CheckNotCPU
			v.HostBusy = b != nil && b.HostIsServer && b.Limit == CPUBound
		}
	}
	return v
}

// pct is class's share of the active sessions (0: none).
func (v *ServerView) pct(class string) float64 {
	for _, c := range v.Classes {
		if c.Name == class {
			return c.Pct
		}
	}
	return 0
}

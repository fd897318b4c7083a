package result

import (
	"cmp"
	"slices"
)

// ServerStats is what a database server said about itself over a step's
// measured window (the warm-up left out), sampled on one monitoring
// connection apart from the virtual users: its sessions' wait events (an
// Active Session History in short) and the deltas of its own counters.
// It holds raw figures only; analysis classes the events (analysis.WaitClass).
type ServerStats struct {
	// Source names what was read ("pg_stat_activity", "performance_schema",
	// "processlist"), Product the server ("PostgreSQL", "MariaDB").
	Source  string `json:"source"`
	Product string `json:"product,omitempty"`
	// IntervalMs is the sampling interval in milliseconds; Samples the
	// samples taken in the window.
	IntervalMs float64 `json:"interval_ms"`
	Samples    int64   `json:"samples"`
	// Active is the active sessions added up over the samples (session
	// samples); Active / Samples is the average active sessions.
	Active int64 `json:"active"`
	// Waits are the active session samples by what the session was doing,
	// most first: Type "CPU" (Event "") for on CPU (active, no wait event),
	// else the server's wait event type and name ("Lock", "transactionid").
	// They add up to Active.
	Waits []Wait `json:"waits,omitempty"`
	// IdleInTx counts the session samples idle inside a transaction (the
	// server holding its locks while it waits for the client's next
	// statement): not in Active, which is the server's own work and waits.
	IdleInTx int64 `json:"idle_in_transaction,omitempty"`
	// Hidden counts the session samples the monitoring user could not see
	// (another user's sessions without pg_read_all_stats): not in Active.
	Hidden int64 `json:"hidden,omitempty"`
	// DurationS is the wall time the counters' deltas cover (between the
	// snapshots at the window's edges); Counters are those deltas, named
	// view.column ("pg_stat_database.xact_commit",
	// "pg_stat_wal.wal_sync_time": milliseconds as the server counts
	// them; MySQL's and MariaDB's SHOW GLOBAL STATUS counters are
	// "status.Com_commit", ...). A counter the server does not have is
	// absent. A gauge (status.Threads_running, less the monitor's own;
	// status.Innodb_row_lock_current_waits) is its mean over the
	// readings at the window's report-interval ends, not a delta.
	DurationS float64            `json:"duration_s,omitempty"`
	Counters  map[string]float64 `json:"counters,omitempty"`
	// Statements are the statements that took the most of the server's
	// time in the window, most first (at most TopStatements), when the
	// server counts them per statement (pg_stat_statements installed;
	// performance_schema's statement digests on).
	Statements []Statement `json:"statements,omitempty"`
	// Note says what could not be read, and how to let it be (a grant, a
	// setting); absent when everything was read.
	Note string `json:"note,omitempty"`
}

// TopStatements is how many statements a server's figures keep.
const TopStatements = 5

// Wait is one wait event's active session samples.
type Wait struct {
	Type    string `json:"type"`            // "CPU", or the wait event's type ("Lock", "LWLock", "IO", "Client", ...)
	Event   string `json:"event,omitempty"` // the wait event ("transactionid"); empty for CPU
	Samples int64  `json:"samples"`
}

// Name is the wait as a DBA reads it: "CPU" or "Type:Event".
func (w Wait) Name() string {
	if w.Event == "" {
		return w.Type
	}
	return w.Type + ":" + w.Event
}

// AvgActive is the average active sessions over the samples (0 without
// samples).
func (s *ServerStats) AvgActive() float64 {
	if s == nil || s.Samples == 0 {
		return 0
	}
	return float64(s.Active) / float64(s.Samples)
}

// AvgIdleInTx is the average sessions idle inside a transaction (0
// without samples).
func (s *ServerStats) AvgIdleInTx() float64 {
	if s == nil || s.Samples == 0 {
		return 0
	}
	return float64(s.IdleInTx) / float64(s.Samples)
}

// Rate is counter name's delta per second of DurationS, and whether the
// server counted it.
func (s *ServerStats) Rate(name string) (float64, bool) {
	if s == nil || s.DurationS <= 0 {
		return 0, false
	}
	v, ok := s.Counters[name]
	return v / s.DurationS, ok
}

// SortWaits orders waits most samples first, then by name, so that a
// result reads the same for the same counts.
func SortWaits(ws []Wait) {
	slices.SortFunc(ws, func(a, b Wait) int {
		if c := cmp.Compare(b.Samples, a.Samples); c != 0 {
			return c
		}
		return cmp.Compare(a.Name(), b.Name())
	})
}

// Statement is one normalized statement's share of the server's time in
// the measured window (PostgreSQL's pg_stat_statements, MySQL's and
// MariaDB's statement digests): its calls, the time the server spent
// executing it and the rows it returned or changed, all deltas over the
// window, and Share, its part of every statement's time there (0..1).
type Statement struct {
	Text   string  `json:"text"`
	Calls  float64 `json:"calls"`
	TimeMs float64 `json:"time_ms"`
	Rows   float64 `json:"rows"`
	Share  float64 `json:"share"`
}

// MeanMs is the statement's mean execution time (0 without calls).
func (s Statement) MeanMs() float64 {
	if s.Calls <= 0 {
		return 0
	}
	return s.TimeMs / s.Calls
}

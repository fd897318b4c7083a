package analysis

import (
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// Wait classes: what a database server's active sessions were held by,
// from their wait events (result.ServerStats.Waits).
const (
	WaitCPU      = "CPU"                 // active with no wait event: on CPU (or runnable, waiting for one)
	WaitLocks    = "row/table locks"     // heavyweight locks: rows, tuples, tables, transactions
	WaitInternal = "internal contention" // the server's own short locks: LWLocks, buffer pins, spinlocks
	WaitCommit   = "WAL/commit"          // writing and flushing the log at commit
	WaitDataIO   = "data I/O"            // reading and writing the data files
	WaitClient   = "client/network"      // waiting for the client: the next statement, sending results
	WaitOther    = "other"
)

// WaitClasses lists the classes in the order reports show them.
var WaitClasses = []string{WaitCPU, WaitLocks, WaitInternal, WaitCommit, WaitDataIO, WaitClient, WaitOther}

// WaitClass classes one wait event: typ is result.Wait.Type ("CPU" for on
// CPU, else PostgreSQL's wait_event_type), event its wait_event. The WAL's
// own LWLocks and I/O (WALWrite, WALSync, WALInsert, ...) are the commit's,
// not contention or data I/O: they are what a slow log device shows.
//
// MySQL's and MariaDB's (see serverstats) are "Lock" (row: an InnoDB lock
// wait; metadata; table), a performance_schema wait instrument cut after
// its class (typ "wait/io/file", event "innodb/innodb_log_file"), or,
// without wait events, "State" and the thread's state ("Updating"). The
// redo and binary logs' files and latches are the commit's, like the WAL's.
func WaitClass(typ, event string) string {
	if strings.HasPrefix(typ, "wait/") || typ == "State" {
		return mysqlWaitClass(typ, event)
	}
	wal := strings.HasPrefix(event, "WAL") || event == "XactSync"
	switch typ {
	case "CPU":
		return WaitCPU
	case "Lock":
		return WaitLocks
	case "LWLock", "BufferPin":
		if wal {
			return WaitCommit
		}
		return WaitInternal
	case "IO":
		if wal {
			return WaitCommit
		}
		return WaitDataIO
	case "Client":
		return WaitClient
	case "IPC":
		if event == "SyncRep" {
			return WaitCommit // a synchronous standby's acknowledgement of the commit
		}
	}
	return WaitOther
}

// mysqlWaitClass classes MySQL's and MariaDB's wait instruments and
// thread states (WaitClass).
func mysqlWaitClass(typ, event string) string {
	ev := strings.ToLower(event)
	// The redo log (innodb_log_file, log_sys, log_flush_order, ...), the
	// binary log and group commit.
	logged := strings.Contains(ev, "log_file") || strings.Contains(ev, "innodb/log") || strings.Contains(ev, "binlog") ||
		strings.Contains(ev, "bin_log") || strings.Contains(ev, "commit") || strings.Contains(ev, "redo")
	switch typ {
	case "State":
		switch {
		case strings.HasPrefix(ev, "waiting for") && strings.Contains(ev, "lock"):
			return WaitLocks
		case strings.Contains(ev, "commit"), strings.Contains(ev, "binlog"):
			return WaitCommit
		case strings.Contains(ev, "to client"), strings.Contains(ev, "to net"), strings.Contains(ev, "from net"):
			return WaitClient
		case ev == "user sleep", ev == "user lock":
			return WaitOther
		}
		// Running a statement with no lock wait seen: on CPU, or in I/O
		// that the process list does not tell apart.
		return WaitCPU
	case "wait/io/file":
		if logged {
			return WaitCommit
		}
		return WaitDataIO
	case "wait/io/table":
		// The storage engine's row calls (their own file I/O and latch
		// waits, when any, are nested inside and sampled instead).
		return WaitCPU
	case "wait/io/socket":
		return WaitClient
	case "wait/lock/table", "wait/lock/metadata":
		return WaitLocks
	case "wait/synch/mutex", "wait/synch/rwlock", "wait/synch/sxlock", "wait/synch/cond":
		switch {
		case strings.Contains(ev, "sleep"):
			return WaitOther // SLEEP() in a statement, not the server's
		case logged:
			return WaitCommit
		}
		return WaitInternal
	}
	return WaitOther
}

// WaitShare is one class's or one event's share of the active sessions.
type WaitShare struct {
	Name string `json:"name"`
	// AvgActive is its average active sessions, Pct its share of them all.
	AvgActive float64 `json:"avg_active"`
	Pct       float64 `json:"pct"`
}

// WaitClassesOf adds a server's waits up by class: the classes that have
// any, most first (ties in WaitClasses' order). Nil for no server figures
// or no active session.
func WaitClassesOf(s *result.ServerStats) []WaitShare {
	if s == nil || s.Active == 0 || s.Samples == 0 {
		return nil
	}
	by := map[string]int64{}
	for _, w := range s.Waits {
		by[WaitClass(w.Type, w.Event)] += w.Samples
	}
	var out []WaitShare
	for _, c := range WaitClasses {
		if n := by[c]; n > 0 {
			out = append(out, share(c, n, s))
		}
	}
	sortShares(out)
	return out
}

// TopWaits is a server's n most frequent wait events (on CPU counted as one,
// named "CPU"), most first.
func TopWaits(s *result.ServerStats, n int) []WaitShare {
	if s == nil || s.Active == 0 || s.Samples == 0 {
		return nil
	}
	ws := append([]result.Wait(nil), s.Waits...)
	result.SortWaits(ws)
	var out []WaitShare
	for _, w := range ws[:min(n, len(ws))] {
		out = append(out, share(w.Name(), w.Samples, s))
	}
	return out
}

func share(name string, n int64, s *result.ServerStats) WaitShare {
	return WaitShare{Name: name, AvgActive: float64(n) / float64(s.Samples), Pct: 100 * float64(n) / float64(s.Active)}
}

// sortShares orders shares most first, keeping the order of equals.
func sortShares(ws []WaitShare) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && ws[j].Pct > ws[j-1].Pct; j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

package capture

import (
	"sort"
	"time"
)

// Stmt is one normalized statement's cumulative counters, as the server
// keeps them since its statistics were last reset.
type Stmt struct {
	// ID identifies the entry across snapshots (PostgreSQL's queryid with
	// its user; MySQL's schema and digest).
	ID string
	// Text is the normalized statement: constants replaced by $1, $2, ...
	// (PostgreSQL) or ? (MySQL, MariaDB), as the server shows it.
	Text   string
	Calls  int64   // times executed
	TimeMs float64 // total execution time, milliseconds
	Rows   int64   // rows returned or affected
}

// Snapshot is what the server counted at one moment.
type Snapshot struct {
	At    time.Time
	Stmts []Stmt
	// Commits and Rollbacks are the server's transaction counters
	// (PostgreSQL: pg_stat_database's xact_commit and xact_rollback;
	// MySQL: Com_commit and Com_rollback, explicit transactions only).
	Commits, Rollbacks int64
	// Evicted counts entries the statistics dropped for lack of room
	// (pg_stat_statements_info.dealloc; MySQL's
	// Performance_schema_digest_lost), when the server says.
	Evicted int64
	// Unseen counts executions the statistics do not break down by
	// statement (MariaDB's prepared statements: statement/com/Execute).
	Unseen int64
}

// Delta is what happened between two snapshots: each statement's calls,
// time and rows in the window (statements that did not run are left
// out), in the order of most calls first.
type Delta struct {
	Window             time.Duration
	Stmts              []Stmt
	Commits, Rollbacks int64
	Evicted, Unseen    int64
}

// Diff returns what happened from a to b. A statement absent from a
// started in the window (or was evicted and came back: its counts are then
// all of b's). A counter that went down (a reset in the window) counts as
// b's value.
func Diff(a, b Snapshot) Delta {
	before := make(map[string]Stmt, len(a.Stmts))
	for _, s := range a.Stmts {
		before[s.ID] = s
	}
	d := Delta{Window: b.At.Sub(a.At), Commits: sub(b.Commits, a.Commits), Rollbacks: sub(b.Rollbacks, a.Rollbacks),
		Evicted: sub(b.Evicted, a.Evicted), Unseen: sub(b.Unseen, a.Unseen)}
	for _, s := range b.Stmts {
		p, ok := before[s.ID]
		if ok && p.Calls <= s.Calls {
			s.Calls -= p.Calls
			s.TimeMs -= p.TimeMs
			s.Rows -= p.Rows
		}
		if s.Calls > 0 {
			d.Stmts = append(d.Stmts, s)
		}
	}
	sort.SliceStable(d.Stmts, func(i, j int) bool { return d.Stmts[i].Calls > d.Stmts[j].Calls })
	return d
}

func sub(b, a int64) int64 {
	if b < a {
		return b
	}
	return b - a
}

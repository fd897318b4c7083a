package serverstats

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/capture"
)

// The top statements are the largest deltas of time between the
// snapshots, each with its share of all statements' time; a statement new
// in the window counts from zero, one whose counters went back (a reset)
// is left out, and a text that may carry a password is withheld.
func TestTopStatements(t *testing.T) {
	first := stmtSnapshot{
		{ID: "1", Text: "SELECT 1", Calls: 100, TimeMs: 10, Rows: 100},
		{ID: "2", Text: "UPDATE t  SET\n v = $1", Calls: 50, TimeMs: 500, Rows: 50},
		{ID: "3", Text: "DELETE FROM t", Calls: 10, TimeMs: 100},
	}
	last := stmtSnapshot{
		{ID: "1", Text: "SELECT 1", Calls: 1100, TimeMs: 110, Rows: 1100},
		{ID: "2", Text: "UPDATE t  SET\n v = $1", Calls: 150, TimeMs: 800, Rows: 150},
		{ID: "3", Text: "DELETE FROM t", Calls: 5, TimeMs: 50}, // reset: counted from zero
		{ID: "4", Text: "ALTER ROLE x PASSWORD 'hunter2'", Calls: 1, TimeMs: 100},
	}
	top := topStatements(first, last)
	if len(top) != 4 {
		t.Fatalf("top %+v, want 4 statements", top)
	}
	if top[0].Text != "UPDATE t SET v = $1" || top[0].Calls != 100 || top[0].TimeMs != 300 || top[0].Share != 300.0/550 {
		t.Errorf("first %+v, want the UPDATE: 100 calls, 300 ms, 300 of 550 ms", top[0])
	}
	if top[1].TimeMs != 100 || strings.Contains(top[1].Text, "hunter2") || top[2].Text != "SELECT 1" || top[3].Text != "DELETE FROM t" {
		t.Errorf("top %+v: want the withheld ALTER ROLE second, SELECT 1 third, the reset DELETE last", top)
	}
	if m := top[0].MeanMs(); m != 3 {
		t.Errorf("mean %v ms, want 3", m)
	}
}

// MariaDB's digests leave out the prepared statements the virtual users
// execute: when most executions the server counted are missing, the top
// statements are not named; when they were read, they are.
func TestMySQLMissedStatements(t *testing.T) {
	m := &mysql{product: "MariaDB"}
	first := stmtSnapshot{{ID: "d1", Calls: 10}}
	last := stmtSnapshot{{ID: "d1", Calls: 1010}} // BEGIN and COMMIT, say
	if why := m.missedStatements(map[string]float64{"status.Com_stmt_execute": 2000}, first, last); !strings.Contains(why, "0 of the 2000") {
		t.Errorf("digests without the prepared executions: %q, want a note", why)
	}
	last = append(last, capture.Stmt{ID: "prepared:UPDATE t SET v = ?", Calls: 1990})
	if why := m.missedStatements(map[string]float64{"status.Com_stmt_execute": 2000}, first, last); why != "" {
		t.Errorf("prepared executions read: %q, want no note", why)
	}
	if why := m.missedStatements(map[string]float64{"status.Com_stmt_execute": 0}, first, stmtSnapshot{{ID: "d1", Calls: 1010}}); why != "" {
		t.Errorf("no prepared executions: %q, want no note", why)
	}
}

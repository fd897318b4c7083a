package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// hotRowsFile writes the hot-rows workload (hotRows) on n rows to a file.
func hotRowsFile(t *testing.T, n int) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "hotrows.yaml")
	w := strings.NewReplacer("rows: 10", fmt.Sprintf("rows: %d", n), "max: 10", fmt.Sprintf("max: %d", n)).Replace(hotRows)
	if err := os.WriteFile(file, []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// mysqlChecks checks what every MySQL/MariaDB run's figures have: the
// status counters' deltas, hot rows' row lock waits among them.
func mysqlChecks(t *testing.T, r *result.Run, stdout string) *result.ServerStats {
	t.Helper()
	s := r.ServerStats
	t.Logf("%.2f active sessions; classes %+v; top waits %+v; counters %v; stdout:\n%s", s.AvgActive(),
		analysis.WaitClassesOf(s), analysis.TopWaits(s, 4), s.Counters, stdout)
	if s.Product != "MariaDB" {
		t.Errorf("product %q, want MariaDB", s.Product)
	}
	if c := s.Counters["status.Com_commit"]; c < float64(r.Summary.Count)/2 {
		t.Errorf("Com_commit delta = %v, want at least half the run's %d events", c, r.Summary.Count)
	}
	if c := s.Counters["status.Innodb_row_lock_waits"]; c <= 0 {
		t.Errorf("Innodb_row_lock_waits delta = %v, want some: 8 virtual users update 10 rows", c)
	}
	// The sampled row lock waiters agree with InnoDB's own count of the
	// time spent waiting (Innodb_row_lock_time, ms) within a factor of 3.
	// The sample reads more: 1.8x on a private server, 2.1x to 2.4x on
	// the shared one (MariaDB 10.11.19, 2026-12-06; 2x and under before).
	// Reading INNODB_TRX, which holds InnoDB's lock system while it
	// copies the transactions, may itself hold up the waits it samples
	// (see Options.MySQLSessions): an open question.
	var sampled float64
	for _, w := range analysis.TopWaits(s, 100) {
		if w.Name == "Lock:row" {
			sampled = w.AvgActive
		}
	}
	if counted := s.Counters["status.Innodb_row_lock_time"] / 1000 / s.DurationS; sampled < counted/3 || sampled > counted*3 {
		t.Errorf("%.2f sessions sampled waiting on row locks, %.2f by Innodb_row_lock_time: want them within a factor of 3", sampled, counted)
	}
	if _, ok := s.Counters["status.Threads_running"]; !ok {
		t.Errorf("no status.Threads_running in %v", s.Counters)
	}
	if !strings.Contains(stdout, "row lock waits") {
		t.Errorf("the console's server line does not name row lock waits:\n%s", stdout)
	}
	return s
}

// Hot rows (2 rows, 8 virtual users; on 10 rows a 2-CPU host runs out of
// CPU first: 53 % on CPU, 25 % Lock:row) on a MariaDB with performance_schema on, its wait events
// collected: InnoDB's lock waits are named row locks, the top class.
func TestServerStatsMariaDBHotRowsAreRowLocks(t *testing.T) {
	srv := testenv.PrivateMariaDB(t, "--performance-schema=ON",
		"--performance-schema-consumer-events-waits-current=ON", "--performance-schema-instrument=wait/%=ON")
	r, stdout := serverRunAt(t, srv.AdminURL(srv.FreshDB(t)), hotRowsFile(t, 2), "--threads", "8", "--warmup", "2s", "--time", "6s", "--server-stats", "on")
	s := mysqlChecks(t, r, stdout)
	if s.Source != "performance_schema" || strings.Contains(s.Note, "performance_schema") {
		t.Errorf("source %q, note %q; want performance_schema, no note on it", s.Source, s.Note)
	}
	if top := analysis.TopWaits(s, 1); len(top) == 0 || top[0].Name != "Lock:row" {
		t.Errorf("top wait %+v, want Lock:row", top)
	}
	if cl := analysis.WaitClassesOf(s); len(cl) == 0 || cl[0].Name != analysis.WaitLocks || cl[0].Pct < 50 {
		t.Errorf("classes %+v, want row/table locks first, at least half the active sessions", cl)
	}
	if a := s.AvgActive(); a < 2 {
		t.Errorf("%.2f average active sessions, want 2 or more of the 8 virtual users held", a)
	}
	// MariaDB's statement figures leave out what the virtual users run as
	// prepared statements (the binary protocol): it counts their BEGIN
	// and COMMIT only, and naming those the top statements would
	// mislead, so none is named and a note says why.
	if len(s.Statements) != 0 || !strings.Contains(s.Note, "binary protocol") {
		t.Errorf("statements %+v, note %q; want none, and a note that the prepared statements were not counted", s.Statements, s.Note)
	}
}

// Hot rows on the shared MariaDB, performance_schema off: the process
// list and InnoDB's transactions still name the row locks, the status
// counters count them, and a note says how to turn performance_schema on.
func TestServerStatsMariaDBWithoutPerformanceSchema(t *testing.T) {
	// One row: on the shared server, which CI loads with other tests, 2 rows
	// once left row locks a hair under CPU (39 % to 40 %).
	r, stdout := serverRunAt(t, testenv.MySQLURL(t), hotRowsFile(t, 1), "--threads", "8", "--warmup", "2s", "--time", "6s", "--server-stats", "on")
	s := mysqlChecks(t, r, stdout)
	if s.Source != "processlist" && s.Source != "performance_schema threads" {
		t.Errorf("source %q, want processlist (the shared server runs without performance_schema)", s.Source)
	}
	if !strings.Contains(s.Note, "performance_schema") {
		t.Errorf("note %q, want how to enable performance_schema", s.Note)
	}
	// InnoDB's metrics that the status lacks, where enabled (they are by
	// default on MariaDB 10.11).
	if _, ok := s.Counters["innodb_metrics.trx_rseg_history_len"]; !ok {
		t.Errorf("counters %v lack InnoDB's history length", s.Counters)
	}
	if _, ok := s.Counters["innodb_metrics.lock_timeouts"]; !ok {
		t.Errorf("counters %v lack InnoDB's lock wait timeouts", s.Counters)
	}
	if cl := analysis.WaitClassesOf(s); len(cl) == 0 || cl[0].Name != analysis.WaitLocks {
		t.Errorf("classes %+v, want row/table locks first", cl)
	}
}

// Hot writers on SQLite: its one write lock is waited for by every
// transaction that writes (BEGIN IMMEDIATE), and the client counts it.
func TestServerStatsSQLiteHotWritersWaitOnTheLock(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "hot.db")
	r, stdout := serverRunAt(t, url, hotRowsFile(t, 10), "--threads", "8", "--warmup", "2s", "--time", "6s")
	s := r.ServerStats
	t.Logf("%.2f active; classes %+v; top waits %+v; counters %v; stdout:\n%s", s.AvgActive(),
		analysis.WaitClassesOf(s), analysis.TopWaits(s, 4), s.Counters, stdout)
	if s.Source != "client" || s.Product != "SQLite" || s.Note != "" {
		t.Errorf("source %q, product %q, note %q; want client, SQLite, no note", s.Source, s.Product, s.Note)
	}
	if top := analysis.TopWaits(s, 1); len(top) == 0 || top[0].Name != "Lock:database" {
		t.Errorf("top wait %+v, want Lock:database", top)
	}
	if cl := analysis.WaitClassesOf(s); len(cl) == 0 || cl[0].Name != analysis.WaitLocks || cl[0].Pct < 50 {
		t.Errorf("classes %+v, want row/table locks first, at least half", cl)
	}
	if n := s.Counters["client.lock_waits"]; n < float64(r.Summary.Count)/2 {
		t.Errorf("client.lock_waits = %v, want about the run's %d transactions", n, r.Summary.Count)
	}
	// The sampled waiters agree with the time counted waiting.
	counted := s.Counters["client.lock_wait_ms"] / 1000 / s.DurationS
	if w := analysis.TopWaits(s, 1); len(w) == 1 && (w[0].AvgActive < counted/2 || w[0].AvgActive > counted*2) {
		t.Errorf("%.2f sampled waiting, %.2f counted: want them within a factor of 2", w[0].AvgActive, counted)
	}
	if !strings.Contains(stdout, "write lock taken") {
		t.Errorf("the console's server line does not word the lock:\n%s", stdout)
	}
}

// A user without PROCESS: no session is sampled, a note gives the GRANT,
// the status counters are read and the run goes on.
func TestServerStatsMariaDBWithoutProcess(t *testing.T) {
	srv := testenv.PrivateMariaDB(t)
	db := srv.FreshDB(t)
	srv.Exec(t, db, "CREATE USER 'bench'@'127.0.0.1'", "GRANT ALL ON `"+db+"`.* TO 'bench'@'127.0.0.1'")
	url := strings.Replace(srv.AdminURL(db), "root@", "bench@", 1)
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := run(t, ctx, "run", hotRowsFile(t, 10), "--target", url, "--out", out, "--no-history", "--prepare", "always",
		"--threads", "2", "--warmup", "1s", "--time", "2s", "--server-stats", "on")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	s := mustReadResult(t, out).ServerStats
	if s == nil {
		t.Fatalf("no server figures:\n%s", o.stdout)
	}
	t.Logf("server figures %+v; stdout:\n%s", s, o.stdout)
	if !strings.Contains(s.Note, "GRANT PROCESS ON *.* TO 'bench'@'127.0.0.1'") || s.Active != 0 {
		t.Errorf("note %q, active %d: want the GRANT, no session sampled", s.Note, s.Active)
	}
	if s.Counters["status.Com_commit"] <= 0 {
		t.Errorf("counters %v: want the status counters read", s.Counters)
	}
}

// By default a MySQL/MariaDB server's sessions are not sampled, only its
// status counters, and a note says how to ask for them.
func TestServerStatsMariaDBSessionsOnlyWhenAsked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := run(t, ctx, "run", hotRowsFile(t, 10), "--target", testenv.MySQLURL(t), "--out", out, "--no-history", "--prepare", "always",
		"--threads", "2", "--warmup", "1s", "--time", "2s")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	s := mustReadResult(t, out).ServerStats
	if s == nil || s.Samples != 0 || s.Counters["status.Com_commit"] <= 0 || !strings.Contains(s.Note, "give --server-stats on (or an interval) to sample them") {
		t.Errorf("default figures %+v: want the counters only, and the note", s)
	}
}

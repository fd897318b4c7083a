package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// serverRun runs workload on a fresh database of srv with args and returns
// its result, whose server figures it checks are there.
func serverRun(t *testing.T, srv *testenv.Server, workload string, args ...string) *result.Run {
	t.Helper()
	r, stdout := serverRunAt(t, srv.AdminURL(srv.FreshDB(t)), workload, args...)
	s := r.ServerStats
	if s.Note != "" {
		t.Errorf("server note %q: a superuser sees every session", s.Note)
	}
	if c, ok := s.Counters["pg_stat_database.xact_commit"]; !ok || c < float64(r.Summary.Count)/2 {
		t.Errorf("xact_commit delta = %v (counted %v), want at least half the run's %d events", c, ok, r.Summary.Count)
	}
	t.Logf("%s: %.2f active sessions; classes %+v; top waits %+v; counters %v; stdout:\n%s", workload, s.AvgActive(),
		analysis.WaitClassesOf(s), analysis.TopWaits(s, 4), s.Counters, stdout)
	return r
}

// serverRunAt runs workload on the database at url with args and returns
// its result, whose server figures it checks are there and sampled about
// every 100 ms, and the run's output.
func serverRunAt(t *testing.T, url, workload string, args ...string) (*result.Run, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args = append([]string{"run", workload, "--target", url, "--out", out, "--no-history", "--prepare", "always"}, args...)
	o := run(t, ctx, args...)
	if o.code != 0 {
		t.Fatalf("rightsize %v: exit %d\n%s\n%s", args, o.code, o.stdout, o.stderr)
	}
	r := mustReadResult(t, out)
	s := r.ServerStats
	if s == nil || len(r.Instances) != 1 || r.Instances[0].ServerStats == nil {
		t.Fatalf("no server figures in the result:\n%s", o.stdout)
	}
	// About 10 samples a second over the measured window (the warm-up
	// left out), not fewer than half of them.
	if want := r.Load.DurationS * 10; float64(s.Samples) < want/2 || float64(s.Samples) > want*1.2 {
		t.Errorf("samples = %d over %.0f s at 100 ms, want about %.0f", s.Samples, r.Load.DurationS, want)
	}
	return r, o.stdout
}

// hotRows is a workload file: 10 rows, and a transaction that updates a
// random one of them and reads it back before it commits, so that its row
// lock is held over two of the client's round trips.
const hotRows = `name: hotrows
tables:
  - name: hot
    rows: 10
    columns:
      - {name: id, type: bigint, gen: {type: seq}}
      - {name: n, type: bigint, gen: {type: int, min: 0, max: 0}}
    primary_key: [id]
params:
  row: {type: int, min: 1, max: 10}
transactions:
  - name: bump
    statements:
      - sql: UPDATE hot SET n = n + 1 WHERE id = :row
      - sql: SELECT n FROM hot WHERE id = :row
        into: [n]
`

// Hot rows: 8 virtual users updating 10 rows wait on each other's row
// locks, and the server says so.
func TestServerStatsHotRowsAreRowLocks(t *testing.T) {
	srv := testenv.PrivatePostgres(t)
	file := filepath.Join(t.TempDir(), "hotrows.yaml")
	if err := os.WriteFile(file, []byte(hotRows), 0o644); err != nil {
		t.Fatal(err)
	}
	r := serverRun(t, srv, file, "--threads", "8", "--warmup", "2s", "--time", "6s")
	s := r.ServerStats
	top := analysis.TopWaits(s, 1)
	if len(top) == 0 || (top[0].Name != "Lock:transactionid" && top[0].Name != "Lock:tuple") {
		t.Fatalf("top wait %+v, want Lock:transactionid or Lock:tuple", top)
	}
	cl := analysis.WaitClassesOf(s)
	if cl[0].Name != analysis.WaitLocks || cl[0].Pct < 50 {
		t.Errorf("top class %+v, want row/table locks, at least half the active sessions", cl[0])
	}
	if a := s.AvgActive(); a < 2 {
		t.Errorf("%.2f average active sessions, want 2 or more of the 8 virtual users held", a)
	}
}

// Point selects on a small table: nothing to wait on but the CPU (and the
// client): no lock waits to speak of.
func TestServerStatsPointSelectIsCPU(t *testing.T) {
	srv := testenv.PrivatePostgres(t)
	// Point selects keep a session active for a small part of each round
	// trip, and on a saturated 2-CPU host the monitor's backend runs mostly
	// while the others wait for their clients: 0.02 to 0.16 active sessions
	// were seen at 4 threads over 5 s, and once none (a CI run under load).
	// 8 threads over 10 s give the sampler enough active sessions to class.
	r := serverRun(t, srv, "oltp_point_select", "--tables", "1", "--table-size", "1000", "--threads", "8", "--warmup", "1s", "--time", "10s")
	s := r.ServerStats
	cl := analysis.WaitClassesOf(s)
	if len(cl) == 0 || (cl[0].Name != analysis.WaitCPU && cl[0].Name != analysis.WaitClient) {
		t.Fatalf("classes %+v, want CPU or client/network first", cl)
	}
	for _, c := range cl {
		if c.Name == analysis.WaitLocks && c.Pct > 5 {
			t.Errorf("row/table locks %.1f %% of active sessions in a read-only run", c.Pct)
		}
	}
}

// inserts is a workload file of single-row inserts, each its own
// transaction: every commit flushes the log.
const inserts = `name: inserts
tables:
  - name: ins
    rows: 0
    columns:
      - {name: id, type: bigint}
      - {name: v, type: int}
    primary_key: [id]
params:
  id: {type: seq, after: ins.id}
  v: {type: int, min: 1, max: 100}
transactions:
  - name: add
    autocommit: true
    statements: ['INSERT INTO ins (id, v) VALUES (:id, :v)']
`

// Commits on a slow log: a server whose commits wait 20 ms for their log
// flush (commit_delay with commit_siblings 0: each commit's flush is
// delayed as a slow log device delays it, the others queue behind it on
// the WAL's lock). A sweep's verdict names WAL/commit, not CPU.
func TestServerStatsSlowCommitIsWAL(t *testing.T) {
	// The private servers run with fsync and synchronous commit off; a
	// commit delay needs both on.
	srv := testenv.PrivatePostgres(t, "fsync=on", "synchronous_commit=on", "commit_delay=20000", "commit_siblings=0")
	file := filepath.Join(t.TempDir(), "inserts.yaml")
	if err := os.WriteFile(file, []byte(inserts), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"sweep", file, "--target", srv.AdminURL(srv.FreshDB(t)), "--out", filepath.Join(dir, "s.json"), "--no-history", "--prepare", "always",
		"--threads", "2,8", "--warmup", "1s", "--time", "4s"}
	o := run(t, ctx, args...)
	if o.code != 0 {
		t.Fatalf("rightsize %v: exit %d\n%s\n%s", args, o.code, o.stdout, o.stderr)
	}
	sw := readSweep(t, filepath.Join(dir, "s-sweep.json"))
	last := sw.Steps[len(sw.Steps)-1].ServerStats
	if cl := analysis.WaitClassesOf(last); len(cl) == 0 || cl[0].Name != analysis.WaitCommit || cl[0].Pct < 50 {
		t.Fatalf("classes at threads 8 %+v, want WAL/commit first, at least half\n%s", cl, o.stdout)
	}
	if !strings.Contains(o.stdout, "The database's own view at threads 8:") || !strings.Contains(o.stdout, "(WAL/commit ") ||
		!strings.Contains(o.stdout, "not CPU; more vCPUs would not raise the knee") {
		t.Errorf("the verdict does not name the log:\n%s", o.stdout)
	}
	t.Logf("stdout:\n%s", o.stdout)
}

// clientScript holds its transaction open while the client sleeps between
// two statements: the server waits on its client.
const clientScript = `\set aid random(1, 100000 * :scale)
BEGIN;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
\sleep 20 ms
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
END;
`

// A client slow between a transaction's statements: the server's sessions
// wait on Client:ClientRead, and the verdict's cross-check says the limit
// is the load generator's.
func TestServerStatsSlowClientIsClient(t *testing.T) {
	srv := testenv.PrivatePostgres(t)
	script := filepath.Join(t.TempDir(), "slow.sql")
	if err := os.WriteFile(script, []byte(clientScript), 0o644); err != nil {
		t.Fatal(err)
	}
	r := serverRun(t, srv, "pgbench", "-f", script, "--scale", "1", "--threads", "4", "--warmup", "1s", "--time", "4s")
	s := r.ServerStats
	if s.AvgIdleInTx() < 2 || s.AvgIdleInTx() < 4*s.AvgActive() {
		t.Fatalf("%.2f sessions idle in transaction, %.2f active: want most of the 4 idle in their transactions", s.AvgIdleInTx(), s.AvgActive())
	}
	steps := []result.SweepStep{{Label: "threads 4", ServerStats: s}}
	if v := analysis.ServerViewOf(steps, 0, nil); v == nil || v.Check != analysis.CheckClient {
		t.Errorf("server view %+v, want the client cross-check", v)
	}
}

// The statements that took the server's time: with pg_stat_statements
// loaded and installed in the run's database, the hot rows' UPDATE (its
// lock waits are execution time) is named first, counted once per event,
// and the monitor's own queries are not among them. Installed but not
// loaded, a note says how to load it and the run goes on.
func TestServerStatsTopStatementsPostgres(t *testing.T) {
	srv := testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements")
	db := srv.FreshDB(t)
	srv.Exec(t, db, "CREATE EXTENSION pg_stat_statements")
	file := filepath.Join(t.TempDir(), "hotrows.yaml")
	if err := os.WriteFile(file, []byte(hotRows), 0o644); err != nil {
		t.Fatal(err)
	}
	r, stdout := serverRunAt(t, srv.AdminURL(db), file, "--threads", "8", "--warmup", "2s", "--time", "5s")
	st := r.ServerStats.Statements
	t.Logf("statements %+v\n%s", st, stdout)
	if len(st) < 2 || !strings.HasPrefix(st[0].Text, "UPDATE hot SET n = n + $") {
		t.Fatalf("statements %+v, want the UPDATE first, normalized", st)
	}
	if st[0].Share < 0.5 || st[0].TimeMs <= 0 {
		t.Errorf("UPDATE share %.2f, time %.1f ms; want most of the server's time", st[0].Share, st[0].TimeMs)
	}
	if n := float64(r.Summary.Count); st[0].Calls < 0.9*n || st[0].Calls > 1.2*n {
		t.Errorf("UPDATE calls %.0f in the window, the run counted %.0f events", st[0].Calls, n)
	}
	for _, s := range st {
		if strings.Contains(s.Text, "pg_stat") {
			t.Errorf("the monitor's own query %q is among the statements", s.Text)
		}
	}
	if r.ServerStats.Note != "" {
		t.Errorf("note %q", r.ServerStats.Note)
	}
	if !strings.Contains(stdout, "UPDATE hot SET") {
		t.Errorf("the run's output does not name the top statement:\n%s", stdout)
	}

	plain := testenv.PrivatePostgres(t)
	db = plain.FreshDB(t)
	plain.Exec(t, db, "CREATE EXTENSION pg_stat_statements")
	r, _ = serverRunAt(t, plain.AdminURL(db), "oltp_point_select", "--tables", "1", "--table-size", "100", "--threads", "1", "--warmup", "0s", "--time", "2s")
	if s := r.ServerStats; len(s.Statements) != 0 || !strings.Contains(s.Note, "shared_preload_libraries") {
		t.Errorf("not loaded: statements %+v, note %q; want none and how to load it", s.Statements, s.Note)
	}
}

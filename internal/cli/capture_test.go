package cli

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workfile"
)

// The "production" application of the capture tests: 60 % point reads,
// 30 % a read-then-update transaction, 10 % inserts, at prodRate
// transactions per second, its statements written with literals (as many
// applications do, and as MariaDB's digests see only the text protocol).
const (
	prodRate   = 200.0
	prodWindow = 15 * time.Second
	accounts   = 10_000
)

var prodShares = map[string]float64{"select_acct": 0.6, "select_update_acct": 0.3, "insert_hist": 0.1}

func loadCaptureTables(t *testing.T, srv *testenv.Server, db string) {
	t.Helper()
	if srv.Kind == "postgres" {
		srv.Exec(t, db,
			"CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
			"CREATE TABLE acct (id bigint PRIMARY KEY, bal numeric(12,2) NOT NULL, name varchar(40) NOT NULL)",
			"CREATE TABLE hist (id bigserial PRIMARY KEY, acct_id bigint NOT NULL, amt numeric(12,2) NOT NULL, note varchar(40) NOT NULL)",
			fmt.Sprintf("INSERT INTO acct SELECT g, 1000, 'name-' || g FROM generate_series(1, %d) g", accounts),
			"INSERT INTO hist (acct_id, amt, note) SELECT g, 1.25, 'note-' || g FROM generate_series(1, 1000) g",
			"ANALYZE")
		return
	}
	srv.Exec(t, db,
		"SET SESSION max_recursive_iterations = 1000000",
		"CREATE TABLE acct (id bigint PRIMARY KEY, bal decimal(12,2) NOT NULL, name varchar(40) NOT NULL)",
		"CREATE TABLE hist (id bigint AUTO_INCREMENT PRIMARY KEY, acct_id bigint NOT NULL, amt decimal(12,2) NOT NULL, note varchar(40) NOT NULL)",
		fmt.Sprintf("INSERT INTO acct WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < %d) SELECT n, 1000, CONCAT('name-', n) FROM g", accounts),
		"INSERT INTO hist (acct_id, amt, note) SELECT id, 1.25, CONCAT('note-', id) FROM acct WHERE id <= 1000",
		"ANALYZE TABLE acct, hist")
}

// production runs the application on db as an open loop at prodRate
// until ctx ends; it returns the count of its transactions and a wait
// that returns the errors it met.
func production(ctx context.Context, t *testing.T, srv *testenv.Server, db string) (*atomic.Int64, func() int64) {
	t.Helper()
	const workers = 6
	conns := make([]dialect.Conn, workers)
	for i := range conns {
		conns[i] = srv.Conn(t, db)
	}
	var done, failed atomic.Int64
	starts := make(chan struct{}, 10_000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the schedule: absolute, so that a slow event does not slow it
		defer wg.Done()
		defer close(starts)
		t0 := time.Now()
		for k := 1; ; k++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(t0.Add(time.Duration(float64(k) / prodRate * float64(time.Second))))):
			}
			select {
			case starts <- struct{}{}:
			default:
				failed.Add(1) // the workers fell behind
			}
		}
	}()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			rng := rand.New(rand.NewPCG(7, uint64(i)))
			bg := context.Background()
			for range starts {
				id := 1 + rng.IntN(accounts)
				var s1, s2 string
				var err error
				switch r := rng.IntN(100); {
				case r < 60:
					err = c.QueryRow(bg, fmt.Sprintf("SELECT bal, name FROM acct WHERE id = %d", id), nil, &s1, &s2)
				case r < 90:
					if err = c.Begin(bg); err == nil {
						if err = c.QueryRow(bg, fmt.Sprintf("SELECT bal FROM acct WHERE id = %d FOR UPDATE", id), nil, &s1); err == nil {
							_, err = c.Exec(bg, fmt.Sprintf("UPDATE acct SET bal = bal - 1.50 WHERE id = %d", id))
						}
						if err == nil {
							err = c.Commit(bg)
						} else {
							_ = c.Rollback(bg)
						}
					}
				default:
					_, err = c.Exec(bg, fmt.Sprintf("INSERT INTO hist (acct_id, amt, note) VALUES (%d, 2.50, 'secret-%d')", id, rng.IntN(1000)))
				}
				if err != nil {
					failed.Add(1)
					t.Logf("production: %v", err)
				} else {
					done.Add(1)
				}
			}
		}()
	}
	return &done, func() int64 { wg.Wait(); return failed.Load() }
}

// shares are a capture's transactions' shares of its weights.
func shares(s *workfile.Spec) map[string]float64 {
	out := map[string]float64{}
	var sum int64
	for _, tx := range s.Transactions {
		sum += tx.Weight
	}
	for _, tx := range s.Transactions {
		out[tx.Name] = float64(tx.Weight) / float64(sum)
	}
	return out
}

// weights is a capture's count of transactions in its window.
func weights(s *workfile.Spec) int64 {
	var sum int64
	for _, tx := range s.Transactions {
		sum += tx.Weight
	}
	return sum
}

// mixTolerance is how far apart two shares of one transaction may be when
// each is counted from its own random draws of the same mix (n1 and n2
// transactions) and share p: 3 points, or four standard errors of the
// difference when that is more. At 3,000 and 2,400 draws a share near 0.6
// has a standard error of 1.3 points, so a flat 3 points failed about one
// run in thirty (CI, stop 52: 0.636 against 0.605).
func mixTolerance(p float64, n1, n2 int64) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 0.03
	}
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	return math.Max(0.03, 4*se)
}

func readSpec(t *testing.T, path string) (*workfile.Spec, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := workfile.Parse(path, b)
	if err != nil {
		t.Fatalf("the captured file does not parse: %v\n%s", err, b)
	}
	return s, string(b)
}

// within reports whether got is within tol (a fraction) of want.
func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*want }

// TestCaptureReplayPostgres: on a private PostgreSQL with
// pg_stat_statements, a capture of a running application at 200
// transactions per second gives its mix and its rate; a replay of the file
// on a copy at 1x, captured again, reproduces the statement mix within 3
// points (or four standard errors of the two counts, see mixTolerance) and
// the transaction rate within 10 %.
func TestCaptureReplayPostgres(t *testing.T) {
	t.Parallel()
	captureReplay(t, testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements"))
}

// TestCaptureReplayMariaDB: the same on a private MariaDB with
// performance_schema on. MariaDB's digests do not count the executions of
// prepared statements, which the replay uses, so the replay's mix and rate
// are read from its result (and the second capture says so).
func TestCaptureReplayMariaDB(t *testing.T) {
	t.Parallel()
	captureReplay(t, testenv.PrivateMariaDB(t, "--performance-schema=ON"))
}

func captureReplay(t *testing.T, srv *testenv.Server) {
	if testing.Short() {
		t.Skip("runs a workload for 40 s")
	}
	prod, cp := srv.NamedDB(t, "prod"), srv.NamedDB(t, "copy")
	loadCaptureTables(t, srv, prod)
	loadCaptureTables(t, srv, cp)
	dir := t.TempDir()

	// 1. Capture the application.
	ctx, stop := context.WithCancel(context.Background())
	done, wait := production(ctx, t, srv, prod)
	time.Sleep(2 * time.Second)
	file := filepath.Join(dir, "app.yaml")
	before := done.Load()
	o := run(t, context.Background(), "capture", "--target", srv.AdminURL(prod), "--for", prodWindow.String(), "--out", file, "--progress", "5s")
	observed := float64(done.Load()-before) / prodWindow.Seconds()
	stop()
	if failed := wait(); failed > 0 {
		t.Errorf("the application failed or fell behind %d times", failed)
	}
	if o.code != 0 {
		t.Fatalf("capture: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	spec, text := readSpec(t, file)
	t.Logf("captured file:\n%s", text)
	got := shares(spec)
	t.Logf("production: %.1f transactions per second observed by the application; capture: baseline_rate %.1f, mix %v", observed, spec.BaselineRate, got)
	for name, want := range prodShares {
		if math.Abs(got[name]-want) > 0.03 {
			t.Errorf("captured share of %s %.3f, want %.2f within 3 points (mix %v)", name, got[name], want, got)
		}
	}
	if len(spec.Transactions) != len(prodShares) {
		t.Errorf("%d transactions captured, want %d", len(spec.Transactions), len(prodShares))
	}
	// The application's own count in the window, not its nominal rate: a
	// busy machine may have held it back.
	if !within(spec.BaselineRate, observed, 0.10) || !within(observed, prodRate, 0.25) {
		t.Errorf("baseline_rate %.1f, the application ran %.1f per second (of %.0f): want within 10 %%", spec.BaselineRate, observed, prodRate)
	}
	if strings.Contains(text, "secret-") || strings.Contains(text, "1.50") || strings.Contains(text, "2.50") {
		t.Errorf("the file holds a literal of production's")
	}
	if !strings.Contains(text, "offered as one transaction") || !strings.Contains(text, "# allow_writes: true") {
		t.Errorf("the file lacks the grouping's comment or the consent's explanation")
	}

	// 2. Replay it on the copy at 1x, capturing the copy meanwhile.
	out := filepath.Join(dir, "replay.json")
	var replay outcome
	var rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		replay = run(t, context.Background(), "run", file, "--target", srv.AdminURL(cp), "--rate", "1x", "--threads", "8",
			"--warmup", "3s", "--time", "16s", "--allow-writes", "--no-history", "--out", out)
	}()
	time.Sleep(4 * time.Second)
	file2 := filepath.Join(dir, "replay.yaml")
	o2 := run(t, context.Background(), "capture", "--target", srv.AdminURL(cp), "--for", "12s", "--out", file2)
	rwg.Wait()
	if replay.code != 0 {
		t.Fatalf("replay: exit %d\n%s\n%s", replay.code, replay.stdout, replay.stderr)
	}
	if srv.Kind != "postgres" {
		// MariaDB: the replay's prepared statements are not in the digests.
		if o2.code != 1 || !strings.Contains(o2.stderr, "prepared statements (binary protocol) that its digest summary does not break down") {
			t.Errorf("second capture on MariaDB: exit %d, want 1 and why nothing was counted\n%s", o2.code, o2.stderr)
		}
	} else if o2.code != 0 {
		t.Fatalf("second capture: exit %d\n%s\n%s", o2.code, o2.stdout, o2.stderr)
	}
	r := mustReadResult(t, out)
	var sum int64
	for _, op := range r.Ops {
		if _, ok := got[op.Name]; ok { // the file's transactions, not the event as a whole
			sum += op.Count
		}
	}
	replayed := map[string]float64{}
	for _, op := range r.Ops {
		if _, ok := got[op.Name]; ok {
			replayed[op.Name] = float64(op.Count) / float64(sum)
		}
	}
	t.Logf("replay at 1x: %.1f transactions per second (result), mix %v", r.Summary.Throughput, replayed)
	if !within(r.Summary.Throughput, spec.BaselineRate, 0.10) {
		t.Errorf("the replay ran %.1f transactions per second, want baseline_rate %.1f within 10 %%", r.Summary.Throughput, spec.BaselineRate)
	}
	for name, want := range got {
		if tol := mixTolerance(want, weights(spec), sum); math.Abs(replayed[name]-want) > tol {
			t.Errorf("replayed share of %s %.3f, captured %.3f: want within %.1f points", name, replayed[name], want, 100*tol)
		}
	}
	if srv.Kind == "postgres" {
		spec2, _ := readSpec(t, file2)
		again := shares(spec2)
		t.Logf("second capture (of the replay): baseline_rate %.1f, mix %v", spec2.BaselineRate, again)
		for name, want := range got {
			if tol := mixTolerance(want, weights(spec), weights(spec2)); math.Abs(again[name]-want) > tol {
				t.Errorf("share of %s in the replay's capture %.3f, captured %.3f: want within %.1f points", name, again[name], want, 100*tol)
			}
		}
		if !within(spec2.BaselineRate, spec.BaselineRate, 0.10) {
			t.Errorf("the replay's captured rate %.1f, production's %.1f: want within 10 %%", spec2.BaselineRate, spec.BaselineRate)
		}
	}
	if strings.Contains(text, "prepared statements (binary protocol)") {
		t.Errorf("the capture of production counts its own prepared statements as the application's:\n%s", text)
	}
}

// refused runs capture on url and checks one clear refusal: exit 2, the
// message's words, no password, and no file written.
func refused(t *testing.T, url string, want ...string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "x.yaml")
	o := run(t, context.Background(), "capture", "--target", url, "--for", "1s", "--out", out)
	if o.code != 2 {
		t.Errorf("exit %d, want 2\n%s", o.code, o.stderr)
	}
	if n := strings.Count(o.stderr, "rightsize: "); n != 1 {
		t.Errorf("%d messages, want one:\n%s", n, o.stderr)
	}
	for _, w := range want {
		if !strings.Contains(o.stderr, w) {
			t.Errorf("the refusal lacks %q:\n%s", w, o.stderr)
		}
	}
	if strings.Contains(o.stderr+o.stdout, "hunter2") {
		t.Errorf("the password is in the output:\n%s", o.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused capture wrote its file")
	}
}

// TestCaptureRefusesPostgres: a server that does not load
// pg_stat_statements, a database without the extension and a user without
// pg_read_all_stats each get one message with the setting or SQL to give.
func TestCaptureRefusesPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two servers")
	}
	plain := testenv.PrivatePostgres(t)
	refused(t, plain.AdminURL(plain.NamedDB(t, "app")),
		"does not load pg_stat_statements", "shared_preload_libraries = 'pg_stat_statements'", "CREATE EXTENSION pg_stat_statements;")

	srv := testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements")
	db := srv.NamedDB(t, "app")
	refused(t, srv.AdminURL(db), "not created in database app", "CREATE EXTENSION pg_stat_statements;")

	srv.Exec(t, db, "CREATE EXTENSION pg_stat_statements", "CREATE ROLE nopriv LOGIN PASSWORD 'hunter2'")
	t.Cleanup(func() { srv.Exec(t, "", "DROP DATABASE IF EXISTS app WITH (FORCE)", "DROP ROLE IF EXISTS nopriv") })
	refused(t, fmt.Sprintf("postgres://nopriv:hunter2@127.0.0.1:%d/app?sslmode=disable", srv.Port),
		"user nopriv may not read other users' statements", "GRANT pg_read_all_stats TO nopriv;")

	t.Run("interrupted", func(t *testing.T) {
		// Ctrl-C ends the window: the file holds what was counted, exit 3.
		srv.Exec(t, db, "CREATE TABLE kv (k int PRIMARY KEY, v int)", "INSERT INTO kv SELECT g, g FROM generate_series(1, 100) g", "ANALYZE kv")
		ctx, cancel := context.WithCancel(context.Background())
		c := srv.Conn(t, db)
		defer c.Close()
		go func() {
			var v int64
			for i := 0; ctx.Err() == nil; i++ {
				_ = c.QueryRow(context.Background(), fmt.Sprintf("SELECT v FROM kv WHERE k = %d", 1+i%100), nil, &v)
				if i%4 == 0 { // a range: its bounds from pg_stats
					_ = c.QueryRow(context.Background(), fmt.Sprintf("SELECT count(*) FROM kv WHERE k BETWEEN %d AND %d", i%50, 50+i%50), nil, &v)
				}
				time.Sleep(time.Millisecond)
			}
		}()
		time.AfterFunc(3*time.Second, cancel)
		out := filepath.Join(t.TempDir(), "cut.yaml")
		start := time.Now()
		o := run(t, ctx, "capture", "--target", srv.AdminURL(db), "--for", "5m", "--out", out)
		if o.code != 3 || time.Since(start) > time.Minute || !strings.Contains(o.stderr, "the window was cut short") {
			t.Fatalf("exit %d after %v, want 3 at once and why\n%s", o.code, time.Since(start), o.stderr)
		}
		s, text := readSpec(t, out)
		if len(s.Transactions) != 2 || !strings.Contains(text, "over 3s") || !strings.Contains(text, "SELECT v FROM kv WHERE k = :kv_k") ||
			!strings.Contains(text, "kv_k_lo: {type: int, min: 1, max: 100}") {
			t.Errorf("the file of a cut window:\n%s", text)
		}
	})
}

// TestCaptureRefusesMariaDB: performance_schema off, and a user who may
// not read it, each get one message with the setting or GRANT to give.
func TestCaptureRefusesMariaDB(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two servers")
	}
	off := testenv.PrivateMariaDB(t)
	refused(t, off.AdminURL(off.NamedDB(t, "app")), "performance_schema is off", "performance_schema=ON")

	srv := testenv.PrivateMariaDB(t, "--performance-schema=ON")
	db := srv.NamedDB(t, "app")
	srv.Exec(t, "", "CREATE USER 'nopriv'@'%' IDENTIFIED BY 'hunter2'", "GRANT SELECT ON app.* TO 'nopriv'@'%'")
	refused(t, fmt.Sprintf("mysql://nopriv:hunter2@127.0.0.1:%d/%s", srv.Port, db),
		"may not read performance_schema", "GRANT SELECT ON performance_schema.* TO 'nopriv'@'%';")
}

// TestCaptureUsage: a missing --target or --out, a window under a second,
// an --out that exists (without --force), is a folder, or lies in a folder
// that does not exist or cannot be written exit 2 before connecting.
func TestCaptureUsage(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "app.yaml")
	readOnly := t.TempDir()
	if err := os.Chmod(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 { // root writes anywhere: a read-only mount stands in
		readOnly = "/proc/self"
	}
	if err := os.WriteFile(existing, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capture", "--out", "x.yaml"}, "--target is required"},
		{[]string{"capture", "--target", "postgres://bob:hunter2@127.0.0.1:1/db"}, "--out is required"},
		{[]string{"capture", "--target", "postgres://bob:hunter2@127.0.0.1:1/db", "--out", existing}, "exists: give another --out, or --force"},
		{[]string{"capture", "--target", "postgres://bob:hunter2@127.0.0.1:1/db", "--out", "y.yaml", "--for", "10ms"}, "--for 10ms: want at least 1s"},
		{[]string{"capture", "--target", "env:NOPE_NOT_SET", "--out", "y.yaml"}, "env:NOPE_NOT_SET: the environment variable"},
		{[]string{"capture", "--target", "sqlite:" + filepath.Join(filepath.Dir(existing), "s.db"), "--out", "y.yaml"}, "sqlite keeps no statement statistics"},
		// Found before the window, not after it (issue 49).
		{[]string{"capture", "--target", "postgres://bob:hunter2@127.0.0.1:1/db", "--out", filepath.Join(filepath.Dir(existing), "missing", "y.yaml")}, "missing does not exist"},
		{[]string{"capture", "--target", "postgres://bob:hunter2@127.0.0.1:1/db", "--out", filepath.Dir(existing), "--force"}, "is a directory: name the workload file"},
		{[]string{"capture", "--target", "postgres://bob:hunter2@127.0.0.1:1/db", "--out", filepath.Join(readOnly, "y.yaml")}, "cannot write in"},
	} {
		o := run(t, context.Background(), c.args...)
		if o.code != 2 || !strings.Contains(o.stderr, c.want) || strings.Contains(o.stderr, "hunter2") {
			t.Errorf("%v: exit %d, want 2 and %q (no password)\n%s", c.args, o.code, c.want, o.stderr)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "mine" {
		t.Error("the existing file was overwritten")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(existing), "s.db")); err == nil {
		t.Error("capture created a SQLite file")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(existing), ".rightsize*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestCaptureLogPostgres: on a private PostgreSQL logging every
// statement to csvlog, capture --log groups the application's statements
// as the log's transactions ran them (the read-then-update in its order),
// reads the amount production used (1.50, a constant the statistics
// normalize away) and finds its account keys evenly drawn; no text value
// of production is written. A server that does not log to csvlog is
// refused before the window.
func TestCaptureLogPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a workload for 10 s")
	}
	// The log rotates every 200 kB, several times in the window, into
	// files named by the time (log_filename's default): --log names the
	// folder.
	srv := testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements", "logging_collector=on",
		"log_destination=csvlog", "log_rotation_size=200kB", "log_min_duration_statement=0")
	plain := testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements")
	pdb := plain.NamedDB(t, "app")
	plain.Exec(t, pdb, "CREATE EXTENSION pg_stat_statements")
	text := captureLog(t, srv, filepath.Join(srv.Dir, "data", "log"), plain.AdminURL(pdb), "log_destination")
	if !regexp.MustCompile(`\(csvlog [^)]*: \d+ files, `).MatchString(text) || strings.Contains(text, "WARNING") {
		t.Errorf("the rotated log was not read whole (its files named in the header, no warning):\n%s", text)
	}
}

// TestCaptureLogMariaDB: the same on a private MariaDB writing every
// statement to its slow query log; a server whose slow log is off is
// refused.
func TestCaptureLogMariaDB(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a workload for 10 s")
	}
	srv := testenv.PrivateMariaDB(t, "--performance-schema=ON", "--slow-query-log=ON", "--long-query-time=0", "--slow-query-log-file=slow.log")
	plain := testenv.PrivateMariaDB(t, "--performance-schema=ON")
	captureLog(t, srv, filepath.Join(srv.Dir, "data", "slow.log"), plain.AdminURL(plain.NamedDB(t, "app")), "slow query log is off")
}

// captureLog runs production on srv and captures it with --log file,
// after checking that capture --log refuses plainURL, a server that does
// not log its statements, saying so (refusal). It returns the file.
func captureLog(t *testing.T, srv *testenv.Server, logFile, plainURL, refusal string) string {
	prod := srv.NamedDB(t, "prod")
	loadCaptureTables(t, srv, prod)
	file := filepath.Join(t.TempDir(), "app.yaml")
	o := run(t, context.Background(), "capture", "--target", plainURL, "--for", "1h", "--log", logFile, "--out", file)
	if o.code != 2 || !strings.Contains(o.stderr, refusal) {
		t.Errorf("capture --log of a server that does not log its statements: exit %d, want 2 and %q\n%s", o.code, refusal, o.stderr)
	}

	ctx, stop := context.WithCancel(context.Background())
	_, wait := production(ctx, t, srv, prod)
	time.Sleep(time.Second)
	o = run(t, context.Background(), "capture", "--target", srv.AdminURL(prod), "--for", "8s", "--log", logFile, "--out", file)
	stop()
	if failed := wait(); failed > 0 {
		t.Errorf("the application failed or fell behind %d times", failed)
	}
	if o.code != 0 {
		t.Fatalf("capture: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	spec, text := readSpec(t, file)
	got := shares(spec)
	for name, want := range prodShares {
		if math.Abs(got[name]-want) > 0.04 {
			t.Errorf("captured share of %s %.3f, want %.2f within 4 points (mix %v)\n%s", name, got[name], want, got, text)
		}
	}
	var tx *workfile.Transaction
	for i := range spec.Transactions {
		if spec.Transactions[i].Name == "select_update_acct" {
			tx = &spec.Transactions[i]
		}
	}
	if tx == nil || len(tx.Statements) != 2 || !strings.Contains(tx.Statements[0].Forms[0].SQL, "FOR UPDATE") || tx.Autocommit {
		t.Fatalf("the read-then-update is not one transaction of two statements, the read first:\n%s", text)
	}
	for _, want := range []string{"From the server's log:", "{type: decimal, min: 1.50, max: 1.50}", "sessions were inside a", "as even as a uniform draw"} {
		if !strings.Contains(text, want) {
			t.Errorf("the file lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "secret-") || strings.Contains(text, "offered as one transaction") || strings.Contains(text, "dist: zipfian") {
		t.Errorf("the file holds a text of production's, a guessed grouping, or skew in evenly drawn keys:\n%s", text)
	}
	return text
}

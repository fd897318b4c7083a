package oltp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// countingMeter records how many times each operation ran and failed.
type countingMeter struct {
	counts, failed []int
	open           int
}

func newMeter(w workload.Workload) *countingMeter {
	n := len(w.Meta().Ops)
	return &countingMeter{counts: make([]int, n), failed: make([]int, n)}
}

func (m *countingMeter) Start(op int) workload.Span {
	m.open++
	return workload.Span{Op: op}
}

func (m *countingMeter) Count(int, int64) {}

func (m *countingMeter) Retrying() bool { return false }

func (m *countingMeter) End(s workload.Span, err error) {
	m.open--
	m.counts[s.Op]++
	if err != nil {
		m.failed[s.Op]++
	}
}

// testProgress records prepare's reports; it is safe for concurrent use so
// the race detector can judge the loaders' use of it.
type testProgress struct {
	mu       sync.Mutex
	total    int64
	added    int64
	messages []string
	onAdd    func(added int64)
}

func (p *testProgress) Total(n int64) { p.mu.Lock(); p.total = n; p.mu.Unlock() }
func (p *testProgress) Add(n int64) {
	p.mu.Lock()
	p.added += n
	a, f := p.added, p.onAdd
	p.mu.Unlock()
	if f != nil {
		f(a)
	}
}
func (p *testProgress) Message(s string) {
	p.mu.Lock()
	p.messages = append(p.messages, s)
	p.mu.Unlock()
}

// open builds an instance of w on rawURL with args as command-line flags.
func open(t *testing.T, w *Workload, rawURL string, args ...string) *instance {
	t.Helper()
	return testenv.Open(t, w, rawURL, args...).(*instance)
}

func sqliteURL(t *testing.T) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "data", "sbtest.db")
}

// admin opens a plain connection to the instance's database.
func admin(t *testing.T, in *instance) dialect.Conn {
	t.Helper()
	c, err := in.Target.D.Connect(context.Background(), in.Target.T)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func rows(t *testing.T, c dialect.Conn, table string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), countRowsSQL(table), nil, &n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func exists(t *testing.T, c dialect.Conn, table string) bool {
	t.Helper()
	ok, err := c.TableExists(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func mustExec(t *testing.T, c dialect.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// perTxn is what one event of each script runs with default options, by op
// name; sysbench reports read/write/other per transaction as in the comments.
var perTxn = map[string]map[string]int{
	// 14 reads, 4 writes, 2 other.
	"oltp_read_write": {"begin": 1, "point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1,
		"distinct_range": 1, "index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1, "commit": 1},
	// 14 reads, 2 other.
	"oltp_read_only": {"begin": 1, "point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1,
		"distinct_range": 1, "commit": 1},
	// 4 writes, 2 other.
	"oltp_write_only":       {"begin": 1, "index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1, "commit": 1},
	"oltp_point_select":     {"point_select": 1},
	"oltp_update_index":     {"index_update": 1},
	"oltp_update_non_index": {"non_index_update": 1},
	"oltp_insert":           {"insert": 1},
	"oltp_delete":           {"delete": 1},
}

var perTxnKinds = map[string][3]int{ // read, write, other
	"oltp_read_write": {14, 4, 2}, "oltp_read_only": {14, 0, 2}, "oltp_write_only": {0, 4, 2},
	"oltp_point_select": {1, 0, 0}, "oltp_update_index": {0, 1, 0}, "oltp_update_non_index": {0, 1, 0},
	"oltp_insert": {0, 1, 0}, "oltp_delete": {0, 1, 0},
}

const steps = 50

// runSteps runs every script's Event `steps` times on the prepared target and
// checks the statements per event against sysbench's.
func runSteps(t *testing.T, rawURL string, args ...string) {
	ctx := context.Background()
	for _, w := range allWorkloads() {
		t.Run(w.Meta().Name, func(t *testing.T) {
			in := open(t, w, rawURL, args...)
			c := admin(t, in)
			before := rows(t, c, "sbtest1") + rows(t, c, "sbtest2")
			vu, err := in.NewVU(ctx, 0, 42)
			if err != nil {
				t.Fatal(err)
			}
			defer vu.Close()
			m := newMeter(w)
			for i := range steps {
				if err := vu.Event(ctx, m); err != nil {
					t.Fatalf("step %d: %v (class %v)", i, err, in.Classify(err))
				}
			}
			if m.open != 0 {
				t.Errorf("%d spans not ended", m.open)
			}
			var kinds [3]int
			for i, op := range w.Meta().Ops {
				if got, want := m.counts[i], steps*perTxn[w.Meta().Name][op.Name]; got != want {
					t.Errorf("%s: %d, want %d (%d per event)", op.Name, got, want, perTxn[w.Meta().Name][op.Name])
				}
				if m.failed[i] != 0 {
					t.Errorf("%s failed %d times", op.Name, m.failed[i])
				}
				kinds[op.Kind] += m.counts[i]
			}
			want := perTxnKinds[w.Meta().Name]
			for k := range kinds {
				if kinds[k] != steps*want[k] {
					t.Errorf("%v statements: %d, want %d per event", workload.OpKind(k), kinds[k]/steps, want[k])
				}
			}
			after := rows(t, c, "sbtest1") + rows(t, c, "sbtest2")
			switch w.Meta().Name {
			case "oltp_insert":
				if after != before+steps {
					t.Errorf("rows %d -> %d after %d inserts", before, after, steps)
				}
			case "oltp_delete":
				if after > before || after < before-steps {
					t.Errorf("rows %d -> %d after %d deletes", before, after, steps)
				}
			default:
				if after != before {
					t.Errorf("rows %d -> %d; %s keeps the row count", before, after, w.Meta().Name)
				}
			}
		})
	}
}

// prepareRunCleanup is the whole life cycle on one database.
func prepareRunCleanup(t *testing.T, rawURL string) {
	ctx := context.Background()
	args := []string{"--tables=2", "--table-size=500"}
	in := open(t, NewReadWrite(), rawURL, args...)
	p := &testProgress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{Threads: 2}, p); err != nil {
		t.Fatal(err)
	}
	if p.total != 1000 || p.added != 1000 {
		t.Errorf("progress total %d added %d, want 1000", p.total, p.added)
	}
	c := admin(t, in)
	for _, tb := range []string{"sbtest1", "sbtest2"} {
		if n := rows(t, c, tb); n != 500 {
			t.Errorf("%s has %d rows", tb, n)
		}
		var lo, hi, kmin, kmax int64
		if err := c.QueryRow(ctx, "SELECT MIN(id), MAX(id), MIN(k), MAX(k) FROM "+tb, nil, &lo, &hi, &kmin, &kmax); err != nil {
			t.Fatal(err)
		}
		if lo != 1 || hi != 500 || kmin < 1 || kmax > 500 {
			t.Errorf("%s: id [%d,%d] k [%d,%d], want id [1,500], k within", tb, lo, hi, kmin, kmax)
		}
		var cv, pad string
		if err := c.QueryRow(ctx, "SELECT c, pad FROM "+tb+" WHERE id = ?", []any{7}, &cv, &pad); err != nil {
			t.Fatal(err)
		}
		if len(strings.TrimRight(cv, " ")) != 119 || len(strings.TrimRight(pad, " ")) != 59 || strings.Count(cv, "-") != 9 {
			t.Errorf("%s row 7: c %q pad %q", tb, cv, pad)
		}
	}
	runSteps(t, rawURL, args...)
	if removed, err := in.Cleanup(ctx, workload.PrepareOptions{}); err != nil || strings.Join(removed, ",") != "sbtest1,sbtest2" {
		t.Fatalf("cleanup: removed %q, %v; want sbtest1 and sbtest2", removed, err)
	}
	for _, tb := range []string{"sbtest1", "sbtest2", metaTable} {
		if exists(t, c, tb) {
			t.Errorf("%s still exists after cleanup", tb)
		}
	}
}

func TestLifecycleSQLite(t *testing.T) { prepareRunCleanup(t, sqliteURL(t)) }

func TestLifecyclePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("server test")
	}
	prepareRunCleanup(t, testenv.PostgresURL(t))
}

func TestLifecycleMySQL(t *testing.T) {
	if testing.Short() {
		t.Skip("server test")
	}
	prepareRunCleanup(t, testenv.MySQLURL(t))
}

func TestOptionsChangeStatements(t *testing.T) {
	ctx := context.Background()
	url := sqliteURL(t)
	in := open(t, NewReadWrite(), url, "--table-size=300")
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want map[string]int
	}{
		{[]string{"--skip-trx"}, map[string]int{"begin": 0, "commit": 0, "point_select": 10, "insert": 1}},
		{[]string{"--range-selects=false"}, map[string]int{"begin": 1, "simple_range": 0, "distinct_range": 0, "point_select": 10}},
		{[]string{"--point-selects=3", "--sum-ranges=2", "--delete-inserts=2", "--rand-type=zipfian"}, map[string]int{"point_select": 3, "sum_range": 2, "delete": 2, "insert": 2}},
		{[]string{"--rand-type=uniform", "--range-size=1", "--index-updates=0"}, map[string]int{"index_update": 0, "non_index_update": 1}},
	} {
		w := NewReadWrite()
		in := open(t, w, url, append([]string{"--table-size=300"}, tc.args...)...)
		vu, err := in.NewVU(ctx, 1, 7)
		if err != nil {
			t.Fatal(err)
		}
		m := newMeter(w)
		for range 10 {
			if err := vu.Event(ctx, m); err != nil {
				t.Fatalf("%v: %v", tc.args, err)
			}
		}
		vu.Close()
		for i, op := range w.Meta().Ops {
			if want, ok := tc.want[op.Name]; ok && m.counts[i] != 10*want {
				t.Errorf("%v: %s %d per event, want %d", tc.args, op.Name, m.counts[i]/10, want)
			}
		}
	}
	// oltp_point_select ignores --point-selects, as sysbench.
	w := NewPointSelect()
	in2 := open(t, w, url, "--table-size=300", "--point-selects=9")
	vu, err := in2.NewVU(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer vu.Close()
	m := newMeter(w)
	if err := vu.Event(ctx, m); err != nil || m.counts[0] != 1 {
		t.Errorf("point select: %v, %d statements", err, m.counts[0])
	}
}

func TestInsertWithoutAutoInc(t *testing.T) {
	ctx := context.Background()
	url := sqliteURL(t)
	in := open(t, NewInsert(), url, "--auto-inc=false", "--tables=2")
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	c := admin(t, in)
	if n := rows(t, c, "sbtest1"); n != 0 {
		t.Fatalf("oltp_insert --auto-inc=false prepares empty tables (sysbench); got %d rows", n)
	}
	var vus []workload.VU
	for i := range 3 {
		vu, err := in.NewVU(ctx, i, uint64(100+i))
		if err != nil {
			t.Fatal(err)
		}
		defer vu.Close()
		vus = append(vus, vu)
	}
	m := newMeter(NewInsert())
	for range 100 {
		for _, vu := range vus {
			if err := vu.Event(ctx, m); err != nil {
				t.Fatalf("insert: %v (ids must be unique across VUs)", err)
			}
		}
	}
	if n := rows(t, c, "sbtest1") + rows(t, c, "sbtest2"); n != 300 {
		t.Errorf("%d rows after 300 inserts", n)
	}
}

func TestForeignTables(t *testing.T) {
	ctx := context.Background()
	url := sqliteURL(t)
	in := open(t, NewReadWrite(), url, "--tables=3", "--table-size=100")
	d := in.Target.D
	if _, err := d.EnsureDatabase(ctx, in.Target.T); err != nil {
		t.Fatal(err)
	}
	c := admin(t, in)
	mustExec(t, c, "CREATE TABLE sbtest2 (id INTEGER PRIMARY KEY, precious TEXT)")
	mustExec(t, c, "INSERT INTO sbtest2 (id, precious) VALUES (1, 'keep me')")
	mustExec(t, c, "CREATE TABLE users (id INTEGER PRIMARY KEY)")

	// Refused, and nothing at all changed.
	err := in.Prepare(ctx, workload.PrepareOptions{}, nil)
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "sbtest2") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("prepare over a foreign table: %v", err)
	}
	if exists(t, c, "sbtest1") || exists(t, c, "sbtest3") || rows(t, c, "sbtest2") != 1 {
		t.Fatal("refused prepare changed something")
	}

	// Cleanup without --force leaves the foreign table (and everything else) alone.
	_, err = in.Cleanup(ctx, workload.PrepareOptions{})
	if !errors.Is(err, ErrNotOwned) || rows(t, c, "sbtest2") != 1 || !exists(t, c, "users") {
		t.Fatalf("cleanup touched a foreign table: %v", err)
	}

	// Prepare with only the other tables, then cleanup: sbtest1 and 3 go, sbtest2 stays.
	mustExec(t, c, "ALTER TABLE sbtest2 RENAME TO keep_sbtest2")
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "DROP TABLE sbtest2")
	mustExec(t, c, "DELETE FROM "+metaTable+" WHERE object_name = 'sbtest2'")
	mustExec(t, c, "ALTER TABLE keep_sbtest2 RENAME TO sbtest2")
	removed, err := in.Cleanup(ctx, workload.PrepareOptions{})
	if !errors.Is(err, ErrNotOwned) || strings.Join(removed, ",") != "sbtest1,sbtest3" {
		t.Fatalf("cleanup: removed %q, %v; want sbtest1 and sbtest3, then ErrNotOwned", removed, err)
	}
	if exists(t, c, "sbtest1") || exists(t, c, "sbtest3") || rows(t, c, "sbtest2") != 1 || !exists(t, c, "users") {
		t.Fatal("cleanup dropped the wrong tables")
	}
	if exists(t, c, metaTable) {
		t.Error("empty metadata table left behind")
	}

	// --force takes the foreign table over, and cleanup --force drops
	// unrecorded sbtest tables, never anything else.
	if err := in.Prepare(ctx, workload.PrepareOptions{Force: true}, nil); err != nil {
		t.Fatal(err)
	}
	if rows(t, c, "sbtest2") != 100 {
		t.Fatal("forced prepare did not reload sbtest2")
	}
	mustExec(t, c, "DELETE FROM "+metaTable)
	if _, err := in.Cleanup(ctx, workload.PrepareOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"sbtest1", "sbtest2", "sbtest3"} {
		if exists(t, c, tb) {
			t.Errorf("%s survived cleanup --force", tb)
		}
	}
	if !exists(t, c, "users") {
		t.Error("cleanup --force dropped a table that is not sbtest")
	}
}

func TestRestartablePrepare(t *testing.T) {
	ctx := context.Background()
	url := sqliteURL(t)
	in := open(t, NewReadWrite(), url, "--tables=3", "--table-size=20000")

	// Interrupt the first prepare part-way through loading.
	cctx, cancel := context.WithCancel(ctx)
	p := &testProgress{onAdd: func(a int64) {
		if a >= 25000 {
			cancel()
		}
	}}
	if err := in.Prepare(cctx, workload.PrepareOptions{}, p); err == nil {
		t.Fatal("interrupted prepare returned nil")
	}
	cancel()
	c := admin(t, in)
	if !exists(t, c, "sbtest2") {
		t.Fatal("interrupted prepare left no partial table to resume from")
	}
	if exists(t, c, "k_2") {
		t.Log("index exists early")
	}

	// Mark sbtest1 (complete) so we can see it is kept, not reloaded.
	mustExec(t, c, "UPDATE sbtest1 SET c = 'kept' WHERE id = 1")

	p = &testProgress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if p.total != 40000 {
		t.Errorf("resumed prepare loads %d rows, want 40000 (sbtest2 and sbtest3)", p.total)
	}
	for _, tb := range []string{"sbtest1", "sbtest2", "sbtest3"} {
		if n := rows(t, c, tb); n != 20000 {
			t.Errorf("%s: %d rows", tb, n)
		}
	}
	var cv string
	if err := c.QueryRow(ctx, "SELECT c FROM sbtest1 WHERE id = 1", nil, &cv); err != nil || cv != "kept" {
		t.Errorf("sbtest1 was reloaded: %q, %v", cv, err)
	}

	// A third prepare does nothing; a table missing rows is reloaded.
	mustExec(t, c, "DELETE FROM sbtest3 WHERE id <= 10")
	p = &testProgress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if p.total != 20000 || rows(t, c, "sbtest3") != 20000 {
		t.Errorf("reload of a damaged table: total %d, rows %d", p.total, rows(t, c, "sbtest3"))
	}

	// Another --table-size reloads everything.
	in2 := open(t, NewReadOnly(), url, "--tables=3", "--table-size=1000")
	if err := in2.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, c, "sbtest1"); n != 1000 {
		t.Errorf("sbtest1 has %d rows after a new --table-size", n)
	}
}

// Tables made by sysbench (no rightsize_objects) run as they are; missing
// ones are named.
func TestRunOnForeignTables(t *testing.T) {
	ctx := context.Background()
	url := sqliteURL(t)
	in := open(t, NewReadWrite(), url, "--tables=2", "--table-size=50")
	if _, err := in.Target.D.EnsureDatabase(ctx, in.Target.T); err != nil {
		t.Fatal(err)
	}
	c := admin(t, in)
	mustExec(t, c, createTableSQL(in.Target.D, 1, true, ""))
	for i := 1; i <= 50; i++ {
		mustExec(t, c, "INSERT INTO sbtest1 (k, c, pad) VALUES (?, ?, ?)", i, fmt.Sprint("c", i), "p")
	}
	mustExec(t, c, createIndexSQL(1))
	_, err := in.NewVU(ctx, 0, 1)
	if !errors.Is(err, ErrMissingTables) || !strings.Contains(err.Error(), "sbtest2") || strings.Contains(err.Error(), "sbtest1,") {
		t.Fatalf("NewVU with sbtest2 missing: %v", err)
	}
	in1 := open(t, NewReadWrite(), url, "--tables=1", "--table-size=50")
	vu, err := in1.NewVU(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer vu.Close()
	m := newMeter(NewReadWrite())
	for range 20 {
		if err := vu.Event(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if info := in1.Info(); info.ServerProduct != "SQLite" || !strings.HasPrefix(info.ServerVersion, "3.") || info.Dialect != "sqlite" || len(info.Notes) == 0 {
		t.Errorf("Info = %+v", info)
	}
}

// Concurrent VUs on SQLite: writers queue on the lock (BEGIN IMMEDIATE) rather
// than fail; readers proceed.
func TestConcurrentVUsSQLite(t *testing.T) {
	ctx := context.Background()
	url := sqliteURL(t)
	in := open(t, NewReadWrite(), url, "--tables=2", "--table-size=2000")
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 4 {
		w := []*Workload{NewReadWrite(), NewReadOnly(), NewWriteOnly(), NewReadWrite()}[i]
		inst := open(t, w, url, "--tables=2", "--table-size=2000")
		vu, err := inst.NewVU(ctx, i, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer vu.Close()
			m := newMeter(w)
			deadline := time.Now().Add(500 * time.Millisecond)
			for time.Now().Before(deadline) {
				if err := vu.Event(ctx, m); err != nil {
					errs <- fmt.Errorf("%s: %w (class %v)", w.Meta().Name, err, inst.Classify(err))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestStepErrorRollsBack(t *testing.T) {
	ctx := context.Background()
	url := sqliteURL(t)
	in := open(t, NewReadWrite(), url, "--table-size=100")
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	vu, err := in.NewVU(ctx, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer vu.Close()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = vu.Event(cctx, newMeter(NewReadWrite()))
	if err == nil {
		t.Fatal("step with a cancelled context succeeded")
	}
	if got := in.Classify(err).String(); got != "canceled" {
		t.Errorf("class %s, want canceled", got)
	}
	// The VU is still usable: no transaction was left open.
	if err := vu.Event(ctx, newMeter(NewReadWrite())); err != nil {
		t.Fatalf("step after a failed one: %v", err)
	}
}

package dialecttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
)

// Hooks supplies what the suite cannot write in portable SQL. A nil or empty
// field skips the subtests that need it.
type Hooks struct {
	// SessionID returns the server's identifier of c's session
	// (pg_backend_pid(), CONNECTION_ID()).
	SessionID func(ctx context.Context, c dialect.Conn) (int64, error)
	// Kill terminates session id, running on another connection, admin
	// (pg_terminate_backend, KILL).
	Kill func(ctx context.Context, admin dialect.Conn, id int64) error
	// SleepSQL is a statement that runs for at least 5 seconds without locks,
	// e.g. "SELECT pg_sleep(10)"; it is used to cancel a query in flight.
	SleepSQL string
}

// LoadRows is the number of rows the suite bulk-loads.
const LoadRows = 10000

// keys is the number of distinct values of column k: each has LoadRows/keys rows.
const keys = 100

// Run runs the suite without server-specific hooks.
func Run(t *testing.T, d dialect.Dialect, rawURL string) { RunWith(t, d, rawURL, Hooks{}) }

// RunWith runs the suite on the empty database at rawURL. Subtests run one
// after another; each opens its own connections.
func RunWith(t *testing.T, d dialect.Dialect, rawURL string, h Hooks) {
	target, err := d.ParseTarget(rawURL, os.Getenv)
	if err != nil {
		t.Fatalf("ParseTarget: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	connect := func(t *testing.T) dialect.Conn {
		t.Helper()
		c, err := d.Connect(ctx, target)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	t.Run("EnsureDatabaseExisting", func(t *testing.T) {
		created, err := d.EnsureDatabase(ctx, target)
		if err != nil || created {
			t.Fatalf("EnsureDatabase on an existing database = %v, %v; want false, nil", created, err)
		}
	})

	t.Run("Info", func(t *testing.T) {
		info := connect(t).Info()
		if info.ServerVersion == "" {
			t.Errorf("Info().ServerVersion is empty")
		}
		if !info.Encrypted && info.TLSVersion != "" {
			t.Errorf("Info() = %+v: TLS version without encryption", info)
		}
		t.Logf("Info: %+v", info)
	})

	c := connect(t)
	ddl := func(t *testing.T, c dialect.Conn, sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	count := func(t *testing.T, c dialect.Conn, sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := c.QueryRow(ctx, sql, args, &n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	wantClass := func(t *testing.T, what string, err error, want ...errclass.Class) {
		t.Helper()
		got := d.Classify(err)
		for _, w := range want {
			if got == w {
				return
			}
		}
		t.Errorf("%s: Classify(%v) = %v, want %v", what, err, got, want)
	}

	t.Run("TableExists", func(t *testing.T) {
		ok, err := c.TableExists(ctx, "rs_conformance")
		if err != nil || ok {
			t.Fatalf("TableExists before CREATE = %v, %v; want false, nil", ok, err)
		}
	})
	ddl(t, c, "CREATE TABLE rs_conformance ("+d.AutoIncrementPK("id")+
		", k INTEGER NOT NULL DEFAULT 0, c VARCHAR(120) NOT NULL DEFAULT '')"+d.TableOptions())
	t.Run("TableExistsAfterCreate", func(t *testing.T) {
		ok, err := c.TableExists(ctx, "rs_conformance")
		if err != nil || !ok {
			t.Fatalf("TableExists after CREATE = %v, %v; want true, nil", ok, err)
		}
	})

	t.Run("Load", func(t *testing.T) {
		start := time.Now()
		n, err := c.Load(ctx, "rs_conformance", []string{"k", "c"}, &rowSource{n: LoadRows})
		el := time.Since(start)
		if err != nil || n != LoadRows {
			t.Fatalf("Load = %d, %v; want %d, nil", n, err, LoadRows)
		}
		t.Logf("Load: %d rows in %v (%.0f rows/s)", n, el.Round(time.Millisecond), float64(n)/el.Seconds())
		if got := count(t, c, "SELECT COUNT(*) FROM rs_conformance"); got != LoadRows {
			t.Fatalf("COUNT(*) after Load = %d, want %d", got, LoadRows)
		}
		if got := count(t, c, "SELECT COUNT(DISTINCT id) FROM rs_conformance"); got != LoadRows {
			t.Fatalf("distinct ids after Load = %d, want %d", got, LoadRows)
		}
		if got := count(t, c, "SELECT COUNT(*) FROM rs_conformance WHERE c = ?", rowText(42)); got != 1 {
			t.Fatalf("rows with c = %q: %d, want 1", rowText(42), got)
		}
	})

	t.Run("LoadEmpty", func(t *testing.T) {
		n, err := c.Load(ctx, "rs_conformance", []string{"k", "c"}, &rowSource{})
		if err != nil || n != 0 {
			t.Fatalf("Load of no rows = %d, %v; want 0, nil", n, err)
		}
	})

	t.Run("ExecAffected", func(t *testing.T) {
		n, err := c.Exec(ctx, "UPDATE rs_conformance SET c = ? WHERE k = ?", "updated", 7)
		if err != nil || n != LoadRows/keys {
			t.Fatalf("UPDATE = %d, %v; want %d", n, err, LoadRows/keys)
		}
		n, err = c.Exec(ctx, "INSERT INTO rs_conformance (k, c) VALUES (?, ?)", keys+1, "extra")
		if err != nil || n != 1 {
			t.Fatalf("INSERT = %d, %v; want 1", n, err)
		}
		n, err = c.Exec(ctx, "DELETE FROM rs_conformance WHERE k = ?", keys+1)
		if err != nil || n != 1 {
			t.Fatalf("DELETE = %d, %v; want 1", n, err)
		}
		n, err = c.Exec(ctx, "UPDATE rs_conformance SET k = k WHERE k < 0")
		if err != nil || n != 0 {
			t.Fatalf("UPDATE of no rows = %d, %v; want 0", n, err)
		}
	})

	t.Run("QueryRow", func(t *testing.T) {
		var k int64
		var s string
		if err := c.QueryRow(ctx, "SELECT k, c FROM rs_conformance WHERE c = ?", []any{rowText(42)}, &k, &s); err != nil {
			t.Fatal(err)
		}
		if k != 42%keys || s != rowText(42) {
			t.Errorf("QueryRow = %d, %q; want %d, %q", k, s, 42%keys, rowText(42))
		}
		err := c.QueryRow(ctx, "SELECT k FROM rs_conformance WHERE k < ?", []any{0}, &k)
		if !errors.Is(err, dialect.ErrNoRows) {
			t.Errorf("QueryRow of no row: %v, want dialect.ErrNoRows", err)
		}
		if err := c.QueryRow(ctx, "SELECT 1", nil, &k); err != nil || k != 1 {
			t.Errorf("QueryRow(SELECT 1) = %d, %v", k, err)
		}
	})

	t.Run("PreparedStatements", func(t *testing.T) {
		sel, err := c.Prepare(ctx, "SELECT id, c FROM rs_conformance WHERE k BETWEEN ? AND ?")
		if err != nil {
			t.Fatal(err)
		}
		defer sel.Close()
		for _, tc := range []struct{ lo, hi, want int }{{3, 3, LoadRows / keys}, {10, 19, 10 * LoadRows / keys}, {-5, -1, 0}} {
			for range 2 { // the second run reuses the statement
				n, err := sel.Drain(ctx, tc.lo, tc.hi)
				if err != nil || n != tc.want {
					t.Fatalf("Drain(%d, %d) = %d, %v; want %d", tc.lo, tc.hi, n, err, tc.want)
				}
			}
		}
		upd, err := c.Prepare(ctx, "UPDATE rs_conformance SET c = ? WHERE k = ?")
		if err != nil {
			t.Fatal(err)
		}
		n, err := upd.Exec(ctx, "prepared", 8)
		if err != nil || n != LoadRows/keys {
			t.Fatalf("Stmt.Exec = %d, %v; want %d", n, err, LoadRows/keys)
		}
		if err := upd.Close(); err != nil {
			t.Errorf("Stmt.Close: %v", err)
		}
		noArgs, err := c.Prepare(ctx, "SELECT COUNT(*) FROM rs_conformance")
		if err != nil {
			t.Fatal(err)
		}
		defer noArgs.Close()
		if n, err := noArgs.Drain(ctx); err != nil || n != 1 {
			t.Fatalf("Drain without arguments = %d, %v; want 1", n, err)
		}
		// The prepared statements survive other statements on the connection.
		if _, err := c.Exec(ctx, "UPDATE rs_conformance SET k = k WHERE k = ?", 1); err != nil {
			t.Fatal(err)
		}
		if n, err := sel.Drain(ctx, 3, 3); err != nil || n != LoadRows/keys {
			t.Fatalf("Drain after other statements = %d, %v", n, err)
		}
	})

	t.Run("Transactions", func(t *testing.T) {
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := c.Exec(ctx, "DELETE FROM rs_conformance WHERE k = ?", 1)
		if err != nil || n != LoadRows/keys {
			t.Fatalf("DELETE in transaction = %d, %v", n, err)
		}
		if got := count(t, c, "SELECT COUNT(*) FROM rs_conformance"); got != LoadRows-LoadRows/keys {
			t.Fatalf("COUNT inside transaction = %d", got)
		}
		if err := c.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if got := count(t, c, "SELECT COUNT(*) FROM rs_conformance"); got != LoadRows {
			t.Fatalf("COUNT after ROLLBACK = %d, want %d", got, LoadRows)
		}
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "INSERT INTO rs_conformance (k, c) VALUES (?, ?)", keys+2, "committed"); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if got := count(t, connect(t), "SELECT COUNT(*) FROM rs_conformance WHERE k = ?", keys+2); got != 1 {
			t.Fatalf("committed row seen by another connection %d times, want 1", got)
		}
	})

	t.Run("ClassifyConstraint", func(t *testing.T) {
		ddl(t, c, "CREATE TABLE rs_unique (id INTEGER NOT NULL PRIMARY KEY)"+d.TableOptions())
		if _, err := c.Exec(ctx, "INSERT INTO rs_unique (id) VALUES (?)", 1); err != nil {
			t.Fatal(err)
		}
		_, err := c.Exec(ctx, "INSERT INTO rs_unique (id) VALUES (?)", 1)
		if err == nil {
			t.Fatal("duplicate key accepted")
		}
		wantClass(t, "duplicate key", err, errclass.Constraint)
		if d.Classify(nil) != errclass.None {
			t.Errorf("Classify(nil) = %v, want none", d.Classify(nil))
		}
		_, err = c.Exec(ctx, "SELEKT 1")
		wantClass(t, "syntax error", err, errclass.Other)
		// The connection is still usable after statement errors.
		if got := count(t, c, "SELECT COUNT(*) FROM rs_unique"); got != 1 {
			t.Fatalf("COUNT = %d, want 1", got)
		}
	})

	t.Run("ClassifyDeadlock", func(t *testing.T) {
		if d.Capabilities().SingleWriter {
			t.Skip("single-writer database: no row-lock deadlocks")
		}
		testDeadlock(ctx, t, d, connect(t), connect(t), ddl, wantClass)
	})

	t.Run("ClassifyKilledSession", func(t *testing.T) {
		if h.SessionID == nil || h.Kill == nil {
			t.Skip("no Kill hook")
		}
		victim, admin := connect(t), connect(t)
		id, err := h.SessionID(ctx, victim)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Kill(ctx, admin, id); err != nil {
			t.Fatal(err)
		}
		var one int64
		deadline := time.Now().Add(10 * time.Second)
		for err == nil && time.Now().Before(deadline) {
			if err = victim.QueryRow(ctx, "SELECT 1", nil, &one); err == nil {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if err == nil {
			t.Fatal("killed session still answers")
		}
		wantClass(t, "killed session", err, errclass.Connection)
	})

	t.Run("ClassifyCanceled", func(t *testing.T) {
		cc, cancel := context.WithCancel(ctx)
		cancel()
		_, err := connect(t).Exec(cc, "UPDATE rs_conformance SET k = k WHERE k = ?", 1)
		if err == nil {
			t.Fatal("Exec with a cancelled context succeeded")
		}
		wantClass(t, "cancelled before start", err, errclass.Canceled)
		if h.SleepSQL == "" {
			return
		}
		cc, cancel = context.WithCancel(ctx)
		defer cancel()
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		_, err = connect(t).Exec(cc, h.SleepSQL)
		if el := time.Since(start); el > 4*time.Second {
			t.Errorf("cancel took %v", el)
		}
		wantClass(t, "cancelled in flight", err, errclass.Canceled)
	})

	// A virtual user passes one cancellable context to every statement; a
	// prepared statement in flight must still end promptly when it is cancelled.
	t.Run("StmtCanceledInFlight", func(t *testing.T) {
		if h.SleepSQL == "" {
			t.Skip("no SleepSQL hook")
		}
		c := connect(t)
		vuCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		quick, err := c.Prepare(vuCtx, "SELECT COUNT(*) FROM rs_conformance")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if n, err := quick.Drain(vuCtx); err != nil || n != 1 {
				t.Fatalf("quick statement: %d rows, %v", n, err)
			}
		}
		slow, err := c.Prepare(vuCtx, h.SleepSQL)
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		_, err = slow.Drain(vuCtx)
		if el := time.Since(start); el > 4*time.Second {
			t.Errorf("cancel of a prepared statement took %v", el)
		}
		if err == nil {
			t.Fatal("a cancelled statement succeeded")
		}
		wantClass(t, "prepared statement cancelled in flight", err, errclass.Canceled)
	})

	t.Run("ClassifyTimeout", func(t *testing.T) {
		if h.SleepSQL == "" {
			t.Skip("no SleepSQL hook")
		}
		tc, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := connect(t).Exec(tc, h.SleepSQL)
		if el := time.Since(start); el > 4*time.Second {
			t.Errorf("timeout took %v", el)
		}
		wantClass(t, "context deadline", err, errclass.Timeout)
	})

	t.Run("Close", func(t *testing.T) {
		c, err := d.Connect(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

// testDeadlock makes two transactions wait for each other's row locks and
// checks that exactly one fails with a retryable class.
func testDeadlock(ctx context.Context, t *testing.T, d dialect.Dialect, c1, c2 dialect.Conn,
	ddl func(*testing.T, dialect.Conn, string), wantClass func(*testing.T, string, error, ...errclass.Class)) {
	ddl(t, c1, "CREATE TABLE rs_deadlock (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL)"+d.TableOptions())
	ddl(t, c1, "INSERT INTO rs_deadlock (id, v) VALUES (1, 0), (2, 0)")
	const upd = "UPDATE rs_deadlock SET v = v + 1 WHERE id = ?"
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, c := range []dialect.Conn{c1, c2} {
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c1.Exec(ctx, upd, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Exec(ctx, upd, 2); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var err1 error
	wg.Go(func() { _, err1 = c1.Exec(ctx, upd, 2) }) // waits for c2
	time.Sleep(100 * time.Millisecond)
	_, err2 := c2.Exec(ctx, upd, 1) // closes the cycle
	if err2 != nil {
		c2.Rollback(ctx) // releases c1
	}
	wg.Wait()
	if err1 != nil {
		c1.Rollback(ctx)
	}
	if err2 == nil {
		c2.Rollback(ctx)
	}
	if err1 == nil {
		c1.Rollback(ctx)
	}
	switch {
	case err1 == nil && err2 == nil:
		t.Fatal("no deadlock detected")
	case err1 != nil && err2 != nil:
		t.Errorf("both transactions failed: %v; %v", err1, err2)
	}
	for _, err := range []error{err1, err2} {
		if err != nil {
			wantClass(t, "deadlock", err, errclass.Deadlock, errclass.Serialization)
		}
	}
}

// rowSource yields n rows (k, c) with k = i % keys and c = rowText(i), reusing
// one slice as RowSource allows.
type rowSource struct {
	n, i int
	vals [2]any
}

func (r *rowSource) Next() bool {
	if r.i >= r.n {
		return false
	}
	r.i++
	return true
}

func (r *rowSource) Values() ([]any, error) {
	i := r.i - 1
	r.vals[0], r.vals[1] = i%keys, rowText(i)
	return r.vals[:], nil
}

func (r *rowSource) Err() error { return nil }

func rowText(i int) string { return fmt.Sprintf("row-%08d-'quoted'-\\backslash", i) }

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
	if target.Identity == "" {
		t.Errorf("ParseTarget(%s): no Identity (what the target resolves to, for telling duplicate targets)", target)
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
		// The product is named once, in Server; the version is the
		// server's number (its build's suffix may follow).
		if info.ServerProduct == "" {
			t.Errorf("Info().ServerProduct is empty")
		}
		if v := info.ServerVersion; v != "" && (v[0] < '0' || v[0] > '9') {
			t.Errorf("Info().ServerVersion = %q: want the version number first (the product is ServerProduct, %q)", v, info.ServerProduct)
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

	t.Run("Query", func(t *testing.T) { testQuery(ctx, t, d, c, connect(t), ddl) })

	t.Run("ForUpdate", func(t *testing.T) { testForUpdate(ctx, t, d, c, connect, ddl) })

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

	// A caller that bounds each step with a deadline of its own (capture's
	// reads) leaves the connection a context that ends after its last
	// call: the connection must stay usable for the next step's.
	t.Run("ContextEndsBetweenCalls", func(t *testing.T) {
		c := connect(t)
		step, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		st, err := c.Prepare(step, "SELECT COUNT(*) FROM rs_conformance")
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if _, err := st.Drain(step); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRow(step, "SELECT COUNT(*) FROM rs_conformance", nil, &n); err != nil {
			t.Fatal(err)
		}
		<-step.Done()
		time.Sleep(100 * time.Millisecond) // the context's watchers have run
		next, cancel2 := context.WithTimeout(ctx, 10*time.Second)
		defer cancel2()
		if _, err := st.Drain(next); err != nil {
			t.Errorf("a prepared statement after the last step's context ended: %v", err)
		}
		if err := c.QueryRow(next, "SELECT COUNT(*) FROM rs_conformance", nil, &n); err != nil {
			t.Errorf("a query after the last step's context ended: %v", err)
		}
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

// queryRow is a row of rs_query; a NULL column is the zero value.
type queryRow struct {
	id     int64
	amount float64
	text   string // amount as the database prints it
	name   string
	opt    int64
	ts     string
}

// valueScanner is a Scanner destination that keeps the value it is handed
// (a []byte as a string: it is valid only during Scan).
type valueScanner struct{ v any }

func (s *valueScanner) Scan(src any) error {
	if b, ok := src.([]byte); ok {
		src = string(b)
	}
	s.v = src
	return nil
}

// row checks that a row of rs_query scanned into Scanners holds values of
// the types Rows.Scan promises (NULL as nil, integers as int64, the
// DECIMAL as a float64 or its text, the TIMESTAMP as a time.Time or its
// text) and returns it.
func (id *valueScanner) row(t *testing.T, amount, name, opt, ts valueScanner) queryRow {
	t.Helper()
	var r queryRow
	switch v := id.v.(type) {
	case int64:
		r.id = v
	default:
		t.Errorf("id: %T %v, want an int64", id.v, id.v)
	}
	if r.id < 1 || r.id > int64(len(queryRows)) {
		return r
	}
	want := queryRows[r.id-1]
	switch v := amount.v.(type) {
	case float64:
		r.amount, r.text = v, want.text
	case string:
		r.amount, r.text = want.amount, v
	default:
		t.Errorf("id %d: amount %T %v, want a float64 or text", r.id, amount.v, amount.v)
	}
	if v, ok := name.v.(string); ok {
		r.name = v
	} else {
		t.Errorf("id %d: name %T %v, want text", r.id, name.v, name.v)
	}
	switch v := opt.v.(type) {
	case nil:
	case int64:
		r.opt = v
	default:
		t.Errorf("id %d: opt %T %v, want nil or an int64", r.id, opt.v, opt.v)
	}
	switch v := ts.v.(type) {
	case nil:
	case time.Time:
		r.ts = v.Format(time.DateTime)
	case string:
		r.ts = v
	default:
		t.Errorf("id %d: ts %T %v, want nil, a time.Time or text", r.id, ts.v, ts.v)
	}
	return r
}

// queryRows are rs_query's rows. The amounts have two significant decimals
// so that every database prints them alike (SQLite stores DECIMAL 0.50 as
// the REAL 0.5).
var queryRows = []queryRow{
	{1, 1234.56, "1234.56", "alpha", 7, "2024-01-02 03:04:05"},
	{2, 0.75, "0.75", "beta", 0, ""}, // opt and ts are NULL
	{3, 99999.99, "99999.99", "gamma", -3, "2024-12-31 23:59:59"},
	{4, 10.25, "10.25", "delta", 2147483647, "2000-01-01 00:00:00"},
}

// testQuery checks Stmt.Query and Stmt.QueryRow: every supported destination
// type, NULLs, no rows, closing mid-result, statement reuse and errors. c2 is
// a second connection to the same database.
func testQuery(ctx context.Context, t *testing.T, d dialect.Dialect, c, c2 dialect.Conn, ddl func(*testing.T, dialect.Conn, string)) {
	ddl(t, c, "CREATE TABLE rs_query (id INTEGER NOT NULL PRIMARY KEY, amount DECIMAL(12,2) NOT NULL,"+
		" name VARCHAR(40) NOT NULL, opt INTEGER NULL, ts TIMESTAMP NULL)"+d.TableOptions())
	ddl(t, c, `INSERT INTO rs_query (id, amount, name, opt, ts) VALUES
		(1, 1234.56, 'alpha', 7, '2024-01-02 03:04:05'),
		(2, 0.75, 'beta', NULL, NULL),
		(3, 99999.99, 'gamma', -3, '2024-12-31 23:59:59'),
		(4, 10.25, 'delta', 2147483647, '2000-01-01 00:00:00')`)
	prepare := func(t *testing.T, c dialect.Conn, q string) dialect.Stmt {
		t.Helper()
		st, err := c.Prepare(ctx, q)
		if err != nil {
			t.Fatalf("Prepare(%s): %v", q, err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	sel := prepare(t, c, "SELECT id, amount, name, opt, ts FROM rs_query WHERE id BETWEEN ? AND ? ORDER BY id")

	// scanAll reads ids lo..hi into queryRows through scan, which returns the
	// row it read.
	scanAll := func(t *testing.T, what string, lo, hi any, scan func(dialect.Rows) (queryRow, error)) []queryRow {
		t.Helper()
		rows, err := sel.Query(ctx, lo, hi)
		if err != nil {
			t.Fatalf("%s: Query(%v, %v): %v", what, lo, hi, err)
		}
		var got []queryRow
		for rows.Next() {
			r, err := scan(rows)
			if err != nil {
				rows.Close()
				t.Fatalf("%s: Scan: %v", what, err)
			}
			got = append(got, r)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: Err: %v", what, err)
		}
		if err := rows.Close(); err != nil {
			t.Fatalf("%s: Close: %v", what, err)
		}
		return got
	}
	wantRows := func(t *testing.T, what string, got, want []queryRow) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows %+v, want %d", what, len(got), got, len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: row %d = %+v, want %+v", what, i, got[i], want[i])
			}
		}
	}
	// Destinations keep the previous row's values: a NULL must reset them.
	var (
		id, opt      int64
		amount       float64
		name, ts     string
		idInt        int
		optInt32     int32
		amountText   string
		nameB, tsB   []byte
		idF, amountF float64
		optF         float64
		optText      string
		amountB      []byte
		idI32        int32
	)

	t.Run("Int64Float64String", func(t *testing.T) {
		for range 2 { // the same statement twice in a row
			got := scanAll(t, "Query", 1, 4, func(r dialect.Rows) (queryRow, error) {
				err := r.Scan(&id, &amount, &name, &opt, &ts)
				return queryRow{id: id, amount: amount, text: queryRows[id-1].text, name: name, opt: opt, ts: ts}, err
			})
			wantRows(t, "Query", got, queryRows)
		}
	})

	t.Run("IntStringBytesInt32", func(t *testing.T) {
		got := scanAll(t, "Query", 1, 4, func(r dialect.Rows) (queryRow, error) {
			err := r.Scan(&idInt, &amountText, &nameB, &optInt32, &tsB)
			q := queryRows[idInt-1]
			return queryRow{id: int64(idInt), amount: q.amount, text: amountText, name: string(nameB), opt: int64(optInt32), ts: string(tsB)}, err
		})
		wantRows(t, "Query", got, queryRows)
		if nameB == nil || tsB == nil {
			t.Errorf("last row's []byte columns are nil")
		}
	})

	t.Run("NumbersAsOtherTypes", func(t *testing.T) {
		got := scanAll(t, "Query", 1, 4, func(r dialect.Rows) (queryRow, error) {
			err := r.Scan(&idF, &amountB, &name, &optText, &ts)
			q := queryRows[int(idF)-1]
			row := queryRow{id: int64(idF), amount: q.amount, text: string(amountB), name: name, opt: q.opt, ts: ts}
			if want := fmt.Sprint(q.opt); q.opt != 0 && optText != want || q.opt == 0 && optText != "" {
				t.Errorf("id %v: opt as string = %q, want %q", idF, optText, want)
			}
			return row, err
		})
		wantRows(t, "Query", got, queryRows)
		if err := sel.QueryRow(ctx, []any{3, 3}, &idI32, &amountF, &name, &optF, &ts); err != nil {
			t.Fatal(err)
		}
		if idI32 != 3 || amountF != 99999.99 || optF != -3 {
			t.Errorf("QueryRow(3) = %d, %v, %v; want 3, 99999.99, -3", idI32, amountF, optF)
		}
	})

	t.Run("Scanner", func(t *testing.T) {
		var sid, samount, sname, sopt, sts valueScanner
		got := scanAll(t, "Query", 1, 4, func(r dialect.Rows) (queryRow, error) {
			if err := r.Scan(&sid, &samount, &sname, &sopt, &sts); err != nil {
				return queryRow{}, err
			}
			return sid.row(t, samount, sname, sopt, sts), nil
		})
		wantRows(t, "Query", got, queryRows)
		if err := sel.QueryRow(ctx, []any{2, 2}, &sid, &samount, &sname, &sopt, &sts); err != nil {
			t.Fatal(err)
		}
		if got := sid.row(t, samount, sname, sopt, sts); got != queryRows[1] {
			t.Errorf("Stmt.QueryRow(2) = %+v, want %+v", got, queryRows[1])
		}
		err := c.QueryRow(ctx, "SELECT id, amount, name, opt, ts FROM rs_query WHERE id = ?", []any{1}, &sid, &samount, &sname, &sopt, &sts)
		if err != nil {
			t.Fatal(err)
		}
		if got := sid.row(t, samount, sname, sopt, sts); got != queryRows[0] {
			t.Errorf("Conn.QueryRow(1) = %+v, want %+v", got, queryRows[0])
		}
	})

	t.Run("QueryRow", func(t *testing.T) {
		if err := sel.QueryRow(ctx, []any{2, 4}, &id, &amount, &name, &opt, &ts); err != nil {
			t.Fatal(err)
		}
		if got := (queryRow{id, amount, queryRows[1].text, name, opt, ts}); got != queryRows[1] {
			t.Errorf("QueryRow(2, 4) = %+v, want %+v", got, queryRows[1])
		}
		err := sel.QueryRow(ctx, []any{100, 200}, &id, &amount, &name, &opt, &ts)
		if !errors.Is(err, dialect.ErrNoRows) {
			t.Errorf("QueryRow of no row: %v, want dialect.ErrNoRows", err)
		}
		count := prepare(t, c, "SELECT COUNT(*) FROM rs_query")
		if err := count.QueryRow(ctx, nil, &idInt); err != nil || idInt != len(queryRows) {
			t.Errorf("QueryRow(COUNT(*)) = %d, %v; want %d", idInt, err, len(queryRows))
		}
	})

	t.Run("Empty", func(t *testing.T) {
		rows, err := sel.Query(ctx, 100, 200)
		if err != nil {
			t.Fatal(err)
		}
		if rows.Next() {
			t.Error("Next on an empty result = true")
		}
		if err := rows.Scan(&id, &amount, &name, &opt, &ts); err == nil {
			t.Error("Scan after Next returned false succeeded")
		}
		if err := rows.Close(); err != nil || rows.Err() != nil {
			t.Errorf("Close = %v, Err = %v", err, rows.Err())
		}
	})

	t.Run("FloatArgument", func(t *testing.T) {
		big := prepare(t, c, "SELECT id FROM rs_query WHERE amount > ? ORDER BY id")
		for _, arg := range []any{100.5, float32(100.5), 100} {
			rows, err := big.Query(ctx, arg)
			if err != nil {
				t.Fatalf("Query(%T %v): %v", arg, arg, err)
			}
			var ids []int64
			for rows.Next() {
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(ids) != "[1 3]" {
				t.Errorf("amount > %T %v: ids %v, want [1 3]", arg, arg, ids)
			}
		}
	})

	// int16 is not among the types the hot paths encode themselves: it goes
	// through the drivers' own converters.
	t.Run("OtherArgumentTypes", func(t *testing.T) {
		got := scanAll(t, "Query(int16)", int16(3), int64(4), func(r dialect.Rows) (queryRow, error) {
			err := r.Scan(&id, &amount, &name, &opt, &ts)
			return queryRow{id: id, amount: amount, text: queryRows[id-1].text, name: name, opt: opt, ts: ts}, err
		})
		wantRows(t, "Query(int16)", got, queryRows[2:])
	})

	t.Run("CloseMidResult", func(t *testing.T) {
		rows, err := sel.Query(ctx, 1, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatalf("no first row: %v", rows.Err())
		}
		if err := rows.Close(); err != nil {
			t.Fatalf("Close mid-result: %v", err)
		}
		if err := rows.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if rows.Next() {
			t.Fatal("Next after Close = true")
		}
		// The connection runs other statements, prepared or not.
		var n int64
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM rs_query WHERE id > ?", []any{1}, &n); err != nil || n != 3 {
			t.Fatalf("QueryRow after Close = %d, %v; want 3", n, err)
		}
		if err := sel.QueryRow(ctx, []any{4, 4}, &id, &amount, &name, &opt, &ts); err != nil || id != 4 {
			t.Fatalf("Stmt.QueryRow after Close = %d, %v", id, err)
		}
		// A result left open is closed by the next Query of its statement.
		rows, err = sel.Query(ctx, 1, 4)
		if err != nil || !rows.Next() {
			t.Fatalf("Query: %v", err)
		}
		got := scanAll(t, "Query after an open result", 3, 3, func(r dialect.Rows) (queryRow, error) {
			err := r.Scan(&id, &amount, &name, &opt, &ts)
			return queryRow{id: id, amount: amount, text: queryRows[id-1].text, name: name, opt: opt, ts: ts}, err
		})
		wantRows(t, "Query after an open result", got, queryRows[2:3])
		// A fully read result frees the connection even before Close.
		rows, err = sel.Query(ctx, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
		}
		if _, err := c.Exec(ctx, "UPDATE rs_query SET name = name WHERE id = ?", 1); err != nil {
			t.Fatalf("Exec after the last row: %v", err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		rows, err := sel.Query(ctx, 1, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := rows.Scan(&id, &amount, &name, &opt, &ts); err == nil {
			t.Error("Scan before Next succeeded")
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		if err := rows.Scan(&id, &amount); err == nil {
			t.Error("Scan of 2 destinations for 5 columns succeeded")
		}
		if err := rows.Scan(&id, &amount, &name, &opt, &ts, &idInt); err == nil {
			t.Error("Scan of 6 destinations for 5 columns succeeded")
		}
		var b bool
		if err := rows.Scan(&id, &amount, &name, &opt, &b); err == nil {
			t.Error("Scan into *bool succeeded")
		}
		if err := rows.Scan(&id, &id, &name, &opt, &ts); err == nil {
			t.Error("Scan of 1234.56 into *int64 succeeded")
		}
		if err := rows.Scan(&id, &amount, &name, &opt, &ts); err != nil || id != 1 {
			t.Errorf("Scan after failed Scans = %d, %v", id, err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if err := sel.QueryRow(ctx, []any{1, 1}, &id); err == nil {
			t.Error("QueryRow of 1 destination for 5 columns succeeded")
		}
		if _, err := sel.Query(ctx, 1); err == nil {
			t.Error("Query with 1 argument for 2 placeholders succeeded")
		}
		// The statement and the connection still work.
		if err := sel.QueryRow(ctx, []any{1, 1}, &id, &amount, &name, &opt, &ts); err != nil || id != 1 {
			t.Fatalf("QueryRow after errors = %d, %v", id, err)
		}
		// A statement that fails when it runs (the error may come from
		// Query, Next or Close).
		dup := prepare(t, c, "INSERT INTO rs_query (id, amount, name) VALUES (?, ?, ?)")
		err = dup.QueryRow(ctx, []any{1, 1.5, "dup"}, &id)
		if err == nil || errors.Is(err, dialect.ErrNoRows) {
			t.Errorf("duplicate key by QueryRow: %v, want an error", err)
		} else if got := d.Classify(err); got != errclass.Constraint {
			t.Errorf("duplicate key by QueryRow: Classify(%v) = %v, want constraint", err, got)
		}
		rows, err = dup.Query(ctx, 1, 1.5, "dup")
		if err == nil {
			for rows.Next() {
			}
			err = rows.Close()
		}
		if got := d.Classify(err); got != errclass.Constraint {
			t.Errorf("duplicate key by Query: Classify(%v) = %v, want constraint", err, got)
		}
		if n := countOf(ctx, t, c2, "SELECT COUNT(*) FROM rs_query"); n != int64(len(queryRows)) {
			t.Fatalf("COUNT on another connection = %d", n)
		}
		if err := sel.QueryRow(ctx, []any{2, 2}, &id, &amount, &name, &opt, &ts); err != nil || id != 2 {
			t.Fatalf("QueryRow after a failed statement = %d, %v", id, err)
		}
	})
}

func countOf(ctx context.Context, t *testing.T, c dialect.Conn, q string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(ctx, q, nil, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// testForUpdate runs SELECT ... FOR UPDATE (d.ForUpdate) in a transaction,
// prepared and not, and checks that where the database has row locks another
// connection cannot update the row until the transaction ends.
func testForUpdate(ctx context.Context, t *testing.T, d dialect.Dialect, c dialect.Conn, connect func(*testing.T) dialect.Conn,
	ddl func(*testing.T, dialect.Conn, string)) {
	ddl(t, c, "CREATE TABLE rs_lock (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL)"+d.TableOptions())
	ddl(t, c, "INSERT INTO rs_lock (id, name) VALUES (1, 'alpha'), (2, 'beta'), (3, 'gamma')")
	q := "SELECT name FROM rs_lock WHERE id = ?" + d.ForUpdate()
	if (d.ForUpdate() == "") != d.Capabilities().SingleWriter {
		t.Errorf("ForUpdate() = %q with SingleWriter = %v", d.ForUpdate(), d.Capabilities().SingleWriter)
	}
	st, err := c.Prepare(ctx, q)
	if err != nil {
		t.Fatalf("Prepare(%s): %v", q, err)
	}
	defer st.Close()
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := st.QueryRow(ctx, []any{1}, &name); err != nil || name != "alpha" {
		c.Rollback(ctx)
		t.Fatalf("Stmt.QueryRow(%s) = %q, %v", q, name, err)
	}
	if err := c.QueryRow(ctx, q, []any{3}, &name); err != nil || name != "gamma" {
		c.Rollback(ctx)
		t.Fatalf("Conn.QueryRow(%s) = %q, %v", q, name, err)
	}
	if !d.Capabilities().SingleWriter {
		// The row is locked: an update from another connection waits.
		wc, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		_, err := connect(t).Exec(wc, "UPDATE rs_lock SET name = name WHERE id = ?", 1)
		cancel()
		if err == nil {
			t.Error("a row read FOR UPDATE was updated by another connection")
		} else if got := d.Classify(err); got != errclass.Timeout {
			t.Errorf("UPDATE of a row locked FOR UPDATE: Classify(%v) = %v, want timeout", err, got)
		}
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := connect(t).Exec(ctx, "UPDATE rs_lock SET name = name WHERE id = ?", 1); err != nil {
		t.Fatalf("UPDATE after COMMIT = %d, %v", n, err)
	}
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

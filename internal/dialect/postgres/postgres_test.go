package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/dialecttest"
	"github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/testenv"
)

// Hooks are the PostgreSQL-specific parts of the conformance suite.
var Hooks = dialecttest.Hooks{
	SessionID: func(ctx context.Context, c dialect.Conn) (int64, error) {
		var id int64
		err := c.QueryRow(ctx, "SELECT pg_backend_pid()", nil, &id)
		return id, err
	},
	Kill: func(ctx context.Context, admin dialect.Conn, id int64) error {
		var ok bool
		return admin.QueryRow(ctx, "SELECT pg_terminate_backend(?::int)", []any{id}, &ok)
	},
	SleepSQL: "SELECT pg_sleep(10)",
}

func TestConformance(t *testing.T) {
	dialecttest.RunWith(t, postgres.Dialect{}, testenv.PostgresURL(t), Hooks)
}

func connectURL(t *testing.T, raw string, getenv func(string) string) dialect.Conn {
	t.Helper()
	d := postgres.Dialect{}
	target, err := d.ParseTarget(raw, getenv)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTLSInfo checks that Info reports TLS as negotiated: the test server has
// ssl on, so the libpq default (prefer) and require encrypt, disable does not.
func TestTLSInfo(t *testing.T) {
	raw := testenv.PostgresURL(t)
	base, _, _ := strings.Cut(raw, "?")
	for _, tc := range []struct {
		mode string
		want bool
	}{{"", true}, {"?sslmode=require", true}, {"?sslmode=disable", false}} {
		info := connectURL(t, base+tc.mode, nil).Info()
		if info.Encrypted != tc.want {
			t.Errorf("%q: Encrypted = %v, want %v", tc.mode, info.Encrypted, tc.want)
		}
		if info.Encrypted && !strings.HasPrefix(info.TLSVersion, "TLS 1.") {
			t.Errorf("%q: TLSVersion = %q", tc.mode, info.TLSVersion)
		}
		if !strings.HasPrefix(info.ServerVersion, "1") || info.ServerProduct != "PostgreSQL" {
			t.Errorf("%q: Server %q, ServerVersion %q; want PostgreSQL 1x", tc.mode, info.ServerProduct, info.ServerVersion)
		}
		t.Logf("%q: %+v", tc.mode, info)
	}
}

// TestEnvDatabase checks that PGDATABASE given through getenv chooses the database.
func TestEnvDatabase(t *testing.T) {
	raw := testenv.PostgresURL(t)
	d := postgres.Dialect{}
	want, err := d.ParseTarget(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PGDATABASE": want.Database, "PGHOST": "127.0.0.1", "PGUSER": "postgres", "PGSSLMODE": "disable"}
	c := connectURL(t, "postgres://", func(k string) string { return env[k] })
	var got string
	if err := c.QueryRow(context.Background(), "SELECT current_database()", nil, &got); err != nil {
		t.Fatal(err)
	}
	if got != want.Database {
		t.Errorf("current_database() = %q, want %q", got, want.Database)
	}
	if c.Info().Encrypted {
		t.Errorf("PGSSLMODE=disable ignored")
	}
}

// TestConnectErrorHasNoPassword connects with a wrong password (the server
// trusts local connections, so use a user that does not exist) and a refused port.
func TestConnectErrorHasNoPassword(t *testing.T) {
	testenv.PostgresURL(t) // skips when there is no server
	d := postgres.Dialect{}
	const pw = "Sup3rSecretPW"
	for _, raw := range []string{
		"postgres://nobody_rs:" + pw + "@127.0.0.1:5432/nodb_rs?sslmode=disable",
		"postgres://nobody_rs:" + pw + "@127.0.0.1:1/nodb_rs?sslmode=disable",
	} {
		target, err := d.ParseTarget(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := d.Connect(ctx, target)
		cancel()
		if err == nil {
			c.Close()
			t.Fatalf("%s: connected", target)
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("error contains the password: %v", err)
		}
		// A role the server does not know is an authentication failure,
		// which no retry mends; a port nobody listens on is a connection
		// error.
		want := errclass.Connection
		if strings.Contains(raw, ":5432/") {
			want = errclass.Auth
		}
		if got := d.Classify(err); got != want {
			t.Errorf("Classify(%v) = %v, want %v", err, got, want)
		}
	}
}

// TestStmtQueryTypes checks Stmt.Query on PostgreSQL types beyond the
// conformance suite's: bytea (hex text, and an argument that goes through
// pgx's encoders), float8, bigint, numeric and timestamptz, with arguments on
// the fast path and on pgx's.
func TestStmtQueryTypes(t *testing.T) {
	c := connectURL(t, testenv.PostgresURL(t), nil)
	ctx := context.Background()
	for _, q := range []string{
		"SET TIME ZONE 'UTC'",
		`CREATE TABLE rs_pgtypes (id BIGINT PRIMARY KEY, b BYTEA, f FLOAT8, n NUMERIC(30,10), tz TIMESTAMPTZ)`,
		`INSERT INTO rs_pgtypes VALUES (9007199254740993, '\x00ff10', 2.5, 12345678901234567890.0123456789, '2024-01-02 03:04:05.25+00'),
			(2, NULL, NULL, NULL, NULL)`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s, err := c.Prepare(ctx, "SELECT id, b, b, f, f, n, n, tz FROM rs_pgtypes WHERE id = ? OR b = ? ORDER BY id DESC")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var (
		id       int64
		b        = make([]byte, 0, 8)
		bs, ns   string
		fs       string
		tz       string
		f, nf    float64
		fi       int64
		wantB    = []byte{0, 0xff, 0x10}
		buf0     = &b[:1][0]
		idString = "9007199254740993"
	)
	// A []byte argument for a bytea parameter goes through pgx's encoders.
	for _, args := range [][]any{{int64(9007199254740993), []byte("none")}, {0, wantB}} {
		if err := s.QueryRow(ctx, args, &id, &b, &bs, &f, &fs, &nf, &ns, &tz); err != nil {
			t.Fatalf("QueryRow(%v): %v", args, err)
		}
		if fmt.Sprint(id) != idString || string(b) != string(wantB) || bs != string(wantB) || f != 2.5 || fs != "2.5" {
			t.Errorf("QueryRow(%v) = %d, %x, %q, %v, %q", args, id, b, bs, f, fs)
		}
		if nf != 12345678901234567890.0123456789 || ns != "12345678901234567890.0123456789" || tz != "2024-01-02 03:04:05.25+00" {
			t.Errorf("QueryRow(%v) numeric = %v, %q; timestamptz = %q", args, nf, ns, tz)
		}
		if &b[0] != buf0 {
			t.Errorf("Scan into a *[]byte with room allocated a new slice")
		}
	}
	// fi: a float8 of 2.5 does not scan into an integer.
	rows, err := s.Query(ctx, 9007199254740993, nil)
	if err != nil || !rows.Next() {
		t.Fatalf("Query: %v", err)
	}
	if err := rows.Scan(&id, &b, &bs, &f, &fi, &nf, &ns, &tz); err == nil {
		t.Errorf("Scan of 2.5 into *int64 succeeded")
	}
	rows.Close()
	// NULLs: Query with a float64 argument on the fast path.
	nulls, err := c.Prepare(ctx, "SELECT b, f, n, tz FROM rs_pgtypes WHERE id = 2 AND COALESCE(f, ?) > 0")
	if err != nil {
		t.Fatal(err)
	}
	defer nulls.Close()
	if err := nulls.QueryRow(ctx, []any{1.5}, &b, &f, &nf, &tz); err != nil {
		t.Fatal(err)
	}
	if b != nil || f != 0 || nf != 0 || tz != "" {
		t.Errorf("NULLs scanned as %v, %v, %v, %q", b, f, nf, tz)
	}
}

// A statement with many parameters (TPC-C inserts 15 order lines of 9
// values at once) keeps every value in its place.
func TestManyParameters(t *testing.T) {
	c := connectURL(t, testenv.PostgresURL(t), nil)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE rs_many (a INTEGER, b TEXT, c NUMERIC(6,2))"); err != nil {
		t.Fatal(err)
	}
	const rows = 50
	q := "INSERT INTO rs_many (a, b, c) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", rows), ", ")
	s, err := c.Prepare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var args []any
	for i := range rows {
		args = append(args, int64(i), "row-"+strconv.Itoa(i), float64(i)+0.25)
	}
	if n, err := s.Exec(ctx, args...); err != nil || n != rows {
		t.Fatalf("insert of %d rows: %d, %v", rows, n, err)
	}
	var bad int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM rs_many WHERE b <> 'row-' || a OR c <> a + 0.25", nil, &bad); err != nil || bad != 0 {
		t.Errorf("%d rows with values out of place (%v)", bad, err)
	}
}

// BEGIN is deferred to the transaction's first statement: the transaction
// must still cover that statement, on every path a statement can take.
func TestDeferredBegin(t *testing.T) {
	c := connectURL(t, testenv.PostgresURL(t), nil)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE rs_tx (id INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	ins, err := c.Prepare(ctx, "INSERT INTO rs_tx (id, v) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := c.Prepare(ctx, "SELECT v FROM rs_tx WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	count := func() (n int64) {
		t.Helper()
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM rs_tx", nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Exec on the fast path, rolled back.
	must(c.Begin(ctx))
	if _, err := ins.Exec(ctx, 1, "a"); err != nil {
		t.Fatal(err)
	}
	must(c.Rollback(ctx))
	if n := count(); n != 0 {
		t.Errorf("rolled-back insert left %d rows: BEGIN was not sent with it", n)
	}
	// Query first, then Exec, committed.
	must(c.Begin(ctx))
	if rows, err := sel.Query(ctx, 1); err != nil {
		t.Fatal(err)
	} else if rows.Next() || rows.Close() != nil {
		t.Fatal("row 1 exists")
	}
	if _, err := ins.Exec(ctx, 2, "b"); err != nil {
		t.Fatal(err)
	}
	must(c.Commit(ctx))
	if n := count(); n != 1 {
		t.Errorf("committed insert: %d rows, want 1", n)
	}
	// A failing first statement: the transaction is aborted, rolled back, and
	// the connection works after it.
	must(c.Begin(ctx))
	if _, err := ins.Exec(ctx, 2, "dup"); err == nil {
		t.Fatal("duplicate key accepted")
	}
	must(c.Rollback(ctx))
	var v string
	if err := sel.QueryRow(ctx, []any{2}, &v); err != nil || v != "b" {
		t.Fatalf("after a failed transaction: %q, %v", v, err)
	}
	// An empty transaction, and one through Conn.Exec (BEGIN sent on its own).
	must(c.Begin(ctx))
	must(c.Commit(ctx))
	must(c.Begin(ctx))
	if _, err := c.Exec(ctx, "INSERT INTO rs_tx (id, v) VALUES (3, 'c')"); err != nil {
		t.Fatal(err)
	}
	must(c.Rollback(ctx))
	if n := count(); n != 1 {
		t.Errorf("rolled-back Conn.Exec insert: %d rows, want 1", n)
	}
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Begin(ctx); err == nil {
		t.Error("Begin inside a pending transaction accepted")
	}
	must(c.Rollback(ctx))
}

// timeScanner keeps the value a Scanner destination is handed.
type timeScanner struct{ v any }

func (s *timeScanner) Scan(src any) error { s.v = src; return nil }

// TestConnectStoreDateStyle: a store's connection reads times into a
// Scanner as time.Time whatever DateStyle and TimeZone the URL (or the
// server) sets (pgx parses the text of ISO style only), bytes whatever
// bytea_output, and floats exactly whatever extra_float_digits.
func TestConnectStoreDateStyle(t *testing.T) {
	ctx := context.Background()
	d := postgres.Dialect{}
	raw := testenv.PostgresURL(t)
	sep := "?"
	if strings.Contains(raw, "?") {
		sep = "&"
	}
	target, err := d.ParseTarget(raw+sep+"DateStyle=SQL,DMY&timezone=Asia/Kolkata&bytea_output=escape&extra_float_digits=-3", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.ConnectStore(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var style string
	if err := c.QueryRow(ctx, "SHOW DateStyle", nil, &style); err != nil || !strings.HasPrefix(style, "ISO") {
		t.Errorf("DateStyle %q, %v; want ISO", style, err)
	}
	want := time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)
	st, err := c.Prepare(ctx, "SELECT CAST(? AS TIMESTAMPTZ)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got timeScanner
	if err := st.QueryRow(ctx, []any{want}, &got); err != nil {
		t.Fatal(err)
	}
	if tm, ok := got.v.(time.Time); !ok || !tm.Equal(want) {
		t.Errorf("TIMESTAMPTZ into a Scanner: %T %v, want %v", got.v, got.v, want)
	}
	a, b := 0.1, 0.2
	blob := []byte{0, 1, '\\', 0xff}
	st2, err := c.Prepare(ctx, "SELECT CAST(? AS DOUBLE PRECISION), CAST(? AS BYTEA)")
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	var f float64
	var bs []byte
	if err := st2.QueryRow(ctx, []any{a + b, blob}, &f, &bs); err != nil {
		t.Fatal(err)
	}
	if f != a+b || string(bs) != string(blob) {
		t.Errorf("float %v, bytes %q; want %v, %q", f, bs, a+b, blob)
	}
}

// A postgres:// target that points at another database's port (MariaDB's)
// fails with one message that says so, not pgx's "received unexpected
// message: %!w(<nil>)".
func TestConnectToAnotherDatabasesPort(t *testing.T) {
	my := testenv.MySQLURL(t)
	u, err := url.Parse(my)
	if err != nil {
		t.Fatal(err)
	}
	raw := "postgres://postgres@" + u.Host + "/x?sslmode=disable"
	for _, mode := range []string{"disable", "prefer"} {
		tg, err := postgres.Dialect{}.ParseTarget(strings.Replace(raw, "disable", mode, 1), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err = postgres.Dialect{}.Connect(ctx, tg)
		cancel()
		if err == nil {
			t.Fatalf("sslmode=%s: connected to MariaDB's port %s as PostgreSQL", mode, u.Host)
		}
		msg := err.Error()
		if strings.Contains(msg, "%!") || !strings.Contains(msg, "does not speak PostgreSQL's protocol") {
			t.Errorf("sslmode=%s: %s", mode, msg)
		}
	}
}

// A server that accepts and says nothing (PostgreSQL waits for the client,
// so this is a hung server, or one that waits as PostgreSQL does) is given
// up on after the target's connect timeout, for the whole attempt (sslmode
// prefer tries TLS, then plain text), with a message that says so.
func TestConnectTimeoutSilentServer(t *testing.T) {
	addr := testenv.SilentServer(t)
	const timeout = time.Second
	for _, mode := range []string{"disable", "prefer"} {
		tg, err := postgres.Dialect{}.ParseTarget("postgres://postgres:hunter2@"+addr+"/x?sslmode="+mode, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		tg.ConnectTimeout = timeout
		for _, op := range []struct {
			name string
			f    func(context.Context) error
		}{
			{"Connect", func(ctx context.Context) error {
				c, err := postgres.Dialect{}.Connect(ctx, tg)
				if err == nil {
					c.Close()
				}
				return err
			}},
			{"EnsureDatabase", func(ctx context.Context) error {
				_, err := postgres.Dialect{}.EnsureDatabase(ctx, tg)
				return err
			}},
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			start := time.Now()
			err := op.f(ctx)
			took := time.Since(start)
			cancel()
			if err == nil {
				t.Fatalf("sslmode=%s: %s: connected to a silent server", mode, op.name)
			}
			msg := err.Error()
			if took < timeout-50*time.Millisecond || took > timeout+time.Second {
				t.Errorf("sslmode=%s: %s failed after %v, want about %v: %s", mode, op.name, took, timeout, msg)
			}
			if !strings.Contains(msg, "within the connect timeout (1s)") || !strings.Contains(msg, addr) || strings.Contains(msg, "hunter2") || strings.Contains(msg, "\n") {
				t.Errorf("sslmode=%s: %s: %s", mode, op.name, msg)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("sslmode=%s: %s: the error does not wrap context.DeadlineExceeded: %v", mode, op.name, err)
			}
		}
	}
}

// A run of a thousand TPC-C terminals holds a thousand connections of about
// 80 prepared statements each: what a statement keeps after it has run must
// not grow with its arguments (kept per statement, the encoded arguments came
// to 100 MB at that scale).
func TestStatementsKeepNoArgumentBuffers(t *testing.T) {
	c := connectURL(t, testenv.PostgresURL(t), nil)
	ctx := context.Background()
	const nstmt, nargs = 100, 150
	q := "SELECT 1 WHERE ?::text IN (" + strings.TrimSuffix(strings.Repeat("?::text, ", nargs-1), ", ") + ")"
	stmts := make([]dialect.Stmt, nstmt)
	for i := range stmts {
		s, err := c.Prepare(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stmts[i] = s
	}
	args := make([]any, nargs)
	for i := range args {
		args[i] = fmt.Sprintf("argument %022d", i) // 31 bytes
	}
	args[0] = args[nargs-1] // one row
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for _, s := range stmts {
		if n, err := s.Drain(ctx, args...); err != nil || n != 1 {
			t.Fatalf("Drain: %d rows, %v", n, err)
		}
	}
	after := heap()
	runtime.KeepAlive(stmts)
	if grew := int64(after) - int64(before); grew > nstmt*1024 {
		t.Errorf("running %d statements of %d arguments once kept %d bytes more heap (%d per statement); want at most 1 KiB per statement",
			nstmt, nargs, grew, grew/nstmt)
	}
}

// TestTableExistsQualified: a name qualified by its schema is looked up
// there (a workload file's existing sales.orders), an unqualified one in
// the current schema, each part also folded to lower case.
func TestTableExistsQualified(t *testing.T) {
	c := connectURL(t, testenv.PostgresURL(t), nil)
	ctx := context.Background()
	for _, q := range []string{"CREATE SCHEMA sales", "CREATE TABLE sales.orders (id INT)", "CREATE TABLE items (id INT)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for name, want := range map[string]bool{"sales.orders": true, "Sales.Orders": true, "sales.items": false, "orders": false,
		"items": true, "public.items": true, "nope.orders": false} {
		if got, err := c.TableExists(ctx, name); got != want || err != nil {
			t.Errorf("TableExists(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
}

package stmtstats

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
)

// find returns the statement of d whose text holds s.
func find(d capture.Delta, s string) (capture.Stmt, bool) {
	for _, st := range d.Stmts {
		if strings.Contains(st.Text, s) {
			return st, true
		}
	}
	return capture.Stmt{}, false
}

// window opens a reader on c and returns what it counted while run ran.
func window(t *testing.T, ctx context.Context, c dialect.Conn, o Options, run func()) capture.Delta {
	t.Helper()
	r, err := Open(ctx, c, o)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run()
	b, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return capture.Diff(a, b)
}

// On PostgreSQL: a database without the extension is Absent (with how to
// create it), and one with it is read: a statement run five times between
// two snapshots counts five calls, and the reader's own reads are left
// out. (pg_stat_database's commits are flushed a second or more later:
// capture's tests count them over their window.)
func TestPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	srv := testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements")
	db := srv.FreshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := srv.Conn(t, db)
	defer c.Close()
	var nr *NotReady
	if _, err := Open(ctx, c, Options{Whole: true}); !errors.As(err, &nr) || nr.Kind != Absent || !strings.Contains(nr.Reason, "loaded but not created in database "+db) {
		t.Fatalf("without the extension: %v, want Absent and how to create it", err)
	}
	srv.Exec(t, db, "CREATE EXTENSION pg_stat_statements", "CREATE TABLE kv (k int PRIMARY KEY)", "INSERT INTO kv VALUES (1)")
	app := srv.Conn(t, db)
	defer app.Close()
	d := window(t, ctx, c, Options{Whole: true, TopLevel: true, Marker: capture.Marker}, func() {
		for range 5 {
			var k int64
			if err := app.QueryRow(ctx, "SELECT k FROM kv WHERE k = 1", nil, &k); err != nil {
				t.Fatal(err)
			}
		}
	})
	if st, ok := find(d, "FROM kv WHERE k = $1"); !ok || st.Calls != 5 || st.Rows != 5 {
		t.Errorf("statements %+v: want the SELECT of kv with 5 calls and 5 rows", d.Stmts)
	}
	if _, ok := find(d, "pg_stat"); ok {
		t.Errorf("statements %+v: the reader's own are among them", d.Stmts)
	}
}

// On MariaDB: a statement run by text counts in the digests; the
// executions of prepared statements, which the digests do not count, are
// Unseen, and the reader's own (it prepares its queries) are not among them.
func TestMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	srv := testenv.PrivateMariaDB(t, "--performance-schema=ON")
	db := srv.FreshDB(t)
	srv.Exec(t, db, "CREATE TABLE kv (k int PRIMARY KEY)", "INSERT INTO kv VALUES (1)")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := srv.Conn(t, db)
	defer c.Close()
	app := srv.Conn(t, db)
	defer app.Close()
	d := window(t, ctx, c, Options{Whole: true, Marker: capture.Marker}, func() {
		var k int64
		for range 4 {
			if err := app.QueryRow(ctx, "SELECT k FROM kv WHERE k = 1", nil, &k); err != nil {
				t.Fatal(err)
			}
		}
		st, err := app.Prepare(ctx, "SELECT k FROM kv WHERE k = ?")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for range 3 {
			if err := st.QueryRow(ctx, []any{1}, &k); err != nil {
				t.Fatal(err)
			}
		}
		// The server ends a statement's event after the client has its
		// rows: one more statement on the same connection starts only once
		// the last execution is counted, so that the reader, on another
		// connection, cannot read the counter before it.
		if err := app.QueryRow(ctx, "SELECT 1", nil, &k); err != nil {
			t.Fatal(err)
		}
	})
	if s, ok := find(d, "FROM `kv` WHERE `k` = ?"); !ok || s.Calls != 4 {
		t.Errorf("statements %+v: want the SELECT of kv with 4 calls", d.Stmts)
	}
	if _, ok := find(d, "performance_schema"); ok {
		t.Errorf("statements %+v: the reader's own are among them", d.Stmts)
	}
	if d.Unseen != 3 {
		t.Errorf("%d executions unseen, want the 3 prepared ones", d.Unseen)
	}
}

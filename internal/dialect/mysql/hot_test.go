package mysql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/mysql"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/testenv"
)

func prepare(t *testing.T, c dialect.Conn, q string) dialect.Stmt {
	t.Helper()
	s, err := c.Prepare(context.Background(), q)
	if err != nil {
		t.Fatalf("Prepare(%q): %v", q, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func wantClass(t *testing.T, what string, err error, want errclass.Class) {
	t.Helper()
	if got := (mysql.Dialect{}).Classify(err); got != want {
		t.Errorf("%s: Classify(%v) = %v, want %v", what, err, got, want)
	}
}

// TestDrainColumnTypes drains rows of many column types, NULLs included: the
// hot path reads rows without decoding them.
func TestDrainColumnTypes(t *testing.T) {
	c := connect(t, testenv.MySQLURL(t))
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE rs_types (id INTEGER NOT NULL PRIMARY KEY, ti TINYINT, si SMALLINT, bi BIGINT UNSIGNED,
			f FLOAT, d DOUBLE, dec1 DECIMAL(10,3), s VARCHAR(20), ch CHAR(5), b BLOB, dt DATETIME(6), da DATE,
			tm TIME, ts TIMESTAMP NULL, y YEAR, j JSON, bit1 BIT(3), e ENUM('a','b'))`,
		`INSERT INTO rs_types VALUES (1, -1, 300, 18446744073709551615, 1.5, 2.5, 3.25, 'x', 'abc', 'blob',
			'2024-01-02 03:04:05.123456', '2024-01-02', '-12:00:01', '2024-01-02 03:04:05', 2024, '{"a":1}', b'101', 'b')`,
		`INSERT INTO rs_types (id) VALUES (2), (3)`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	all := prepare(t, c, "SELECT * FROM rs_types WHERE id >= ? ORDER BY id")
	for _, tc := range []struct{ from, want int }{{1, 3}, {2, 2}, {4, 0}} {
		for range 2 {
			if n, err := all.Drain(ctx, tc.from); err != nil || n != tc.want {
				t.Fatalf("Drain(%d) = %d, %v; want %d", tc.from, n, err, tc.want)
			}
		}
	}
	// (Not tested: Exec of a SELECT statement once MariaDB caches its result
	// metadata hangs in go-sql-driver/mysql v1.10.1, whose mysqlStmt.Exec
	// then skips column packets the server no longer sends.)
	// Drain of a statement without a result set.
	upd := prepare(t, c, "UPDATE rs_types SET s = ? WHERE id = ?")
	if n, err := upd.Drain(ctx, "y", 1); err != nil || n != 0 {
		t.Fatalf("Drain(UPDATE) = %d, %v; want 0, nil", n, err)
	}
	one := prepare(t, c, "SELECT s FROM rs_types WHERE id = ?")
	if n, err := one.Drain(ctx, 1); err != nil || n != 1 {
		t.Fatalf("Drain after Drain(UPDATE) = %d, %v", n, err)
	}
}

// TestStmtArgs checks argument conversion on the hot path.
func TestStmtArgs(t *testing.T) {
	c := connect(t, testenv.MySQLURL(t))
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE rs_args (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, v VARCHAR(40) NULL, t DATETIME NULL)"); err != nil {
		t.Fatal(err)
	}
	ins := prepare(t, c, "INSERT INTO rs_args (id, v, t) VALUES (?, ?, ?)")
	i := 7
	ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, args := range [][]any{
		{1, "s", ts},
		{int64(2), []byte("b"), nil},
		{int32(3), sql.NullString{String: "valuer", Valid: true}, nil},
		{uint(4), sql.NullString{}, nil},
		{&i, json.RawMessage(`{"j":1}`), nil},
		{uint64(1) << 63, 1.5, nil},
		{int8(9), true, nil},
		{int16(10), (*string)(nil), nil},
	} {
		if n, err := ins.Exec(ctx, args...); err != nil || n != 1 {
			t.Fatalf("Exec(%v) = %d, %v", args, n, err)
		}
	}
	var v string
	if err := c.QueryRow(ctx, "SELECT CONCAT(COUNT(*), ',', COUNT(v), ',', COUNT(t), ',', MAX(id)) FROM rs_args", nil, &v); err != nil {
		t.Fatal(err)
	}
	if want := "8,6,1,9223372036854775808"; v != want {
		t.Errorf("table = %s, want %s", v, want)
	}
	if _, err := ins.Exec(ctx, struct{}{}, "x", nil); err == nil {
		t.Error("Exec with a struct argument succeeded")
	}
	if _, err := ins.Exec(ctx, 10); err == nil {
		t.Error("Exec with too few arguments succeeded")
	}
	// The connection is still usable after argument errors.
	if n, err := ins.Exec(ctx, 11, "ok", nil); err != nil || n != 1 {
		t.Fatalf("Exec after errors = %d, %v", n, err)
	}
}

// TestHotCancel checks cancellation of prepared statements and transaction
// statements.
func TestHotCancel(t *testing.T) {
	raw := testenv.MySQLURL(t)
	bg := context.Background()

	t.Run("BeforeStart", func(t *testing.T) {
		c := connect(t, raw)
		s := prepare(t, c, "SELECT ?")
		ctx, cancel := context.WithCancel(bg)
		cancel()
		_, err := s.Drain(ctx, 1)
		wantClass(t, "Drain", err, errclass.Canceled)
		wantClass(t, "Begin", c.Begin(ctx), errclass.Canceled)
		_, err = c.Prepare(ctx, "SELECT 1")
		wantClass(t, "Prepare", err, errclass.Canceled)
		// Nothing was in flight: the session survives.
		if n, err := s.Drain(bg, 1); err != nil || n != 1 {
			t.Fatalf("Drain after a cancelled start = %d, %v", n, err)
		}
	})

	t.Run("BetweenStatements", func(t *testing.T) {
		c := connect(t, raw)
		s := prepare(t, c, "SELECT ?")
		ctx, cancel := context.WithCancel(bg)
		if n, err := s.Drain(ctx, 1); err != nil || n != 1 {
			t.Fatalf("Drain = %d, %v", n, err)
		}
		cancel()
		time.Sleep(10 * time.Millisecond) // let the AfterFunc run
		_, err := s.Drain(ctx, 1)
		wantClass(t, "Drain with the ended context", err, errclass.Canceled)
		if n, err := s.Drain(bg, 2); err != nil || n != 1 {
			t.Fatalf("Drain with a new context = %d, %v", n, err)
		}
		if err := c.Begin(bg); err != nil {
			t.Fatal(err)
		}
		if err := c.Rollback(bg); err != nil {
			t.Fatal(err)
		}
	})

	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want errclass.Class
	}{
		{"InFlightCancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(bg)
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, errclass.Canceled},
		{"InFlightTimeout", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(bg, 200*time.Millisecond)
		}, errclass.Timeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, raw)
			sleep := prepare(t, c, "SELECT SLEEP(?)")
			ctx, cancel := tc.ctx()
			defer cancel()
			if n, err := sleep.Drain(ctx, 0); err != nil || n != 1 {
				t.Fatalf("Drain(SLEEP(0)) = %d, %v", n, err)
			}
			start := time.Now()
			_, err := sleep.Drain(ctx, 10)
			if el := time.Since(start); el > 4*time.Second {
				t.Errorf("cancel took %v", el)
			}
			wantClass(t, "in flight", err, tc.want)
			// The session was closed to interrupt the read.
			_, err = sleep.Drain(bg, 0)
			wantClass(t, "after the cancel", err, errclass.Connection)
			wantClass(t, "Commit after the cancel", c.Commit(bg), errclass.Connection)
			var one int
			wantClass(t, "QueryRow after the cancel", c.QueryRow(bg, "SELECT 1", nil, &one), errclass.Connection)
			if err := sleep.Close(); err != nil {
				t.Errorf("Stmt.Close: %v", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}

	t.Run("KilledSession", func(t *testing.T) {
		victim, admin := connect(t, raw), connect(t, raw)
		id, err := Hooks.SessionID(bg, victim)
		if err != nil {
			t.Fatal(err)
		}
		s := prepare(t, victim, "SELECT ?")
		if err := Hooks.Kill(bg, admin, id); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for err == nil && time.Now().Before(deadline) {
			if _, err = s.Drain(bg, 1); err == nil {
				time.Sleep(20 * time.Millisecond)
			}
		}
		wantClass(t, "killed session", err, errclass.Connection)
		if err := victim.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

// TestOneSession checks that the hot path and the rest share one session.
func TestOneSession(t *testing.T) {
	c := connect(t, testenv.MySQLURL(t))
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE rs_one (id INTEGER NOT NULL PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	ins := prepare(t, c, "INSERT INTO rs_one (id) VALUES (?)")
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ins.Exec(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM rs_one", nil, &n); err != nil || n != 1 {
		t.Fatalf("COUNT inside the transaction = %d, %v", n, err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM rs_one", nil, &n); err != nil || n != 0 {
		t.Fatalf("COUNT after ROLLBACK = %d, %v", n, err)
	}
	if err := c.QueryRow(ctx, "SELECT @@in_transaction", nil, &n); err != nil || n != 0 {
		t.Fatalf("@@in_transaction = %d, %v", n, err)
	}
	// A prepared statement runs on the session QueryRow sees.
	id, err := Hooks.SessionID(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	same := prepare(t, c, "SELECT 1 FROM DUAL WHERE CONNECTION_ID() = ?")
	if n, err := same.Drain(ctx, id); err != nil || n != 1 {
		t.Errorf("Drain(CONNECTION_ID() = %d) = %d, %v; want 1", id, n, err)
	}
}

// TestQueryHot checks Stmt.Query on the hot path: an open result holds the
// session, and the cancellation watch is entered once per Query and left
// once, however often the result is closed.
func TestQueryHot(t *testing.T) {
	raw := testenv.MySQLURL(t)
	bg := context.Background()

	t.Run("OpenRowsHoldTheSession", func(t *testing.T) {
		c := connect(t, raw)
		s := prepare(t, c, "SELECT ? UNION ALL SELECT ?")
		other := prepare(t, c, "SELECT ?")
		rows, err := s.Query(bg, 1, 2)
		if err != nil || !rows.Next() {
			t.Fatalf("Query: %v", err)
		}
		var one int
		if _, err := other.Drain(bg, 1); err == nil {
			t.Error("another statement ran while a result was open")
		}
		if err := c.QueryRow(bg, "SELECT 1", nil, &one); err == nil {
			t.Error("Conn.QueryRow ran while a result was open")
		}
		if err := c.Begin(bg); err == nil {
			t.Error("Begin ran while a result was open")
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if n, err := other.Drain(bg, 1); err != nil || n != 1 {
			t.Fatalf("Drain after Close = %d, %v", n, err)
		}
		if err := c.QueryRow(bg, "SELECT 1", nil, &one); err != nil || one != 1 {
			t.Fatalf("QueryRow after Close = %d, %v", one, err)
		}
	})

	t.Run("CloseLeavesTheWatchOnce", func(t *testing.T) {
		c := connect(t, raw)
		s := prepare(t, c, "SELECT ? UNION ALL SELECT ?")
		ctx, cancel := context.WithCancel(bg)
		rows, err := s.Query(ctx, 1, 2)
		if err != nil || !rows.Next() {
			t.Fatalf("Query: %v", err)
		}
		for range 2 {
			if err := rows.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		}
		var n int
		if err := s.QueryRow(ctx, []any{3, 4}, &n); err != nil || n != 3 {
			t.Fatalf("QueryRow = %d, %v", n, err)
		}
		// Nothing is in flight now: cancelling must not close the session.
		cancel()
		time.Sleep(10 * time.Millisecond) // let the AfterFunc run
		if err := s.QueryRow(bg, []any{5, 6}, &n); err != nil || n != 5 {
			t.Fatalf("QueryRow after the context ended between statements = %d, %v", n, err)
		}
	})

	t.Run("CanceledBeforeStart", func(t *testing.T) {
		c := connect(t, raw)
		s := prepare(t, c, "SELECT ?")
		ctx, cancel := context.WithCancel(bg)
		cancel()
		_, err := s.Query(ctx, 1)
		wantClass(t, "Query", err, errclass.Canceled)
		var n int
		wantClass(t, "QueryRow", s.QueryRow(ctx, []any{1}, &n), errclass.Canceled)
		if err := s.QueryRow(bg, []any{2}, &n); err != nil || n != 2 {
			t.Fatalf("QueryRow after a cancelled start = %d, %v", n, err)
		}
	})

	t.Run("CanceledInFlight", func(t *testing.T) {
		c := connect(t, raw)
		s := prepare(t, c, "SELECT 1 UNION ALL SELECT SLEEP(?)")
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		// The sleep blocks Query, or Next when the server sends the first
		// row before it sleeps.
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		rows, err := s.Query(ctx, 10)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Close()
		}
		if el := time.Since(start); el > 4*time.Second {
			t.Errorf("cancel took %v", el)
		}
		wantClass(t, "in flight", err, errclass.Canceled)
		var n int
		wantClass(t, "after the cancel", s.QueryRow(bg, []any{0}, &n), errclass.Connection)
	})
}

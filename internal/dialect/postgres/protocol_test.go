package postgres_test

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect/blockio"
	"github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/testenv"
)

// recorder is a net.Conn that keeps what the client writes.
type recorder struct {
	net.Conn
	mu  sync.Mutex
	out []byte
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.out = append(r.out, p...)
	r.mu.Unlock()
	return r.Conn.Write(p)
}

// reset forgets what was written (the startup message has no type byte).
func (r *recorder) reset() {
	r.mu.Lock()
	r.out = r.out[:0]
	r.mu.Unlock()
}

// take returns the frontend message types written since the last take.
func (r *recorder) take(t *testing.T) string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var types []byte
	for b := r.out; len(b) > 0; {
		if len(b) < 5 {
			t.Fatalf("truncated message %q", b)
		}
		n := int(binary.BigEndian.Uint32(b[1:5]))
		if n < 4 || 1+n > len(b) {
			t.Fatalf("message %q of length %d in %d bytes", b[0], n, len(b))
		}
		types = append(types, b[0])
		b = b[1+n:]
	}
	r.out = r.out[:0]
	return string(types)
}

// TestPreparedExecutionSendsNoDescribe: a prepared statement whose columns
// were described at Prepare is executed with Bind, Execute and Sync only (the
// server builds no RowDescription per execution); one without result columns
// keeps its Describe; BEGIN still rides with the first statement.
func TestPreparedExecutionSendsNoDescribe(t *testing.T) {
	raw := testenv.PostgresURL(t)
	var rec *recorder
	defer postgres.SetDial(func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := blockio.Dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		rec = &recorder{Conn: c}
		return rec, nil
	})()
	d := postgres.Dialect{}
	tg, err := d.ParseTarget(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(ctx, "CREATE TEMPORARY TABLE rs_proto (id INTEGER PRIMARY KEY, c TEXT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO rs_proto SELECT g, 'x' || g FROM generate_series(1, 10) g"); err != nil {
		t.Fatal(err)
	}
	sel, err := c.Prepare(ctx, "SELECT c FROM rs_proto WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	upd, err := c.Prepare(ctx, "UPDATE rs_proto SET c = c WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	rec.reset()

	for i := 1; i <= 3; i++ {
		if n, err := sel.Drain(ctx, i); err != nil || n != 1 {
			t.Fatalf("Drain: %d rows, %v", n, err)
		}
	}
	if got := rec.take(t); got != "BESBESBES" {
		t.Errorf("three executions of a described SELECT sent %q, want Bind, Execute, Sync each (BESBESBES)", got)
	}
	var v string
	if err := sel.QueryRow(ctx, []any{4}, &v); err != nil || v != "x4" {
		t.Fatalf("QueryRow: %q, %v", v, err)
	}
	if got := rec.take(t); got != "BES" {
		t.Errorf("QueryRow sent %q, want BES", got)
	}
	if n, err := upd.Exec(ctx, 1); err != nil || n != 1 {
		t.Fatalf("UPDATE: %d rows, %v", n, err)
	}
	if got := rec.take(t); got != "BDES" {
		t.Errorf("an UPDATE (no result columns) sent %q, want BDES", got)
	}
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sel.QueryRow(ctx, []any{5}, &v); err != nil || v != "x5" {
		t.Fatalf("QueryRow in a transaction: %q, %v", v, err)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// BEGIN as an unnamed statement (Parse, Bind, Describe, Execute), the
	// SELECT (Bind, Execute), one Sync; then COMMIT by the simple protocol.
	if got := rec.take(t); got != "PBDEBESQ" {
		t.Errorf("a transaction sent %q, want PBDEBESQ", got)
	}
}

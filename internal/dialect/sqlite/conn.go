package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/internal/rowscan"
)

// loadBatch is the number of rows Load inserts per transaction.
const loadBatch = 10_000

// conn is one SQLite connection; like dialect.Conn it is used by one goroutine
// at a time.
type conn struct {
	db   *sql.DB
	c    *sql.Conn
	info dialect.ConnInfo
	inTx bool
	w    *dialect.ClientWaits // the database's, nil for a store's connection
}

var (
	_ dialect.Conn          = (*conn)(nil)
	_ dialect.WriteBeginner = (*conn)(nil)
)

// fail is dialect.WithContextErr.
func fail(ctx context.Context, err error) error { return dialect.WithContextErr(ctx, err) }

// timeText returns args with each time.Time written as the load writes it
// (rowscan.TimeLayout): the driver would store Go's debug form
// ("... +0000 UTC m=+0.02"), which neither compares with loaded rows nor
// reads back. args itself is the caller's and is left alone; without a
// time it is returned as it is, without allocating.
func timeText(args []any) []any {
	for i, a := range args {
		if _, ok := a.(time.Time); !ok {
			continue
		}
		out := append([]any(nil), args...)
		for j := i; j < len(out); j++ {
			if t, ok := out[j].(time.Time); ok {
				out[j] = t.Format(rowscan.TimeLayout)
			}
		}
		return out
	}
	return args
}

func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	c.w.Enter()
	defer c.w.Leave()
	res, err := c.c.ExecContext(ctx, query, timeText(args)...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return res.RowsAffected()
}

func (c *conn) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	c.w.Enter()
	defer c.w.Leave()
	err := c.c.QueryRowContext(ctx, query, timeText(args)...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return dialect.ErrNoRows
	}
	return fail(ctx, err)
}

func (c *conn) Prepare(ctx context.Context, query string) (dialect.Stmt, error) {
	s, err := c.c.PrepareContext(ctx, query)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &stmt{s: s, w: c.w}, nil
}

// Begin starts a deferred transaction: it reads from a snapshot and takes the
// write lock only when it first writes.
func (c *conn) Begin(ctx context.Context) error { return c.exec(ctx, "BEGIN", true) }

// BeginWrite starts a transaction holding the write lock (BEGIN IMMEDIATE),
// waiting up to busy_timeout for it. The time it takes is counted as
// waiting for the lock (dialect.ClientWaits): in WAL mode the write lock is
// all BEGIN IMMEDIATE waits for, and taking a free one costs microseconds.
func (c *conn) BeginWrite(ctx context.Context) error {
	if c.w == nil {
		return c.exec(ctx, "BEGIN IMMEDIATE", true)
	}
	c.w.Waiting.Add(1)
	t0 := time.Now()
	err := c.exec(ctx, "BEGIN IMMEDIATE", true)
	c.w.WaitNs.Add(int64(time.Since(t0)))
	c.w.Waits.Add(1)
	c.w.Waiting.Add(-1)
	return err
}

func (c *conn) Commit(ctx context.Context) error { return c.exec(ctx, "COMMIT", false) }

// Rollback ends the transaction, even when ctx is already cancelled. SQLite
// may have rolled the transaction back itself after an error (SQLITE_FULL, an
// interrupt); ROLLBACK then fails with plain SQLITE_ERROR ("no transaction is
// active"), which Rollback does not report.
func (c *conn) Rollback(ctx context.Context) error {
	if !c.inTx {
		return nil
	}
	c.inTx = false
	_, err := c.c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	var se *msqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_ERROR {
		return nil
	}
	return err
}

func (c *conn) exec(ctx context.Context, q string, tx bool) error {
	c.w.Enter()
	defer c.w.Leave()
	_, err := c.c.ExecContext(ctx, q)
	if err == nil {
		c.inTx = tx
	}
	return fail(ctx, err)
}

func (c *conn) TableExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := c.c.QueryRowContext(ctx,
		"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
	return n > 0, fail(ctx, err)
}

// Load inserts rows with one prepared INSERT, committing every loadBatch rows
// (BEGIN IMMEDIATE ... COMMIT). On error the open batch is rolled back; rows
// from earlier batches stay. A time.Time is stored as the text of its wall
// clock, "2006-01-02 15:04:05" with any fraction (as PostgreSQL stores one in
// a TIMESTAMP column, and as SQLite's date functions read it), not in the
// driver's default form, Go's time.String.
func (c *conn) Load(ctx context.Context, table string, cols []string, src dialect.RowSource) (int64, error) {
	if len(cols) == 0 {
		return 0, errors.New("sqlite: load: no columns")
	}
	q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(cols)-1) + ")"
	st, err := c.c.PrepareContext(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("sqlite: load %s: %w", table, err)
	}
	defer st.Close()
	var total int64
	inBatch := 0
	args := make([]any, 0, len(cols))
	fail := func(err error) (int64, error) {
		if inBatch > 0 {
			_ = c.Rollback(ctx)
			total -= int64(inBatch)
		}
		return total, fmt.Errorf("sqlite: load %s: %w", table, fail(ctx, err))
	}
	for src.Next() {
		if inBatch == 0 {
			if err := c.BeginWrite(ctx); err != nil {
				return fail(err)
			}
		}
		vals, err := src.Values()
		if err != nil {
			inBatch++ // count the batch as open for the rollback
			return fail(err)
		}
		if len(vals) != len(cols) {
			inBatch++
			return fail(fmt.Errorf("row has %d values for %d columns", len(vals), len(cols)))
		}
		inBatch++
		total++
		args = append(args[:0], vals...)
		for i, v := range args {
			if t, ok := v.(time.Time); ok {
				args[i] = t.Format(rowscan.TimeLayout)
			}
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fail(err)
		}
		if inBatch == loadBatch {
			if err := c.Commit(ctx); err != nil {
				return fail(err)
			}
			inBatch = 0
		}
	}
	if err := src.Err(); err != nil {
		return fail(err)
	}
	if inBatch > 0 {
		if err := c.Commit(ctx); err != nil {
			return fail(err)
		}
	}
	return total, nil
}

func (c *conn) Info() dialect.ConnInfo { return c.info }

// Close closes the connection and its private pool.
func (c *conn) Close() error {
	return errors.Join(c.c.Close(), c.db.Close())
}

// stmt is a statement prepared on one conn.
type stmt struct {
	s    *sql.Stmt
	rows rows                 // the result of Query, reused
	w    *dialect.ClientWaits // the conn's
}

func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	s.rows.end()
	s.w.Enter()
	defer s.w.Leave()
	res, err := s.s.ExecContext(ctx, timeText(args)...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return res.RowsAffected()
}

// Drain runs the query and counts its rows without scanning them.
func (s *stmt) Drain(ctx context.Context, args ...any) (int, error) {
	s.rows.end()
	s.w.Enter()
	defer s.w.Leave()
	rows, err := s.s.QueryContext(ctx, timeText(args)...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return n, fail(ctx, err)
}

// Query runs the statement through database/sql and leaves its rows open.
func (s *stmt) Query(ctx context.Context, args ...any) (dialect.Rows, error) {
	r := &s.rows
	r.end()
	s.w.Enter()
	sr, err := s.s.QueryContext(ctx, timeText(args)...)
	if err != nil {
		s.w.Leave()
		return nil, fail(ctx, err)
	}
	r.r, r.ctx, r.cur, r.err, r.w = sr, ctx, false, nil, s.w
	return r, nil
}

// QueryRow runs Query, scans the first row and closes the result.
func (s *stmt) QueryRow(ctx context.Context, args []any, dest ...any) error {
	return dialect.StmtQueryRow(ctx, s, args, dest...)
}

func (s *stmt) Close() error {
	s.rows.end()
	return s.s.Close()
}

// rows is a stmt's open result. Scan lets database/sql copy each value into
// an any (NULL is nil, TEXT a string, BLOB a fresh []byte, INTEGER int64, REAL
// float64, a DATE/DATETIME/TIMESTAMP column's text a time.Time), which
// rowscan then stores into the caller's dest.
type rows struct {
	r    *sql.Rows // nil once ended
	ctx  context.Context
	vals []any // the values Scan reads, reused
	ptrs []any // &vals[i], for sql.Rows.Scan
	cur  bool  // a row Scan may read
	err  error
	w    *dialect.ClientWaits // left when the rows end
}

var _ dialect.Rows = (*rows)(nil)

// errNoRow is returned by Scan without a current row.
var errNoRow = errors.New("sqlite: Scan without a current row (call Next first)")

func (r *rows) Next() bool {
	r.cur = false
	if r.r == nil {
		return false
	}
	if r.r.Next() {
		r.cur = true
		return true
	}
	r.end()
	return false
}

// end closes the result and keeps its error.
func (r *rows) end() {
	if r.r == nil {
		return
	}
	err := r.r.Err()
	if cerr := r.r.Close(); err == nil {
		err = cerr
	}
	r.r = nil
	r.w.Leave()
	r.w = nil
	if err != nil {
		r.err = fail(r.ctx, err)
	}
	r.ctx, r.cur = nil, false
}

func (r *rows) Scan(dest ...any) error {
	if !r.cur {
		return errNoRow
	}
	n := len(dest)
	if len(r.vals) < n {
		r.vals, r.ptrs = make([]any, n), make([]any, n)
		for i := range r.vals {
			r.ptrs[i] = &r.vals[i]
		}
	}
	defer clear(r.vals[:n])
	// database/sql checks that n is the number of columns.
	if err := r.r.Scan(r.ptrs[:n]...); err != nil {
		return fmt.Errorf("sqlite: Scan: %w", err)
	}
	for i, v := range r.vals[:n] {
		if err := rowscan.Value(dest[i], v); err != nil {
			return fmt.Errorf("sqlite: Scan column %d: %w", i+1, err)
		}
	}
	return nil
}

func (r *rows) Err() error { return r.err }

func (r *rows) Close() error {
	r.end()
	return r.err
}

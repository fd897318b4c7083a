package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/rightsize/rightsize/internal/dialect"
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
}

var (
	_ dialect.Conn          = (*conn)(nil)
	_ dialect.WriteBeginner = (*conn)(nil)
)

// fail is dialect.WithContextErr.
func fail(ctx context.Context, err error) error { return dialect.WithContextErr(ctx, err) }

func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return res.RowsAffected()
}

func (c *conn) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	err := c.c.QueryRowContext(ctx, query, args...).Scan(dest...)
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
	return &stmt{s: s}, nil
}

// Begin starts a deferred transaction: it reads from a snapshot and takes the
// write lock only when it first writes.
func (c *conn) Begin(ctx context.Context) error { return c.exec(ctx, "BEGIN", true) }

// BeginWrite starts a transaction holding the write lock (BEGIN IMMEDIATE),
// waiting up to busy_timeout for it.
func (c *conn) BeginWrite(ctx context.Context) error { return c.exec(ctx, "BEGIN IMMEDIATE", true) }

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
// from earlier batches stay.
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
		if _, err := st.ExecContext(ctx, vals...); err != nil {
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
	s *sql.Stmt
}

func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	res, err := s.s.ExecContext(ctx, args...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return res.RowsAffected()
}

// Drain runs the query and counts its rows without scanning them.
func (s *stmt) Drain(ctx context.Context, args ...any) (int, error) {
	rows, err := s.s.QueryContext(ctx, args...)
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

func (s *stmt) Close() error { return s.s.Close() }

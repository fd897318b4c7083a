package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rightsize/rightsize/internal/dialect"
)

// maxRewrites bounds the per-connection cache of rewritten query texts; when
// full it is emptied (workloads use a few dozen distinct texts).
const maxRewrites = 4096

// conn is one pgx connection. Like pgx.Conn it is not safe for concurrent use.
type conn struct {
	pc       *pgx.Conn
	info     dialect.ConnInfo
	rewrites map[string]string // '?' text -> '$n' text
	nstmt    int               // names prepared statements rs1, rs2, ...
}

var _ dialect.Conn = (*conn)(nil)

// sql rewrites '?' placeholders, caching the result per query text.
func (c *conn) sql(q string) string {
	if strings.IndexByte(q, '?') < 0 {
		return q
	}
	if r, ok := c.rewrites[q]; ok {
		return r
	}
	r := Rewrite(q)
	if len(c.rewrites) >= maxRewrites {
		clear(c.rewrites)
	}
	c.rewrites[q] = r
	return r
}

// fail adds the context's error to err's chain when the context ended, so that
// Classify reports Canceled or Timeout rather than the server's
// query_canceled that the cancel request produced.
func fail(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%w)", err, cerr)
	}
	return err
}

func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.pc.Exec(ctx, c.sql(query), args...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return tag.RowsAffected(), nil
}

func (c *conn) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	err := c.pc.QueryRow(ctx, c.sql(query), args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return dialect.ErrNoRows
	}
	return fail(ctx, err)
}

// Prepare creates a named server-side prepared statement.
func (c *conn) Prepare(ctx context.Context, query string) (dialect.Stmt, error) {
	c.nstmt++
	sd, err := c.pc.Prepare(ctx, "rs"+strconv.Itoa(c.nstmt), c.sql(query))
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &stmt{c: c, sd: sd}, nil
}

// simple runs a statement without arguments by the simple query protocol,
// the way sysbench sends BEGIN and COMMIT.
func (c *conn) simple(ctx context.Context, sql string) error {
	_, err := c.pc.PgConn().Exec(ctx, sql).ReadAll()
	return fail(ctx, err)
}

func (c *conn) Begin(ctx context.Context) error    { return c.simple(ctx, "BEGIN") }
func (c *conn) Commit(ctx context.Context) error   { return c.simple(ctx, "COMMIT") }
func (c *conn) Rollback(ctx context.Context) error { return c.simple(ctx, "ROLLBACK") }

// TableExists looks in the current schema; name matches as written or folded to
// lower case (as PostgreSQL folds unquoted identifiers).
func (c *conn) TableExists(ctx context.Context, name string) (bool, error) {
	var ok bool
	err := c.pc.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_name::text IN ($1::text, lower($1::text)))`, name).Scan(&ok)
	return ok, fail(ctx, err)
}

// ident splits a possibly schema-qualified, unquoted name and folds it to
// lower case as PostgreSQL does for unquoted identifiers.
func ident(name string) pgx.Identifier {
	return pgx.Identifier(strings.Split(strings.ToLower(name), "."))
}

// Load streams src into table with COPY FROM STDIN (binary format). Column
// names are unquoted identifiers, folded to lower case.
func (c *conn) Load(ctx context.Context, table string, cols []string, src dialect.RowSource) (int64, error) {
	lc := make([]string, len(cols))
	for i, col := range cols {
		lc[i] = strings.ToLower(col)
	}
	n, err := c.pc.CopyFrom(ctx, ident(table), lc, src)
	return n, fail(ctx, err)
}

func (c *conn) Info() dialect.ConnInfo { return c.info }

// closeTimeout bounds the Terminate message sent by Close.
const closeTimeout = 5 * time.Second

func (c *conn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return c.pc.Close(ctx)
}

// stmt is a named prepared statement on one conn.
type stmt struct {
	c  *conn
	sd *pgconn.StatementDescription
}

var _ dialect.Stmt = (*stmt)(nil)

func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	tag, err := s.c.pc.Exec(ctx, s.sd.Name, args...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return tag.RowsAffected(), nil
}

// Drain counts the result rows without decoding any value.
func (s *stmt) Drain(ctx context.Context, args ...any) (int, error) {
	rows, err := s.c.pc.Query(ctx, s.sd.Name, args...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	return n, fail(ctx, rows.Err())
}

// Close deallocates the statement on the server (bounded by closeTimeout).
func (s *stmt) Close() error {
	if s.c.pc.IsClosed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return s.c.pc.Deallocate(ctx, s.sd.Name)
}

package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
)

// maxCachedStmts bounds the statements Exec and QueryRow keep prepared per
// connection for query texts with arguments. The server caps prepared
// statements for all sessions together (max_prepared_stmt_count, 16382 by
// default), so the cache stays small; workloads prepare their hot statements
// with Prepare.
const maxCachedStmts = 16

// conn is one server session. It is not safe for concurrent use.
type conn struct {
	db    *sql.DB   // private pool of exactly one connection
	sc    *sql.Conn // that connection, pinned
	info  dialect.ConnInfo
	stmts map[string]*sql.Stmt // Exec/QueryRow statement cache, by query text
}

var _ dialect.Conn = (*conn)(nil)

func (c *conn) readInfo(ctx context.Context) error {
	if err := c.sc.QueryRowContext(ctx, "SELECT VERSION()").Scan(&c.info.ServerVersion); err != nil {
		return err
	}
	rows, err := c.sc.QueryContext(ctx, "SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_cipher', 'Ssl_version')")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return err
		}
		switch strings.ToLower(name) {
		case "ssl_cipher":
			c.info.Encrypted = value != ""
		case "ssl_version":
			c.info.TLSVersion = strings.Replace(value, "TLSv", "TLS ", 1)
		}
	}
	if !c.info.Encrypted {
		c.info.TLSVersion = ""
	}
	return rows.Err()
}

// cached returns a prepared statement for query, preparing it on first use.
func (c *conn) cached(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		c.dropCache()
	}
	st, err := c.sc.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

func (c *conn) dropCache() {
	for q, st := range c.stmts {
		st.Close()
		delete(c.stmts, q)
	}
}

// Exec runs query; with arguments it uses a cached server-side prepared
// statement, without them the text protocol (one round trip either way).
func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if len(args) == 0 {
		res, err = c.sc.ExecContext(ctx, query)
	} else {
		var st *sql.Stmt
		if st, err = c.cached(ctx, query); err == nil {
			res, err = st.ExecContext(ctx, args...)
		}
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c *conn) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	var row *sql.Row
	if len(args) == 0 {
		row = c.sc.QueryRowContext(ctx, query)
	} else {
		st, err := c.cached(ctx, query)
		if err != nil {
			return err
		}
		row = st.QueryRowContext(ctx, args...)
	}
	err := row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return dialect.ErrNoRows
	}
	return err
}

// Prepare prepares query on the server; the statement lives until Close.
func (c *conn) Prepare(ctx context.Context, query string) (dialect.Stmt, error) {
	st, err := c.sc.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &stmt{st: st}, nil
}

func (c *conn) simple(ctx context.Context, sql string) error {
	_, err := c.sc.ExecContext(ctx, sql)
	return err
}

func (c *conn) Begin(ctx context.Context) error    { return c.simple(ctx, "BEGIN") }
func (c *conn) Commit(ctx context.Context) error   { return c.simple(ctx, "COMMIT") }
func (c *conn) Rollback(ctx context.Context) error { return c.simple(ctx, "ROLLBACK") }

// TableExists looks in the connection's current database.
func (c *conn) TableExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := c.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
		[]any{name}, &n)
	return n > 0, err
}

func (c *conn) Info() dialect.ConnInfo { return c.info }

// Close closes the cached statements, the session and its private pool.
func (c *conn) Close() error {
	c.dropCache()
	err := c.sc.Close()
	if derr := c.db.Close(); err == nil {
		err = derr
	}
	if errors.Is(err, sql.ErrConnDone) {
		err = nil
	}
	return err
}

// stmt is a server-side prepared statement on one conn.
type stmt struct{ st *sql.Stmt }

var _ dialect.Stmt = (*stmt)(nil)

func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	res, err := s.st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Drain counts the result rows without scanning them (the driver still
// decodes each row into its own buffer; database/sql offers no raw path).
func (s *stmt) Drain(ctx context.Context, args ...any) (int, error) {
	rows, err := s.st.QueryContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Close(); err != nil {
		return n, err
	}
	return n, rows.Err()
}

func (s *stmt) Close() error { return s.st.Close() }

// errRowWidth reports a RowSource row whose width differs from the columns.
func errRowWidth(got, want int) error {
	return fmt.Errorf("mysql: load: row has %d values for %d columns", got, want)
}

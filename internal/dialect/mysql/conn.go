package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/internal/rowscan"
)

// maxCachedStmts bounds the statements Exec and QueryRow keep prepared per
// connection for query texts with arguments. The server caps prepared
// statements for all sessions together (max_prepared_stmt_count, 16382 by
// default), so the cache stays small; workloads prepare their hot statements
// with Prepare.
const maxCachedStmts = 16

// conn is one server session, driven through two layers on the same
// driver connection (dc):
//
//   - the hot path (Prepare, Stmt.Exec, Stmt.Drain, Stmt.Query, Begin,
//     Commit, Rollback)
//     calls the driver directly, with a context the driver cannot see cancelled
//     (so it starts no watcher hand-off per statement) and no database/sql
//     locks, goroutines or argument conversion;
//   - everything else (Exec, QueryRow, TableExists, Load, Info) goes through
//     database/sql, which owns dc through a private pool that can never open a
//     second connection (see session), for its type conversions.
//
// Cancellation of the hot path: see watch. It is not safe for concurrent use.
type conn struct {
	cfg   *mysql.Config
	dc    driver.Conn
	prep  driver.ConnPrepareContext
	exec  driver.ExecerContext
	nc    net.Conn // dc's network connection, before TLS
	db    *sql.DB  // private pool holding only dc
	sc    *sql.Conn
	info  dialect.ConnInfo
	stmts map[string]*sql.Stmt // Exec/QueryRow statement cache, by query text

	w      *watch // the cancellation watch of the last cancellable context
	broken error  // set when a watch closed nc; every later call returns it
	open   *rows  // a Stmt.Query result still being read, which holds dc
}

var _ dialect.Conn = (*conn)(nil)

// errKilled is returned by every call on a connection whose network
// connection was closed to cancel a statement.
var errKilled = fmt.Errorf("mysql: connection closed to cancel a statement: %w", driver.ErrBadConn)

// errRowsOpen is returned by a call on a connection while the Rows of a
// Stmt.Query on it is still open (the rest of its result is still to be read).
var errRowsOpen = errors.New("mysql: connection busy: the Rows of a Stmt.Query is still open (Close it first)")

// usable returns why the connection cannot run a statement now, or nil.
func (c *conn) usable() error {
	if c.broken != nil {
		return c.broken
	}
	if c.open != nil {
		return errRowsOpen
	}
	return nil
}

// watch cancels hot-path statements when a caller's context ends. The
// driver never sees a cancellable context on the hot path; instead one
// context.AfterFunc is registered per connection and context (not per
// statement: the runner passes the same context to every step), and it closes
// the connection's network connection only if a statement is in flight
// (dialect.HotWatch), which makes the blocked read or write fail at once. The
// connection is then unusable (conn.broken), as after the driver's own
// cancellation.
type watch struct {
	done <-chan struct{} // the context's Done channel, which identifies it
	stop func() bool
	dialect.HotWatch
}

// noCancel is the context the hot path gives the driver. The driver uses a
// statement's context only for cancellation, and hands a context to its
// per-connection watcher goroutine only when Done is not nil: with this one it
// hands nothing over, so no goroutine wakes up per statement.
var noCancel = context.Background()

// enter starts a hot-path call under ctx. It returns the watch to pass to
// leave (nil when ctx cannot be cancelled), or an error when the connection is
// broken or ctx has already ended.
func (c *conn) enter(ctx context.Context) (*watch, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	done := ctx.Done()
	if done == nil {
		return nil, nil
	}
	w := c.w
	if w == nil || w.done != done {
		if w != nil {
			w.stop() // idle or done: its fire never closes nc
			c.w = nil
		}
		if err := ctx.Err(); err != nil {
			return nil, ctxErr(ctx)
		}
		nc := c.nc
		w = &watch{done: done}
		w.Kill = func() { nc.Close() }
		w.stop = context.AfterFunc(ctx, w.Fire)
		c.w = w
	}
	if !w.Enter() {
		return nil, ctxErr(ctx) // ended between statements
	}
	return w, nil
}

// leave ends a hot-path call that entered with w and returned err. When the
// watch closed the network connection, the connection becomes broken and a
// failed call's error wraps the context's error, so that Classify reports
// Canceled or Timeout instead of a lost connection.
func (c *conn) leave(ctx context.Context, w *watch, err error) error {
	if w != nil && !w.Leave() {
		c.broken = errKilled
		if err != nil {
			return fmt.Errorf("%w (%w)", ctxErr(ctx), err)
		}
	}
	return err
}

// ctxErr returns the error of an ended context, wrapped for Classify.
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if err == nil { // a Done channel closed without an error breaks the contract
		err = context.Canceled
	}
	return fmt.Errorf("mysql: %w", err)
}

// hot runs a statement without arguments on the driver (BEGIN, COMMIT, ROLLBACK).
func (c *conn) hot(ctx context.Context, query string) error {
	w, err := c.enter(ctx)
	if err != nil {
		return err
	}
	_, err = c.exec.ExecContext(noCancel, query, nil)
	return c.leave(ctx, w, err)
}

func (c *conn) readInfo(ctx context.Context) error {
	if err := c.sc.QueryRowContext(ctx, "SELECT VERSION()").Scan(&c.info.ServerVersion); err != nil {
		return err
	}
	c.info.ServerProduct = productOf(c.info.ServerVersion)
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

// productOf names the server from its VERSION(): MariaDB says so in it
// ("10.11.19-MariaDB-0+deb12u1"), MySQL does not ("8.4.3").
func productOf(version string) string {
	if strings.Contains(strings.ToLower(version), "mariadb") {
		return "MariaDB"
	}
	return "MySQL"
}

// cached returns a prepared statement for query, preparing it on first use.
func (c *conn) cached(ctx context.Context, query string) (*sql.Stmt, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
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
	if err := c.usable(); err != nil {
		return 0, err
	}
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
	if err := c.usable(); err != nil {
		return err
	}
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
// It is prepared on the driver directly, for the hot path.
func (c *conn) Prepare(ctx context.Context, query string) (dialect.Stmt, error) {
	w, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	ds, err := c.prep.PrepareContext(noCancel, query)
	if err = c.leave(ctx, w, err); err != nil {
		if ds != nil {
			ds.Close()
		}
		return nil, err
	}
	s := &stmt{c: c, ds: ds}
	var ok1, ok2 bool
	s.ex, ok1 = ds.(driver.StmtExecContext)
	s.qu, ok2 = ds.(driver.StmtQueryContext)
	if !ok1 || !ok2 {
		ds.Close()
		return nil, fmt.Errorf("mysql: driver statement %T lacks context methods", ds)
	}
	s.chk, _ = ds.(driver.NamedValueChecker)
	return s, nil
}

// Begin, Commit and Rollback send the statements as text, on the hot path.
func (c *conn) Begin(ctx context.Context) error    { return c.hot(ctx, "BEGIN") }
func (c *conn) Commit(ctx context.Context) error   { return c.hot(ctx, "COMMIT") }
func (c *conn) Rollback(ctx context.Context) error { return c.hot(ctx, "ROLLBACK") }

// TableExists looks in the connection's current database, or in the one
// name is qualified by (sales.orders).
func (c *conn) TableExists(ctx context.Context, name string) (bool, error) {
	schema, table, qualified := strings.Cut(name, ".")
	if !qualified {
		schema, table = "", name
	}
	var n int
	err := c.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = COALESCE(NULLIF(?, ''), DATABASE()) AND table_name = ?",
		[]any{schema, table}, &n)
	return n > 0, err
}

func (c *conn) Info() dialect.ConnInfo { return c.info }

// Close closes the cached statements, the session and its private pool.
// A session already lost (killed, or closed to cancel a statement) closes
// without error.
func (c *conn) Close() error {
	if c.open != nil {
		c.open.Close()
	}
	if c.w != nil {
		c.w.stop()
		c.w = nil
	}
	c.dropCache()
	err := c.sc.Close()
	if derr := c.db.Close(); err == nil {
		err = derr
	}
	if errors.Is(err, sql.ErrConnDone) || c.broken != nil {
		err = nil
	}
	return err
}

// stmt is a server-side prepared statement on one conn, run on the driver
// directly.
type stmt struct {
	c    *conn
	ds   driver.Stmt
	ex   driver.StmtExecContext
	qu   driver.StmtQueryContext
	chk  driver.NamedValueChecker // the driver's own argument converter, or nil
	nv   []driver.NamedValue      // argument buffer, reused
	rows rows                     // the result of Query, reused
}

var _ dialect.Stmt = (*stmt)(nil)

// bind converts args into the reused argument buffer, as database/sql would:
// the driver's own value types pass as they are, other integers become
// int64, and anything else goes through the driver's converter (which calls
// driver.Valuer, follows pointers and so on).
func (s *stmt) bind(args []any) ([]driver.NamedValue, error) {
	nv := s.nv[:0]
	for i, a := range args {
		var v driver.Value
		switch a := a.(type) {
		case nil, int64, string, []byte, float64, bool, time.Time, uint64:
			v = a
		case int:
			v = int64(a)
		case int32:
			v = int64(a)
		default:
			arg := driver.NamedValue{Ordinal: i + 1, Value: a}
			var err error
			if s.chk != nil {
				err = s.chk.CheckNamedValue(&arg)
			} else {
				arg.Value, err = driver.DefaultParameterConverter.ConvertValue(a)
			}
			if err != nil {
				clear(nv)
				s.nv = nv
				return nil, fmt.Errorf("mysql: argument %d: %w", i+1, err)
			}
			v = arg.Value
		}
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	s.nv = nv
	return nv, nil
}

// unbind drops the buffer's references to the caller's values.
func (s *stmt) unbind() { clear(s.nv) }

// start closes the statement's previous result if still open, binds args and
// enters the connection's cancellation watch: the prologue of Exec, Drain and
// Query. On error nothing is left bound.
func (s *stmt) start(ctx context.Context, args []any) ([]driver.NamedValue, *watch, error) {
	s.rows.end(nil)
	nv, err := s.bind(args)
	if err != nil {
		return nil, nil, err
	}
	w, err := s.c.enter(ctx)
	if err != nil {
		s.unbind()
		return nil, nil, err
	}
	return nv, w, nil
}

func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	nv, w, err := s.start(ctx, args)
	if err != nil {
		return 0, err
	}
	res, err := s.ex.ExecContext(noCancel, nv)
	s.unbind()
	if err = s.c.leave(ctx, w, err); err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Drain counts the result rows without decoding them: the driver reads each
// row packet but, given a destination of no columns, converts no value.
//
// (driver.Rows.Next documents a destination as wide as the columns;
// go-sql-driver/mysql's binary rows decode exactly len(dest) values and do
// not look at the column count, which the package tests exercise. Decoding
// would box every value in an interface, an allocation per column per row.)
func (s *stmt) Drain(ctx context.Context, args ...any) (int, error) {
	nv, w, err := s.start(ctx, args)
	if err != nil {
		return 0, err
	}
	rows, err := s.qu.QueryContext(noCancel, nv)
	s.unbind()
	n := 0
	if err == nil {
		for {
			if err = rows.Next(nil); err != nil {
				break
			}
			n++
		}
		if err == io.EOF {
			err = nil
		}
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}
	return n, s.c.leave(ctx, w, err)
}

// Query runs the statement and leaves its result open for reading row by
// row: the call stays in flight (inside the cancellation watch) until the
// result is read to its end or closed.
func (s *stmt) Query(ctx context.Context, args ...any) (dialect.Rows, error) {
	nv, w, err := s.start(ctx, args)
	if err != nil {
		return nil, err
	}
	dr, err := s.qu.QueryContext(noCancel, nv)
	s.unbind()
	if err != nil {
		return nil, s.c.leave(ctx, w, err)
	}
	r := &s.rows
	n := len(dr.Columns())
	if cap(r.vals) < n {
		r.vals = make([]driver.Value, n)
	}
	*r = rows{s: s, ctx: ctx, w: w, dr: dr, vals: r.vals[:n]}
	s.c.open = r
	return r, nil
}

// QueryRow runs Query, scans the first row and closes the result.
func (s *stmt) QueryRow(ctx context.Context, args []any, dest ...any) error {
	return dialect.StmtQueryRow(ctx, s, args, dest...)
}

// Close deallocates the statement on the server; on a lost session there is
// nothing left to deallocate.
func (s *stmt) Close() error {
	s.rows.end(nil)
	if s.ds == nil {
		return nil
	}
	ds := s.ds
	s.ds = nil
	if s.c.broken != nil {
		return nil
	}
	return ds.Close()
}

// errRowWidth reports a RowSource row whose width differs from the columns.
func errRowWidth(got, want int) error {
	return fmt.Errorf("mysql: load: row has %d values for %d columns", got, want)
}

// rows is a stmt's open result, read from the driver's binary-protocol rows.
type rows struct {
	s    *stmt
	ctx  context.Context // the caller's, for leave
	w    *watch          // the watch entered by Query, left by end
	dr   driver.Rows     // nil once ended
	vals []driver.Value  // the current row, as wide as the columns
	cur  bool            // vals is a row Scan may read
	err  error
}

var _ dialect.Rows = (*rows)(nil)

// errNoRow is returned by Scan without a current row.
var errNoRow = errors.New("mysql: Scan without a current row (call Next first)")

func (r *rows) Next() bool {
	r.cur = false
	if r.dr == nil {
		return false
	}
	err := r.dr.Next(r.vals)
	if err == nil {
		r.cur = true
		return true
	}
	if err == io.EOF {
		err = nil
	}
	r.end(err)
	return false
}

// end closes the driver's rows (reading what is left of the result) and
// leaves the cancellation watch, once per Query; err is the error that ended
// the reading, if any. The connection is free afterwards.
func (r *rows) end(err error) {
	if r.dr == nil {
		return
	}
	clear(r.vals) // the values may point into the driver's read buffer
	if cerr := r.dr.Close(); err == nil {
		err = cerr
	}
	r.dr = nil
	r.s.c.open = nil
	r.err = r.s.c.leave(r.ctx, r.w, err)
	r.ctx, r.w, r.cur = nil, nil, false
}

// Scan converts the current row's driver values into dest: integers and
// floats come decoded, DECIMAL, string and (unless the URL sets parseTime)
// temporal columns as text.
func (r *rows) Scan(dest ...any) error {
	if !r.cur {
		return errNoRow
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("mysql: Scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, v := range r.vals {
		if err := rowscan.Value(dest[i], v); err != nil {
			return fmt.Errorf("mysql: Scan column %d: %w", i+1, err)
		}
	}
	return nil
}

func (r *rows) Err() error { return r.err }

func (r *rows) Close() error {
	r.end(nil)
	return r.err
}

package postgres

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/internal/rowscan"
)

// rewrites caches rewritten query texts ('?' text -> '$n' text) for every
// connection of the process, so that 1,000 connections preparing the same
// statements hold one copy of each text. nrewrites counts its entries; at
// maxRewrites it is emptied (workloads use a few dozen distinct texts).
var (
	rewrites  sync.Map
	nrewrites atomic.Int64
)

const maxRewrites = 4096

// conn is one pgx connection. Like pgx.Conn it is not safe for concurrent use.
type conn struct {
	pc    *pgx.Conn
	info  dialect.ConnInfo
	nstmt int // names prepared statements rs1, rs2, ...

	// enc holds the text-encoded arguments of the statement being sent,
	// reused by every statement of the connection: one is sent at a time,
	// and pgconn copies the arguments into its message before it returns.
	// (Kept per statement, they grew to ~100 KiB per connection at TPC-C's
	// 80-odd statements: 100 MB at 1,000 terminals.)
	enc encoded

	// w is the context whose end interrupts a hot-path call (see hot).
	w *watch

	// pendingBegin: Begin was called and BEGIN not yet sent. It goes out in
	// the same round trip as the transaction's first prepared statement (or
	// on its own before anything else), saving a round trip per transaction.
	pendingBegin bool
	// mrr is the batch (BEGIN and a statement) whose second result is being
	// read; it is closed after that result.
	mrr *pgconn.MultiResultReader
}

// hot returns the context to hand pgx for a hot-path call, and the watch to
// leave when the call's I/O is over (nil: nothing is watched). A virtual
// user passes the same cancellable context to every statement; registering
// it with pgx on each call (context.AfterFunc, a lock and a map insert and
// delete) is measurable at tens of thousands of queries per second. Instead
// the conn registers each distinct context once, and gives pgx a context
// that never cancels. When the context ends during a call, the watch expires
// the socket (which ends the connection, as a cancelled benchmark
// transaction should); when it ends between calls, it leaves the
// connection alone: a capture's steps, each bounded at 2 minutes, ended its
// 10-minute window's connection when the first step's bound passed.
func (c *conn) hot(ctx context.Context) (context.Context, *watch) {
	if ctx.Done() == nil || ctx.Err() != nil {
		return ctx, nil // nothing to watch, or already over: let pgx fail fast
	}
	w := c.w
	if w == nil || w.ctx != ctx {
		if w != nil {
			w.stop()
		}
		nc := c.pc.PgConn().Conn()
		w = &watch{ctx: ctx, plain: context.WithoutCancel(ctx)}
		w.Kill = func() { _ = nc.SetDeadline(time.Now()) }
		w.stop = context.AfterFunc(ctx, w.Fire)
		c.w = w
	}
	if !w.Enter() {
		return ctx, nil // it ended since: pgx fails fast
	}
	return w.plain, w
}

// watch is one context watched for the hot path (hot): when it ends during
// a call, the socket is expired (dialect.HotWatch).
type watch struct {
	ctx   context.Context
	plain context.Context // context.WithoutCancel(ctx), made once
	stop  func() bool
	dialect.HotWatch
}

// leave ends a hot-path call (a nil watch: none was watched).
func (w *watch) leave() {
	if w != nil {
		w.Leave()
	}
}

var _ dialect.Conn = (*conn)(nil)

// sql rewrites '?' placeholders, caching the result per query text.
func (c *conn) sql(q string) string {
	if strings.IndexByte(q, '?') < 0 {
		return q
	}
	if r, ok := rewrites.Load(q); ok {
		return r.(string)
	}
	r := Rewrite(q)
	if prev, loaded := rewrites.LoadOrStore(q, r); loaded {
		return prev.(string)
	}
	if nrewrites.Add(1) > maxRewrites {
		rewrites.Clear()
		nrewrites.Store(0)
	}
	return r
}

// fail is dialect.WithContextErr.
func fail(ctx context.Context, err error) error { return dialect.WithContextErr(ctx, err) }

// flushBegin sends a pending BEGIN on its own, before a statement that cannot
// carry it.
func (c *conn) flushBegin(ctx context.Context) error {
	if !c.pendingBegin {
		return nil
	}
	c.pendingBegin = false
	return c.simple(ctx, "BEGIN")
}

// execPrepared starts a prepared statement with text arguments on the fast
// path, preceded by a pending BEGIN in the same round trip. It sends Bind,
// Execute and Sync without the Describe of the portal that libpq (and so
// sysbench and pgbench) sends with every execution: the result's columns
// were described once, at Prepare, so the server need not build and send a
// RowDescription each time (27 of a point select's 183 reply bytes). A
// statement without result columns still gets its Describe (pgconn cannot
// tell "no columns" from "not known at prepare time", a FETCH's case).
func (c *conn) execPrepared(ctx context.Context, sd *pgconn.StatementDescription, params [][]byte) (*pgconn.ResultReader, error) {
	pc := c.pc.PgConn()
	if !c.pendingBegin {
		return pc.ExecStatement(ctx, sd, params, nil, nil), nil
	}
	c.pendingBegin = false
	var b pgconn.Batch
	b.ExecParams("BEGIN", nil, nil, nil, nil)
	b.ExecStatement(sd, params, nil, nil)
	mrr := pc.ExecBatch(ctx, &b)
	if !mrr.NextResult() {
		return nil, errors.Join(errors.New("postgres: no result for BEGIN"), mrr.Close())
	}
	if _, err := mrr.ResultReader().Close(); err != nil {
		return nil, errors.Join(err, mrr.Close())
	}
	if !mrr.NextResult() {
		return nil, errors.Join(errors.New("postgres: no result for the statement after BEGIN"), mrr.Close())
	}
	c.mrr = mrr
	return mrr.ResultReader(), nil
}

// closeResult closes rr and, if it was the second result of a batch, the
// batch.
func (c *conn) closeResult(rr *pgconn.ResultReader) (pgconn.CommandTag, error) {
	tag, err := rr.Close()
	if c.mrr != nil {
		if merr := c.mrr.Close(); err == nil {
			err = merr
		}
		c.mrr = nil
	}
	return tag, err
}

func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := c.flushBegin(ctx); err != nil {
		return 0, err
	}
	tag, err := c.pc.Exec(ctx, c.sql(query), args...)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return tag.RowsAffected(), nil
}

func (c *conn) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	if err := c.flushBegin(ctx); err != nil {
		return err
	}
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
	hctx, w := c.hot(ctx)
	_, err := c.pc.PgConn().Exec(hctx, sql).ReadAll()
	w.leave()
	return fail(ctx, err)
}

// Begin only notes the transaction: BEGIN travels with the next statement.
func (c *conn) Begin(ctx context.Context) error {
	if c.pendingBegin {
		return errors.New("postgres: Begin inside a transaction")
	}
	c.pendingBegin = true
	return nil
}

// Commit ends the transaction; one in which nothing was sent costs nothing.
func (c *conn) Commit(ctx context.Context) error {
	if c.pendingBegin {
		c.pendingBegin = false
		return nil
	}
	return c.simple(ctx, "COMMIT")
}

func (c *conn) Rollback(ctx context.Context) error {
	if c.pendingBegin {
		c.pendingBegin = false
		return nil
	}
	return c.simple(ctx, "ROLLBACK")
}

// TableExists looks in the current schema, or in the schema name is
// qualified by (sales.orders); each part matches as written or folded to
// lower case (as PostgreSQL folds unquoted identifiers).
func (c *conn) TableExists(ctx context.Context, name string) (bool, error) {
	schema, table, qualified := strings.Cut(name, ".")
	if !qualified {
		schema, table = "", name
	}
	var ok bool
	err := c.pc.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.tables
		WHERE table_schema::text IN (COALESCE(NULLIF($2::text, ''), current_schema()), lower($2::text))
		AND table_name::text IN ($1::text, lower($1::text)))`, table, schema).Scan(&ok)
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
	if err := c.flushBegin(ctx); err != nil {
		return 0, err
	}
	n, err := c.pc.CopyFrom(ctx, ident(table), lc, src)
	return n, fail(ctx, err)
}

func (c *conn) Info() dialect.ConnInfo { return c.info }

// closeTimeout bounds the Terminate message sent by Close.
const closeTimeout = 5 * time.Second

func (c *conn) Close() error {
	if c.w != nil {
		c.w.stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return c.pc.Close(ctx)
}

// stmt is a named prepared statement on one conn.
type stmt struct {
	c     *conn
	sd    *pgconn.StatementDescription
	rows  rows  // the result of Query, reused
	fargs []any // pgx arguments of Query's slow path, reused
}

var _ dialect.Stmt = (*stmt)(nil)

// encoded is the fast path's text-encoded arguments.
type encoded struct {
	params [][]byte
	buf    []byte
	ends   []int // where each argument ends in buf
}

// encode renders args in PostgreSQL's text format into the connection's
// reused buffers, for the argument types workloads pass on the hot path
// (integers, floats, strings, bytes). It returns false for any other type;
// the caller then goes through pgx's encoders. The encoded arguments are
// valid until the connection's next encode.
func (s *stmt) encode(args []any) ([][]byte, bool) {
	if len(args) != len(s.sd.ParamOIDs) {
		return nil, false
	}
	e := &s.c.enc
	e.buf = e.buf[:0]
	e.ends = e.ends[:0]
	for i, a := range args {
		switch v := a.(type) {
		case int:
			e.buf = strconv.AppendInt(e.buf, int64(v), 10)
		case int64:
			e.buf = strconv.AppendInt(e.buf, v, 10)
		case int32:
			e.buf = strconv.AppendInt(e.buf, int64(v), 10)
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, false // spelled differently in PostgreSQL: let pgx encode it
			}
			e.buf = strconv.AppendFloat(e.buf, v, 'f', -1, 64)
		case float32:
			if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
				return nil, false
			}
			e.buf = strconv.AppendFloat(e.buf, float64(v), 'f', -1, 32)
		case string:
			e.buf = append(e.buf, v...)
		case []byte:
			if s.sd.ParamOIDs[i] == pgtype.ByteaOID {
				return nil, false // bytea's text form is escaped: let pgx encode it
			}
			e.buf = append(e.buf, v...)
		default:
			return nil, false
		}
		e.ends = append(e.ends, len(e.buf))
	}
	e.params = e.params[:0]
	start := 0
	for _, end := range e.ends {
		e.params = append(e.params, e.buf[start:end:end])
		start = end
	}
	return e.params, true
}

// run executes the statement through pgconn with text arguments and text
// results (as libpq does), or through pgx when an argument needs its encoders.
func (s *stmt) run(ctx context.Context, args []any, count bool) (int, int64, error) {
	s.rows.end()
	ctx, w := s.c.hot(ctx)
	defer w.leave()
	params, ok := s.encode(args)
	if !ok {
		if err := s.c.flushBegin(ctx); err != nil {
			return 0, 0, err
		}
		if count {
			rows, err := s.c.pc.Query(ctx, s.sd.Name, args...)
			if err != nil {
				return 0, 0, err
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			return n, rows.CommandTag().RowsAffected(), rows.Err()
		}
		tag, err := s.c.pc.Exec(ctx, s.sd.Name, args...)
		return 0, tag.RowsAffected(), err
	}
	rr, err := s.c.execPrepared(ctx, s.sd, params)
	if err != nil {
		return 0, 0, err
	}
	n := 0
	for rr.NextRow() {
		n++
	}
	tag, err := s.c.closeResult(rr)
	return n, tag.RowsAffected(), err
}

func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	_, affected, err := s.run(ctx, args, false)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return affected, nil
}

// Drain counts the result rows without decoding any value.
func (s *stmt) Drain(ctx context.Context, args ...any) (int, error) {
	n, _, err := s.run(ctx, args, true)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return n, nil
}

// textResults asks pgx for every result column in text format, the form
// rows parses.
var textResults = pgx.QueryResultFormats{pgx.TextFormatCode}

// Query runs the statement like run, keeping the result open for reading.
// It reads up to the first row, so that the statement's own error (the usual
// case) is returned here rather than by Next.
func (s *stmt) Query(ctx context.Context, args ...any) (dialect.Rows, error) {
	r := &s.rows
	r.end()
	*r = rows{s: s, ctx: ctx}
	hctx, w := s.c.hot(ctx)
	r.w = w // left when the result ends (end)
	if params, ok := s.encode(args); ok {
		rr, err := s.c.execPrepared(hctx, s.sd, params)
		if err != nil {
			r.ctx, r.w = nil, nil
			w.leave()
			return nil, fail(ctx, err)
		}
		r.rr = rr
	} else {
		if err := s.c.flushBegin(hctx); err != nil {
			r.ctx, r.w = nil, nil
			w.leave()
			return nil, fail(ctx, err)
		}
		s.fargs = append(append(s.fargs[:0], textResults), args...)
		pr, err := s.c.pc.Query(hctx, s.sd.Name, s.fargs...)
		clear(s.fargs)
		if err != nil {
			r.ctx, r.w = nil, nil
			w.leave()
			return nil, fail(ctx, err)
		}
		r.pr = pr
	}
	if r.read() {
		r.ahead = true
		return r, nil
	}
	r.end()
	if r.err != nil {
		return nil, r.err
	}
	return r, nil
}

// QueryRow runs Query, scans the first row and closes the result.
func (s *stmt) QueryRow(ctx context.Context, args []any, dest ...any) error {
	return dialect.StmtQueryRow(ctx, s, args, dest...)
}

// Columns names the result's columns (dialect.Columner), from the
// description the server gave when the statement was prepared.
func (s *stmt) Columns() []string {
	out := make([]string, len(s.sd.Fields))
	for i, f := range s.sd.Fields {
		out[i] = f.Name
	}
	return out
}

var _ dialect.Columner = (*stmt)(nil)

// Close deallocates the statement on the server (bounded by closeTimeout).
func (s *stmt) Close() error {
	s.rows.end()
	if s.c.pc.IsClosed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return s.c.pc.Deallocate(ctx, s.sd.Name)
}

// rows is a stmt's open result in text format: read from pgconn (rr) on the
// fast path, or from pgx (pr) when the arguments needed pgx's encoders.
type rows struct {
	s     *stmt
	ctx   context.Context // the caller's, for fail
	rr    *pgconn.ResultReader
	pr    pgx.Rows
	vals  [][]byte // the current row, valid until the next read
	ahead bool     // Query read the first row, which Next has not returned yet
	cur   bool     // vals is a row Scan may read
	err   error
	w     *watch // the call's watch, left when the result ends
}

var _ dialect.Rows = (*rows)(nil)

// errNoRow is returned by Scan without a current row.
var errNoRow = errors.New("postgres: Scan without a current row (call Next first)")

// read reads the next row into vals.
func (r *rows) read() bool {
	switch {
	case r.rr != nil:
		if r.rr.NextRow() {
			r.vals = r.rr.Values()
			return true
		}
	case r.pr != nil:
		if r.pr.Next() {
			r.vals = r.pr.RawValues()
			return true
		}
	}
	return false
}

func (r *rows) Next() bool {
	if r.ahead {
		r.ahead, r.cur = false, true
		return true
	}
	if r.cur = r.read(); r.cur {
		return true
	}
	r.end()
	return false
}

// end closes the result, reading what is left, and keeps its error. The
// connection is free afterwards.
func (r *rows) end() {
	var err error
	switch {
	case r.rr != nil:
		_, err = r.s.c.closeResult(r.rr)
		r.rr = nil
	case r.pr != nil:
		r.pr.Close()
		err = r.pr.Err()
		r.pr = nil
	default:
		r.w.leave() // a Query that failed before its result
		r.w = nil
		return
	}
	r.w.leave()
	r.w = nil
	if err != nil && r.err == nil {
		r.err = fail(r.ctx, err)
	}
	r.vals, r.ahead, r.cur, r.ctx = nil, false, false, nil
}

// Scan parses the current row's text values into dest.
func (r *rows) Scan(dest ...any) error {
	if !r.cur {
		return errNoRow
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("postgres: Scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	fields := r.s.sd.Fields
	for i, v := range r.vals {
		var err error
		switch s, ok := rowscan.AsScanner(dest[i]); {
		case ok:
			err = r.scanValue(s, i, v)
		case v != nil && i < len(fields) && fields[i].DataTypeOID == pgtype.ByteaOID:
			err = scanBytea(dest[i], v)
		default:
			err = rowscan.Text(dest[i], v)
		}
		if err != nil {
			return fmt.Errorf("postgres: Scan column %d: %w", i+1, err)
		}
	}
	return nil
}

// scanValue hands s column i's value v (text) decoded by the column's type,
// as pgx's database/sql driver decodes it: a TIMESTAMPTZ becomes a
// time.Time, a BOOLEAN a bool, a BYTEA a []byte; a type pgx does not know
// is its text.
func (r *rows) scanValue(s rowscan.Scanner, i int, v []byte) error {
	if v == nil {
		return s.Scan(nil)
	}
	fields := r.s.sd.Fields
	if i >= len(fields) {
		return s.Scan(string(v))
	}
	oid := fields[i].DataTypeOID
	m := r.s.c.pc.TypeMap()
	typ, ok := m.TypeForOID(oid)
	if !ok {
		return s.Scan(string(v))
	}
	dv, err := typ.Codec.DecodeDatabaseSQLValue(m, oid, pgtype.TextFormatCode, v)
	if err != nil {
		return err
	}
	return s.Scan(dv)
}

func (r *rows) Err() error { return r.err }

func (r *rows) Close() error {
	r.end()
	return r.err
}

// scanBytea decodes a bytea column's text form (hex, PostgreSQL's default
// bytea_output) into a *[]byte or *string.
func scanBytea(dest any, v []byte) error {
	if len(v) < 2 || v[0] != '\\' || v[1] != 'x' {
		return errors.New("bytea value not in hex format (bytea_output = escape is not supported)")
	}
	var err error
	switch d := dest.(type) {
	case *[]byte:
		*d, err = hex.AppendDecode((*d)[:0], v[2:])
	case *string:
		var b []byte
		b, err = hex.AppendDecode(nil, v[2:])
		*d = string(b)
	default:
		return fmt.Errorf("cannot scan bytea into %T", dest)
	}
	return err
}

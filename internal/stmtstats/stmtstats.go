package stmtstats

import (
	"context"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
)

// Options say how a Reader reads.
type Options struct {
	// Marker is put in a comment before every statement the reader runs
	// ("" for none), so that the statistics tell its own apart
	// (capture.Marker).
	Marker string
	// Whole refuses (NotReady) a server or user whose statistics would be
	// read only in part: PostgreSQL before 13, a user who may not read
	// other users' statements. Without it the reader reads what it may
	// (on PostgreSQL, another user's statement whose text it may not see
	// is left out).
	Whole bool
	// TopLevel reads only the statements the clients sent, not those run
	// inside functions (PostgreSQL 14 and later keep them apart, with
	// pg_stat_statements.track = all).
	TopLevel bool
	// Prepared adds, on MySQL and MariaDB, the prepared statements of the
	// schema's other threads (performance_schema's
	// prepared_statements_instances, added up by text), which the digests
	// leave out when the binary protocol executes them; their IDs begin
	// with PreparedID.
	Prepared bool
}

// PreparedID begins the ID of a prepared statement read apart from the
// digests (Options.Prepared).
const PreparedID = "prepared:"

// Kind is why the statistics cannot be read.
type Kind int

const (
	// Absent: the server keeps no statistics there: the extension is not
	// created, performance_schema or its digest summary is off, or the
	// server is not one that keeps them.
	Absent Kind = iota + 1
	// NotLoaded: the extension is created but the server does not load it.
	NotLoaded
	// Denied: the user may not read them (Whole: not every user's).
	Denied
	// Unsupported: the server's version keeps them otherwise (Whole).
	Unsupported
)

// NotReady is why a server's statement statistics cannot be read, with
// the setting or SQL that would let them be (Reason), and the server's
// error where one told it (Err).
type NotReady struct {
	Kind   Kind
	Reason string
	Err    error
}

func (e *NotReady) Error() string { return e.Reason }

func (e *NotReady) Unwrap() error { return e.Err }

// Reader reads one server's statement statistics on one connection, which
// it does not own (closing the connection ends it). Its methods are called
// from one goroutine.
type Reader struct {
	c     dialect.Conn
	o     Options
	srv   server
	stmts dialect.Stmt // the statements' query, prepared
	// executes counts the reader's own executions of prepared statements
	// (MariaDB counts them under statement/com/Execute: Snapshot.Unseen
	// leaves them out).
	executes int64
}

// server is what one kind of server answers.
type server interface {
	// open checks that the statistics can be read and returns the
	// statements' query, whose rows are a statement's ID, text, calls,
	// time (milliseconds) and rows.
	open(ctx context.Context, r *Reader) (string, error)
	// failed says what a failed read of the statements means.
	failed(err error) error
	// view names what the statements are read from, for errors.
	view() string
	// counters reads the transaction counters into s, before the
	// statements; after what is read after them.
	counters(ctx context.Context, r *Reader, s *capture.Snapshot) error
	after(ctx context.Context, r *Reader, s *capture.Snapshot) error
}

// Open checks that the statement statistics of the server c is connected
// to can be read, prepares their query on c and reads it once. It returns
// a *NotReady when they cannot be read for a reason the server's
// administrator can change.
func Open(ctx context.Context, c dialect.Conn, o Options) (*Reader, error) {
	r := &Reader{c: c, o: o}
	info := c.Info()
	switch info.ServerProduct {
	case "PostgreSQL":
		r.srv = &postgres{}
	case "MySQL", "MariaDB":
		r.srv = &mysql{mariadb: info.ServerProduct == "MariaDB"}
	default:
		return nil, &NotReady{Kind: Absent, Reason: info.ServerProduct + " keeps no statement statistics"}
	}
	q, err := r.srv.open(ctx, r)
	if err != nil {
		return nil, err
	}
	if r.stmts, err = c.Prepare(ctx, r.mark(q)); err == nil {
		_, err = r.Statements(ctx)
	}
	if err != nil {
		return nil, r.srv.failed(err)
	}
	return r, nil
}

// Statements reads the statements' cumulative counters (never nil).
func (r *Reader) Statements(ctx context.Context) ([]capture.Stmt, error) {
	out := []capture.Stmt{}
	err := r.rows(ctx, r.stmts, func(rows dialect.Rows) error {
		var st capture.Stmt
		if err := rows.Scan(&st.ID, &st.Text, &st.Calls, &st.TimeMs, &st.Rows); err != nil {
			return err
		}
		out = append(out, st)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Snapshot reads what the server counted now: its transaction counters,
// the statements' counters, and the entries dropped and the executions
// not told apart where the server says.
func (r *Reader) Snapshot(ctx context.Context) (capture.Snapshot, error) {
	s := capture.Snapshot{}
	if err := r.srv.counters(ctx, r, &s); err != nil {
		return s, err
	}
	s.At = time.Now()
	var err error
	if s.Stmts, err = r.Statements(ctx); err != nil {
		return s, fmt.Errorf("reading %s: %w", r.srv.view(), err)
	}
	return s, r.srv.after(ctx, r, &s)
}

func (r *Reader) mark(q string) string {
	if r.o.Marker == "" {
		return q
	}
	return "/* " + r.o.Marker + " */ " + q
}

// one runs q and scans its one row.
func (r *Reader) one(ctx context.Context, q string, dest ...any) error {
	return r.c.QueryRow(ctx, r.mark(q), nil, dest...)
}

// Query prepares q (marked, Options.Marker), runs it on the reader's
// connection and calls scan for each row: the other statements of the
// reader's user (capture's catalog) are run as the reader's own, marked
// and counted among its executions.
func (r *Reader) Query(ctx context.Context, q string, scan func(dialect.Rows) error) error {
	st, err := r.c.Prepare(ctx, r.mark(q))
	if err != nil {
		return err
	}
	defer st.Close()
	return r.rows(ctx, st, scan)
}

// rows runs st and calls scan for each row.
func (r *Reader) rows(ctx context.Context, st dialect.Stmt, scan func(dialect.Rows) error) error {
	r.executes++
	rows, err := st.Query(ctx)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := scan(rows); err != nil {
			rows.Close()
			return err
		}
	}
	return rows.Close()
}

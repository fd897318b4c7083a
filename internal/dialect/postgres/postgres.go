package postgres

import (
	"github.com/rightsize/rightsize/internal/dialect/blockio"

	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
)

// Dialect is the PostgreSQL dialect. The zero value is ready to use; it holds
// no state and is safe for concurrent use.
type Dialect struct{}

var _ dialect.Dialect = Dialect{}

// Name returns "postgres".
func (Dialect) Name() string { return "postgres" }

// Schemes returns the URL schemes libpq accepts.
func (Dialect) Schemes() []string { return []string{"postgres", "postgresql"} }

// Capabilities reports COPY as the bulk-load path.
func (Dialect) Capabilities() dialect.Capabilities {
	return dialect.Capabilities{BulkLoad: "COPY", BlockingIO: true}
}

// AutoIncrementPK returns a SERIAL primary key, as sysbench 1.0 creates for pgsql.
func (Dialect) AutoIncrementPK(col string) string { return col + " SERIAL NOT NULL PRIMARY KEY" }

// TableOptions is empty for PostgreSQL.
func (Dialect) TableOptions() string { return "" }

// ForUpdate returns " FOR UPDATE".
func (Dialect) ForUpdate() string { return " FOR UPDATE" }

var _ dialect.Analyzer = Dialect{}

// AnalyzeSQL implements dialect.Analyzer: VACUUM (ANALYZE) sets the table's
// visibility map and hint bits and gathers its statistics in one pass.
func (Dialect) AnalyzeSQL(table string) string { return "VACUUM (ANALYZE) " + table }

// cancelGrace is how long a cancelled query may take to acknowledge the cancel
// request before the connection's socket deadline breaks it (and the connection).
const cancelGrace = 2 * time.Second

// tuneConfig sets what rightsize needs on every connection: a cancelled or
// timed-out context sends a cancel request to the server at once, so the
// connection survives a statement timeout; the socket deadline only fires if
// the server does not answer within cancelGrace.
func tuneConfig(cfg *pgx.ConnConfig) {
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: cancelGrace}
	}
}

// EnsureDatabase connects to the "postgres" maintenance database and creates
// the target's database if it is missing.
func (d Dialect) EnsureDatabase(ctx context.Context, t *dialect.Location) (bool, error) {
	c, name, err := maintenance(ctx, t)
	if err != nil {
		return false, err
	}
	defer c.Close(context.Background())
	var exists bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return false, fmt.Errorf("postgres: look up database: %w", err)
	}
	if exists {
		return false, nil
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: created meanwhile
			return false, nil
		}
		return false, fmt.Errorf("postgres: create database: %w", err)
	}
	return true, nil
}

// maintenance connects to the server's "postgres" maintenance database as
// t's user, and returns the connection and the name of t's database.
func maintenance(ctx context.Context, t *dialect.Location) (*pgx.Conn, string, error) {
	cfg, err := configOf(t)
	if err != nil {
		return nil, "", err
	}
	name := cfg.Database
	if name == "" {
		name = cfg.User
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	cctx, cancel, timeout := t.ConnectWithin(ctx)
	defer cancel()
	c, err := pgx.ConnectConfig(cctx, admin)
	if err != nil {
		return nil, "", fmt.Errorf("postgres: connect to maintenance database: %w", timedOut(ctx, cctx, connectErr(err, cfg), cfg, timeout))
	}
	return c, name, nil
}

// dial connects a virtual user's socket (a test watches the bytes through it).
var dial pgconn.DialFunc = blockio.Dial

// Connect opens one connection with a prepared-statement cache, within
// the target's connect timeout.
func (Dialect) Connect(ctx context.Context, t *dialect.Location) (dialect.Conn, error) {
	cfg, err := configOf(t)
	if err != nil {
		return nil, err
	}
	cfg = cfg.Copy()
	// Blocking socket I/O, as libpq does: half the client CPU per round trip
	// of Go's netpoller on loopback (see package blockio). Fallbacks (other
	// hosts in a multi-host URL) use it too.
	cfg.DialFunc = dial
	cctx, cancel, timeout := t.ConnectWithin(ctx)
	defer cancel()
	pc, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", timedOut(ctx, cctx, connectErr(err, cfg), cfg, timeout))
	}
	c := &conn{pc: pc}
	c.info.ServerProduct, c.info.ServerVersion = serverOf(ctx, pc)
	if tc, ok := pc.PgConn().Conn().(*tls.Conn); ok {
		c.info.Encrypted = true
		c.info.TLSVersion = tls.VersionName(tc.ConnectionState().Version)
	}
	return c, nil
}

var _ dialect.Store = Dialect{}

// storeSession are the session settings of a store's connection, whatever
// the server's or the URL's: a store reads values into Scanners from their
// text, which must be exact and in the form pgx parses (ISO dates, hex
// bytea, floats to the last digit).
var storeSession = map[string]string{"datestyle": "ISO", "bytea_output": "hex", "extra_float_digits": "3"}

// ConnectStore is Connect (the server queues lock waits itself, and the
// database must exist) with storeSession's settings.
func (d Dialect) ConnectStore(ctx context.Context, t *dialect.Location) (dialect.Conn, error) {
	cfg, err := configOf(t)
	if err != nil {
		return nil, err
	}
	cfg = cfg.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	for k := range cfg.RuntimeParams {
		if _, ok := storeSession[strings.ToLower(k)]; ok {
			delete(cfg.RuntimeParams, k)
		}
	}
	maps.Copy(cfg.RuntimeParams, storeSession)
	st := *t
	st.Conn = cfg
	return d.Connect(ctx, &st)
}

// StoreTypes are PostgreSQL's own types for times, floats, booleans and bytes.
func (Dialect) StoreTypes() dialect.StoreTypes {
	return dialect.StoreTypes{Time: "TIMESTAMPTZ", Float: "DOUBLE PRECISION", Bool: "BOOLEAN", Blob: "BYTEA"}
}

// StoreTime is t in UTC (a TIMESTAMPTZ keeps microseconds).
func (Dialect) StoreTime(t time.Time) any { return t.UTC() }

// StoreLock takes a transaction-level advisory lock: CREATE TABLE IF NOT
// EXISTS run by two transactions at once can fail in the second one.
func (Dialect) StoreLock() string { return "SELECT pg_advisory_xact_lock(?)" }

// connectErr is a failed connection's error without the password and on one
// line: pgconn puts each attempt on a line of its own (each host, and TLS then
// plain text with sslmode=prefer), often the same line twice, and the CLI
// prints one line per failure. The chain is kept for Classify.
func connectErr(err error, cfg *pgx.ConnConfig) error {
	err = dialect.ScrubError(err, cfg.Password)
	msg := err.Error()
	if strings.Contains(msg, "received unexpected message") {
		// Something answered the start-up message that is not PostgreSQL:
		// pgx says "received unexpected message: %!w(<nil>)".
		return &onelineError{msg: fmt.Sprintf("%s:%d does not speak PostgreSQL's protocol: it answered the start-up with something else (another database's port? MySQL and MariaDB listen on 3306; use mysql:// for them)",
			cfg.Host, cfg.Port), err: err}
	}
	if !strings.Contains(msg, "\n") {
		return err
	}
	var parts []string
	seen := map[string]bool{}
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && !seen[l] {
			seen[l] = true
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return err
	}
	return &onelineError{msg: parts[0] + " " + strings.Join(parts[1:], "; "), err: err}
}

// timedOut is err, from a connection attempt under cctx (ctx bounded by
// the connect timeout), or when cctx expired while ctx had not, one message
// that says so; the chain keeps err and context.DeadlineExceeded. pgx's own
// words for it ("tls error: timeout: context deadline exceeded; dial error:
// ...", an attempt per sslmode) add nothing the message does not say.
func timedOut(ctx, cctx context.Context, err error, cfg *pgx.ConnConfig, timeout time.Duration) error {
	if ctx.Err() != nil || !errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return &onelineError{msg: fmt.Sprintf("the server at %s:%d did not complete the connection within the connect timeout (%v)", cfg.Host, cfg.Port, timeout),
		err: errors.Join(err, context.DeadlineExceeded)}
}

// onelineError is an error's text on one line, with the error's chain.
type onelineError struct {
	msg string
	err error
}

func (e *onelineError) Error() string { return e.msg }
func (e *onelineError) Unwrap() error { return e.err }

// Classify maps an error to its class from SQLSTATE codes and error types.
func (Dialect) Classify(err error) errclass.Class {
	if err == nil {
		return errclass.None
	}
	if errors.Is(err, context.Canceled) {
		return errclass.Canceled
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch code := pgErr.Code; {
		case code == "40001":
			return errclass.Serialization
		case code == "40P01":
			return errclass.Deadlock
		case code == "55P03":
			return errclass.LockTimeout
		case code == "57014":
			return errclass.Timeout
		case len(code) == 5 && code[:2] == "08", code == "57P01", code == "57P02", code == "57P03":
			return errclass.Connection
		case len(code) == 5 && code[:2] == "23":
			return errclass.Constraint
		case code == "28000", code == "28P01": // invalid_authorization_specification, invalid_password
			return errclass.Auth
		case code == "42501": // insufficient_privilege
			return errclass.Permission
		case code == "3D000", code == "42P01": // invalid_catalog_name (no such database), undefined_table
			return errclass.Missing
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errclass.Timeout
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr),
		errors.As(err, &netErr),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		errors.Is(err, pgconn.ErrConnClosed),
		pgconn.SafeToRetry(err):
		return errclass.Connection
	}
	return errclass.Generic(err)
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
)

// BusyTimeoutMS is how long, in milliseconds, a connection waits for a lock
// held by another connection before failing with SQLITE_BUSY.
const BusyTimeoutMS = 5000

// pragmas are applied by the driver on every new connection, in this order.
const pragmas = "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"

// Dialect is the SQLite dialect. The zero value is ready to use; it holds no
// state and is safe for concurrent use.
type Dialect struct{}

var _ dialect.Dialect = Dialect{}

// config is the dialect-private part of a Target.
type config struct {
	path string // file path as given (cleaned)
	dsn  string // driver name: path plus pragmas
}

// Name returns "sqlite".
func (Dialect) Name() string { return "sqlite" }

// Schemes returns "sqlite".
func (Dialect) Schemes() []string { return []string{"sqlite"} }

// Capabilities reports SQLite's single writer and embedded nature.
func (Dialect) Capabilities() dialect.Capabilities {
	return dialect.Capabilities{
		SingleWriter: true,
		Embedded:     true,
		BulkLoad:     "batched transactions",
		Notes: []string{
			"SQLite allows one writing transaction at a time: write TPS does not scale with virtual users; extra writers queue on the lock (busy_timeout 5000 ms) and show up as response time.",
			"SQLite runs inside the rightsize process: client CPU includes the database's own work.",
			"journal_mode=WAL, synchronous=NORMAL: a commit does not wait for fsync (a power loss may lose the last transactions, never corrupts the file), so commit latency is lower than with synchronous=FULL.",
			"Transactions that write start with BEGIN IMMEDIATE (take the write lock up front); read-only ones with BEGIN and run in parallel with the writer.",
		},
	}
}

// AutoIncrementPK returns "col INTEGER PRIMARY KEY AUTOINCREMENT". AUTOINCREMENT
// keeps SQLite from reusing the ids of deleted rows, as MySQL's AUTO_INCREMENT
// and PostgreSQL's SERIAL do (sysbench semantics); its cost is one update of
// sqlite_sequence per insert.
func (Dialect) AutoIncrementPK(col string) string {
	return col + " INTEGER PRIMARY KEY AUTOINCREMENT"
}

// TableOptions is empty for SQLite.
func (Dialect) TableOptions() string { return "" }

// ForUpdate is empty: SQLite has no row locks (and no FOR UPDATE); a
// transaction that writes holds the database's write lock (see BeginWrite).
func (Dialect) ForUpdate() string { return "" }

// ParseTarget accepts "sqlite:PATH", "sqlite://PATH" (relative) and
// "sqlite:///abs/path", PATH percent-decoded. Query strings ('?' or '#',
// typed or encoded) and in-memory databases are refused: every virtual user
// opens its own connection, and they must share one file.
func (Dialect) ParseTarget(raw string, _ func(string) string) (*dialect.Location, error) {
	rest, ok := cutPrefixFold(raw, "sqlite:")
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a sqlite: URL", dialect.ErrBadTarget, raw)
	}
	switch {
	case strings.HasPrefix(rest, "///"):
		rest = rest[2:] // keep one leading slash: absolute path
	case strings.HasPrefix(rest, "//"):
		rest = rest[2:] // relative path after sqlite://
	}
	typed := rest
	if p, err := url.PathUnescape(rest); err == nil {
		rest = p
	}
	// Percent-encoded too: the driver reads what follows the first '?' of its
	// DSN as parameters, so a path "a?b.db" would open the file "a".
	if strings.ContainsAny(rest, "?#") {
		return nil, fmt.Errorf("%w: sqlite path %q: '?' and '#' are not allowed (no query parameters)", dialect.ErrBadTarget, typed)
	}
	if rest == "" || rest == ":memory:" || strings.HasPrefix(rest, "file:") || strings.ContainsRune(rest, 0) {
		return nil, fmt.Errorf("%w: sqlite target needs a file path, e.g. sqlite:./bench.db", dialect.ErrBadTarget)
	}
	if strings.HasSuffix(rest, "/") {
		return nil, fmt.Errorf("%w: sqlite path %q is a directory: it names a directory, not a database file", dialect.ErrBadTarget, rest)
	}
	path := filepath.Clean(rest)
	if b, cb := filepath.Base(rest), filepath.Base(path); b == "." || b == ".." || cb == "." || cb == ".." || cb == "/" {
		return nil, fmt.Errorf("%w: sqlite path %q is a directory: it names a directory, not a database file", dialect.ErrBadTarget, rest)
	}
	return &dialect.Location{
		Dialect:  "sqlite",
		Redacted: "sqlite:" + path,
		Database: path,
		Identity: "sqlite " + absolute(path),
		Conn:     &config{path: path, dsn: path + "?" + pragmas},
	}, nil
}

// absolute is path made absolute from the working directory (path itself
// when that is unknown): one file's identity by any of its names.
func absolute(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// targetConfig is the target's settings, checking its type (an
// ErrBadTarget).
func targetConfig(t *dialect.Location) (*config, error) {
	c, err := dialect.ConnOf[config](t, "sqlite")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", dialect.ErrBadTarget, err)
	}
	return c, nil
}

// EnsureDatabase creates the file's parent directory and the file itself
// (in WAL mode) if they do not exist; created reports whether the file was new.
func (d Dialect) EnsureDatabase(ctx context.Context, t *dialect.Location) (bool, error) {
	c, err := targetConfig(t)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return false, fmt.Errorf("sqlite: create directory for %s: %w", c.path, err)
	}
	_, err = os.Stat(c.path)
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("sqlite: %w", err)
	}
	conn, err := d.Connect(ctx, t)
	if err != nil {
		return false, err
	}
	return true, conn.Close()
}

// Connect opens one connection: a private *sql.DB limited to one connection,
// from which one *sql.Conn is pinned. Pinning matters because BEGIN and COMMIT
// are sent as statements, and they and the prepared statements must all run on
// the same SQLite connection; a pool could silently swap it after an error. The
// file is created if missing, but not its directory (see EnsureDatabase).
// t.ConnectTimeout does not apply: no server is waited for, and waiting for
// another connection's lock is busy_timeout's.
func (Dialect) Connect(ctx context.Context, t *dialect.Location) (dialect.Conn, error) {
	c, err := targetConfig(t)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Dir(c.path)); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", c.path, err)
	}
	cn, err := connect(ctx, c.path, c.dsn)
	if err != nil {
		return nil, err
	}
	cn.(*conn).w = clientWaits(c.path)
	return cn, nil
}

var _ dialect.ClientWaiter = Dialect{}

// waits are the ClientWaits of the databases connected to, by file path.
var waits sync.Map

func clientWaits(path string) *dialect.ClientWaits {
	w, _ := waits.LoadOrStore(path, &dialect.ClientWaits{})
	return w.(*dialect.ClientWaits)
}

// ClientWaits returns what the connections (Connect's, not a store's) to
// t's file in this process are doing: in a call, waiting for the write
// lock (BEGIN IMMEDIATE), and its time in all. Nil for a target the
// dialect did not parse.
func (Dialect) ClientWaits(t *dialect.Location) *dialect.ClientWaits {
	c, err := targetConfig(t)
	if err != nil {
		return nil
	}
	return clientWaits(c.path)
}

// storePragmas are pragmas for a store's connection: other processes'
// writers are waited for up to dialect.StoreLockWait.
var storePragmas = fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)", dialect.StoreLockWait.Milliseconds())

var _ dialect.Store = Dialect{}

// ConnectStore opens a connection as Connect does, for a store that other
// processes write too: it creates the file's directory when missing, and
// waits up to dialect.StoreLockWait for another connection's lock. Its
// transactions that write begin with BeginWrite (BEGIN IMMEDIATE), so two
// that read and then write never deadlock on the upgrade to the write lock.
func (Dialect) ConnectStore(ctx context.Context, t *dialect.Location) (dialect.Conn, error) {
	c, err := targetConfig(t)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	// Opening sets journal_mode=WAL, which on a file other connections are
	// opening too can fail with SQLITE_BUSY at once, without the busy
	// handler (seen when six writers open a new catalog together): such an
	// open is tried again, up to StoreLockWait.
	deadline := time.Now().Add(dialect.StoreLockWait)
	for {
		conn, err := connect(ctx, c.path, c.path+"?"+storePragmas)
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return conn, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// busy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED.
func busy(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED)
}

// StoreTypes: SQLite has no time or boolean type; times are text (see
// StoreTime) and booleans integers.
func (Dialect) StoreTypes() dialect.StoreTypes {
	return dialect.StoreTypes{Time: "TEXT", Float: "REAL", Bool: "INTEGER", Blob: "BLOB"}
}

// storeTimeLayout is how a store keeps times: fixed width, so that text
// order is time order.
const storeTimeLayout = "2006-01-02T15:04:05.000000Z"

// StoreTime is t's RFC 3339 text in UTC, to the microsecond, fixed width.
func (Dialect) StoreTime(t time.Time) any { return t.UTC().Format(storeTimeLayout) }

// StoreLock is "": a transaction that writes holds the database's one write
// lock from BeginWrite on.
func (Dialect) StoreLock() string { return "" }

// connect opens one connection to the file at path, dsn being the path and
// the pragmas as the driver takes them.
func connect(ctx context.Context, path, dsn string) (dialect.Conn, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	sc, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	cn := &conn{db: db, c: sc}
	var version string
	if err := sc.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version); err != nil {
		cn.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	cn.info = dialect.ConnInfo{ServerProduct: "SQLite", ServerVersion: version}
	return cn, nil
}

// Classify maps SQLite result codes to classes: BUSY and LOCKED to
// LockTimeout (the busy_timeout expired), BUSY_SNAPSHOT to Serialization (a
// read transaction's snapshot went stale before it wrote; retrying works),
// CONSTRAINT to Constraint, INTERRUPT to Canceled, CANTOPEN and NOTADB to
// Connection, AUTH to Auth, PERM and READONLY to Permission; everything else goes to errclass.Generic.
func (Dialect) Classify(err error) errclass.Class {
	if err == nil {
		return errclass.None
	}
	if c := errclass.Generic(err); c != errclass.Other {
		return c
	}
	var se *msqlite.Error
	if !errors.As(err, &se) {
		if errors.Is(err, sql.ErrConnDone) {
			return errclass.Connection
		}
		return errclass.Other
	}
	code := se.Code()
	if code == sqlite3.SQLITE_BUSY_SNAPSHOT {
		return errclass.Serialization
	}
	switch code & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return errclass.LockTimeout
	case sqlite3.SQLITE_CONSTRAINT:
		return errclass.Constraint
	case sqlite3.SQLITE_INTERRUPT:
		return errclass.Canceled
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOTADB:
		return errclass.Connection
	case sqlite3.SQLITE_AUTH:
		return errclass.Auth
	case sqlite3.SQLITE_PERM, sqlite3.SQLITE_READONLY:
		return errclass.Permission
	}
	return errclass.Other
}

// Package dialect is the boundary between workloads and database servers.
//
// A workload never branches on a database's name: it writes SQL with '?'
// placeholders and asks the Dialect for everything that differs (column types,
// bulk load, table existence, error classification). One package per database
// implements Dialect; dialect/all is the one list of them.
package dialect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/exitcode"
)

// ErrBadTarget wraps every target-parsing problem (the CLI maps it to exit code 2).
var ErrBadTarget = exitcode.New("invalid target", exitcode.Usage)

// Capabilities states what a database can and cannot do, so that workloads and
// reports can explain figures instead of guessing.
type Capabilities struct {
	// SingleWriter is true when only one transaction can write at a time
	// (SQLite): write throughput does not grow with virtual users.
	SingleWriter bool `json:"single_writer"`
	// Embedded is true when the database runs inside the rightsize process, so
	// client CPU includes the database's own work.
	Embedded bool `json:"embedded"`
	// BlockingIO is true when each connection does blocking socket I/O (see
	// package blockio): a virtual user then holds an OS thread, and the Go
	// runtime needs a processor (GOMAXPROCS) per virtual user, or a reply
	// waits for a free one (measured: p95 three times higher at 4 VUs on 2).
	BlockingIO bool `json:"blocking_io"`
	// BulkLoad names the fast path prepare uses (e.g. "COPY", "multi-row INSERT").
	BulkLoad string `json:"bulk_load"`
	// Notes are sentences a report may show next to the results.
	Notes []string `json:"notes,omitempty"`
}

// Location is a parsed, validated database location. It is safe to print: String
// returns the URL with any password removed. The secret parts live in Conn,
// which only the owning dialect reads.
type Location struct {
	Dialect  string // dialect name, e.g. "postgres"
	Redacted string // URL without password
	Database string // database (schema) name; file path for SQLite
	// Identity is what the target resolves to, the same for every URL
	// that names one database: for a server the host (HostKey: its
	// loopback names as one), the port with its default applied, the
	// database and the user; for a file its absolute path. It holds no
	// secret. Two targets of one identity would share tables.
	Identity string
	Conn     any // dialect-private connection settings (may hold secrets; never print)
	// Local is where the server listens when the target says it is on this
	// host: a loopback address ("tcp", "127.0.0.1:5432") or a Unix-domain
	// socket ("unix", its path). It is empty for a server elsewhere (or
	// named by another of this host's names) and for a file. The host
	// figures find the server's process, and so its cgroup, from it.
	Local Endpoint
	// ConnectTimeout bounds one connection attempt to a server: Connect,
	// ConnectStore and EnsureDatabase's connection each give up after it with
	// an error that says so and wraps context.DeadlineExceeded. Zero means
	// DefaultConnectTimeout. A timeout in the URL (PostgreSQL's
	// connect_timeout, MySQL's timeout) still applies within it. A database
	// in a file (SQLite) ignores it: opening one waits for no server, and
	// waiting for its locks is the busy timeout's.
	ConnectTimeout time.Duration
}

// Endpoint is a network address: Network "tcp" or "unix", Address
// "host:port" or a socket's path; zero when unknown.
type Endpoint struct{ Network, Address string }

// LocalTCP is the endpoint of host:port when host is a loopback name
// (HostKey), else zero.
func LocalTCP(host string, port int) Endpoint {
	if HostKey(host) != "loopback" {
		return Endpoint{}
	}
	return Endpoint{"tcp", net.JoinHostPort(host, strconv.Itoa(port))}
}

// DefaultConnectTimeout is a Target's connect timeout when it sets none.
const DefaultConnectTimeout = 10 * time.Second

// ConnOf is t's Conn as the dialect called name parsed it (*C: its
// driver's settings); an error when t is nil or was parsed by another
// dialect.
func ConnOf[C any](t *Location, name string) (*C, error) {
	if t == nil {
		return nil, errors.New(name + ": nil target")
	}
	c, ok := t.Conn.(*C)
	if !ok || c == nil {
		return nil, fmt.Errorf("%s: target %s was not parsed by the %s dialect", name, t.Redacted, name)
	}
	return c, nil
}

// String returns the redacted URL.
func (t *Location) String() string { return t.Redacted }

// ConnectWithin returns ctx bounded by the target's connect timeout (see
// ConnectTimeout), for one connection attempt, and that timeout.
func (t *Location) ConnectWithin(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	d := t.ConnectTimeout
	if d <= 0 {
		d = DefaultConnectTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, d
}

// ConnInfo describes an open connection, recorded in results.
type ConnInfo struct {
	// ServerProduct is the product the connection reached, as the server
	// names itself: "PostgreSQL", "MariaDB", "MySQL", "SQLite".
	ServerProduct string `json:"server_product"`
	// ServerVersion is the server's version as it reports it, its number
	// first ("15.20 (Debian 15.20-0+deb12u1)", "10.11.19-MariaDB-0+deb12u1",
	// "3.46.1"); the product is ServerProduct.
	ServerVersion string `json:"server_version"`
	Encrypted     bool   `json:"encrypted"`     // TLS in use on this connection
	TLSVersion    string `json:"tls,omitempty"` // e.g. "TLS 1.3"
}

// RowSource feeds rows to a bulk load. Values may reuse its slice between calls.
type RowSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

// Dialect is one database family. Implementations are stateless and safe for
// concurrent use.
type Dialect interface {
	// Name is the dialect's name as shown to users ("sqlite", "postgres", "mysql").
	Name() string
	// Schemes lists the URL schemes this dialect accepts (without "://" or ":").
	Schemes() []string
	// ParseTarget validates raw (a URL) without connecting. getenv supplies the
	// environment (libpq's PG* variables for PostgreSQL). Errors wrap ErrBadTarget
	// and never contain a password.
	ParseTarget(raw string, getenv func(string) string) (*Location, error)
	Capabilities() Capabilities
	// EnsureDatabase creates the target's database (schema, or the SQLite file's
	// directory) if it does not exist and reports whether it did.
	EnsureDatabase(ctx context.Context, t *Location) (created bool, err error)
	// Connect opens one connection (one per virtual user).
	Connect(ctx context.Context, t *Location) (Conn, error)
	// Classify maps an error returned by this dialect's Conn or Stmt to a class,
	// from error codes only.
	Classify(err error) errclass.Class
	// AutoIncrementPK returns the column definition of an integer primary key
	// that the database numbers itself, e.g. "id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY".
	AutoIncrementPK(col string) string
	// TableOptions is appended after a CREATE TABLE's closing parenthesis
	// (e.g. " ENGINE=InnoDB"); empty for most databases.
	TableOptions() string
	// ForUpdate is the clause that locks the rows a SELECT reads for the rest
	// of the transaction (" FOR UPDATE"), or "" where the database has no row
	// locks (SQLite: its writers hold the database lock).
	ForUpdate() string
}

// Conn is one database connection, used by one goroutine at a time. SQL text
// uses '?' placeholders; the Conn rewrites them for its database.
type Conn interface {
	// Exec runs a statement and returns the rows it affected.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query and scans its first row into dest (at least
	// the destinations Rows.Scan takes); it returns ErrNoRows when there is
	// none.
	QueryRow(ctx context.Context, query string, args []any, dest ...any) error
	// Prepare returns a statement prepared on this connection (server-side where
	// the database supports it).
	Prepare(ctx context.Context, query string) (Stmt, error)
	Begin(ctx context.Context) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	// TableExists reports whether a table of that name exists in the target database.
	TableExists(ctx context.Context, name string) (bool, error)
	// Load inserts every row of src into table (columns cols) by the dialect's
	// fastest path and returns the number of rows loaded.
	Load(ctx context.Context, table string, cols []string, src RowSource) (int64, error)
	Info() ConnInfo
	Close() error
}

// Stmt is a prepared statement bound to one Conn, used by one goroutine at a
// time.
type Stmt interface {
	// Exec runs the statement and returns the rows it affected.
	Exec(ctx context.Context, args ...any) (int64, error)
	// Drain runs a query, reads every row without decoding more than needed,
	// and returns the number of rows (as sysbench does with result sets).
	Drain(ctx context.Context, args ...any) (int, error)
	// Query runs the statement and returns its rows. The Rows belongs to the
	// Stmt and is reused: it is valid until the next Query, QueryRow, Exec,
	// Drain or Close on the same Stmt, which closes it if it is still open.
	// A statement that fails returns its error from Query or, depending on
	// the database, from Rows.Err and Rows.Close.
	Query(ctx context.Context, args ...any) (Rows, error)
	// QueryRow runs the statement and scans its first row into dest (as
	// Rows.Scan does); it returns ErrNoRows when there is none. The rest of
	// the result is discarded.
	QueryRow(ctx context.Context, args []any, dest ...any) error
	Close() error
}

// Rows is a result read row by row from Stmt.Query. Not safe for concurrent
// use.
//
//	rows, err := st.Query(ctx, lo, hi)
//	if err != nil { ... }
//	for rows.Next() {
//		if err := rows.Scan(&id, &name); err != nil { rows.Close(); ... }
//	}
//	if err := rows.Close(); err != nil { ... } // Close returns Err
type Rows interface {
	// Next advances to the next row; it returns false when there is none
	// left or reading failed (see Err).
	Next() bool
	// Scan copies the current row's columns into dest, which may hold
	// *int64, *int, *int32, *float64, *string, *[]byte or a Scanner. A
	// *[]byte gets a copy, stored in the slice's own capacity when it is
	// large enough. A NULL scans as the zero value (nil for *[]byte). Numbers in text form
	// (DECIMAL, NUMERIC) parse into *float64 or copy into *string; integers
	// go into any numeric dest (a float into an integer dest only when it
	// has no fraction); a TIMESTAMP without fractional seconds scans into
	// *string as "2006-01-02 15:04:05". The number of dest must equal the
	// number of columns.
	//
	// A Scanner (a type with a method Scan(src any) error, as database/sql's
	// Scanner) is handed the column's value as database/sql hands one to a
	// Scanner: nil for NULL, else an int64, float64, bool, []byte, string or
	// time.Time. Which of them a column type gives depends on the database
	// (SQLite has no BOOLEAN; a DECIMAL may come as text); a []byte is valid
	// only during the call. It costs more than the other destinations, for
	// columns that need it (a NULL told from a zero, a time).
	//
	// Arguments to an interface method escape: a hot loop that builds its
	// dest list once (dest := []any{&v.id, &v.name}) and calls Scan(dest...)
	// allocates nothing for it.
	Scan(dest ...any) error
	// Err returns the error that ended Next, if any.
	Err() error
	// Close ends the result (reading and discarding what is left) and
	// returns Err. It is safe to call twice, and must be called before the
	// connection is used again.
	Close() error
}

// ErrNoRows is returned by Conn.QueryRow and Stmt.QueryRow when the query
// returned no row.
var ErrNoRows = errors.New("no rows in result set")

// Analyzer is implemented by a Dialect whose database should bring a table's
// planner statistics up to date after a bulk load, before a run measures
// anything. On PostgreSQL a freshly loaded table also has no visibility map
// and no hint bits: autovacuum's first pass over it (a full read and write of
// every page) would otherwise run during the warm-up and the run. pgbench's
// initialisation vacuums for the same reason. Run it after every loader has
// committed: a page is marked all-visible only when no open transaction
// might not see its rows.
type Analyzer interface {
	// AnalyzeSQL returns the statement that does so for table, to run
	// outside a transaction.
	AnalyzeSQL(table string) string
}

// Columner is implemented by a Stmt that can name the columns of its
// result before it runs (PostgreSQL's statement description): a workload
// that stores a row's values by column name (pgbench's \gset) asks it.
type Columner interface {
	// Columns returns the result's column names, in order; none for a
	// statement that returns no rows.
	Columns() []string
}

// WriteBeginner is implemented by a Conn whose database must be told, when a
// transaction starts, that it will write. SQLite is the case: a plain BEGIN
// starts a read transaction, and when it later tries to write while another
// connection has written meanwhile it fails at once with SQLITE_BUSY instead of
// waiting; BEGIN IMMEDIATE takes the single write lock up front and waits for
// it (busy_timeout). Workloads call BeginWrite instead of Begin for
// transactions that may write, when the Conn implements it; read-only
// transactions keep using Begin so that readers still run in parallel.
type WriteBeginner interface {
	BeginWrite(ctx context.Context) error
}

// ClientWaiter is implemented by a Dialect whose database has no server to
// ask what its sessions wait on (SQLite: a file, its lock taken by the
// client): its connections to a location count it themselves, in one
// ClientWaits per database shared by them all (package serverstats reads
// it).
type ClientWaiter interface {
	ClientWaits(t *Location) *ClientWaits
}

// ClientWaits are what a database's connections in this process are doing,
// counted by them; safe for concurrent use, its methods nil-safe.
type ClientWaits struct {
	// InCall: connections inside a call (a statement, BEGIN, COMMIT; a
	// query until its rows end) now; Waiting: of them, waiting for the
	// database's write lock now.
	InCall, Waiting atomic.Int64
	// WaitNs is the time spent waiting for the write lock in all, in
	// nanoseconds; Waits how many times it was waited for (taken).
	WaitNs, Waits atomic.Int64
}

// Enter counts a call's start, Leave its end.
func (w *ClientWaits) Enter() {
	if w != nil {
		w.InCall.Add(1)
	}
}

// Leave counts a call's end.
func (w *ClientWaits) Leave() {
	if w != nil {
		w.InCall.Add(-1)
	}
}

// Store is implemented by a Dialect whose database can keep rightsize's own
// records (package history's run catalog): a few tables that several
// rightsize processes read and write at the same time. Their SQL is the same
// on every Store (ON CONFLICT upserts, substr, LIMIT, '?' placeholders);
// what differs is here.
type Store interface {
	// ConnectStore opens one connection to t for such a store. A database
	// that lives in a file is created, with its directory, when missing; a
	// server's database must exist. The connection waits for locks other
	// connections hold (SQLite: up to StoreLockWait); when it is a
	// WriteBeginner, every transaction that writes must start with
	// BeginWrite.
	ConnectStore(ctx context.Context, t *Location) (Conn, error)
	// StoreTypes are the column types of the values a store keeps.
	StoreTypes() StoreTypes
	// StoreTime is t as a StoreTypes.Time column takes it, in UTC; it
	// keeps microseconds. Read back into a Scanner, such a column is a
	// time.Time or its RFC 3339 text; its values sort in time order.
	StoreTime(t time.Time) any
	// StoreLock is a statement with one '?', an integer key: run first in
	// a transaction, it waits until every other transaction that ran it
	// with the same key has ended (what creating tables needs). It is ""
	// where BeginWrite already makes writers wait for each other.
	StoreLock() string
}

// StoreLockWait is how long a Store's connection waits for a lock another
// holds, where the database does not queue lock waits itself (SQLite).
const StoreLockWait = 10 * time.Second

// StoreTypes are a Store's column types.
type StoreTypes struct {
	Time  string // an instant, as StoreTime writes it
	Float string // a float64, or NULL
	Bool  string
	Blob  string // bytes
}

// WithContextErr adds the context's error to err's chain when the context
// has ended, so that a classifier reports Canceled or Timeout rather than the
// database's own reaction to the cancellation (PostgreSQL's query_canceled,
// SQLite's SQLITE_INTERRUPT). It returns nil for a nil err.
func WithContextErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%w)", err, cerr)
	}
	return err
}

// StmtQueryRow runs st's Query with args, scans the first row into dest and
// closes the rows; it returns ErrNoRows when there is none. Dialects
// implement Stmt.QueryRow with it.
func StmtQueryRow(ctx context.Context, st Stmt, args []any, dest ...any) error {
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return err
	}
	return scanOne(rows, dest...)
}

// scanOne scans the first row of rows into dest and closes rows; it returns
// ErrNoRows when there is none.
func scanOne(rows Rows, dest ...any) error {
	if !rows.Next() {
		if err := rows.Close(); err != nil {
			return err
		}
		return ErrNoRows
	}
	err := rows.Scan(dest...)
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

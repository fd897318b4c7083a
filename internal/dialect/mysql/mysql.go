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
	"sync/atomic"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
)

// Dialect is the MySQL / MariaDB dialect. The zero value is ready to use; it
// holds no state and is safe for concurrent use.
type Dialect struct{}

var _ dialect.Dialect = Dialect{}

// Name returns "mysql".
func (Dialect) Name() string { return "mysql" }

// Schemes returns "mysql" and "mariadb".
func (Dialect) Schemes() []string { return []string{"mysql", "mariadb"} }

// Capabilities reports LOAD DATA LOCAL INFILE as the bulk-load path
// (multi-row INSERT where the server has local_infile off; see Load).
func (Dialect) Capabilities() dialect.Capabilities {
	return dialect.Capabilities{BulkLoad: "LOAD DATA LOCAL INFILE (multi-row INSERT if local_infile is off)", BlockingIO: true}
}

// AutoIncrementPK returns an AUTO_INCREMENT integer primary key.
func (Dialect) AutoIncrementPK(col string) string {
	return col + " INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY"
}

// TableOptions selects InnoDB, as sysbench does.
func (Dialect) TableOptions() string { return " ENGINE=InnoDB" }

// ForUpdate returns " FOR UPDATE" (InnoDB row locks).
func (Dialect) ForUpdate() string { return " FOR UPDATE" }

var _ dialect.Analyzer = Dialect{}

// AnalyzeSQL implements dialect.Analyzer: InnoDB samples the table's index
// pages for persistent statistics (it would otherwise recompute them in the
// background once 10 % of the rows changed).
func (Dialect) AnalyzeSQL(table string) string { return "ANALYZE TABLE " + table }

// open returns a *sql.DB holding at most one connection, which dials as
// Connect does.
func open(cfg *mysql.Config) (*sql.DB, error) {
	cfg = cfg.Clone()
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return nc, nil
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %s", dialect.Scrub(err.Error(), cfg.Passwd))
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// serverSession opens a session to t's server that names no database
// (cfg is t's configuration), within t's connect timeout.
func serverSession(ctx context.Context, t *dialect.Location, cfg *mysql.Config) (*sql.DB, error) {
	admin := cfg.Clone()
	admin.DBName = ""
	db, err := open(admin)
	if err != nil {
		return nil, err
	}
	cctx, cancel, timeout := t.ConnectWithin(ctx)
	defer cancel()
	if err := db.PingContext(cctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("mysql: connect: %w", connectErr(ctx, cctx, dialect.ScrubError(err, cfg.Passwd), cfg, timeout))
	}
	return db, nil
}

// EnsureDatabase creates the target's database over a connection that names
// no database, if the user cannot already see it: a database that exists
// gets no statement at all (no DDL, and no "create database: access denied"
// for a user with privileges on that database only).
func (Dialect) EnsureDatabase(ctx context.Context, t *dialect.Location) (bool, error) {
	cfg, err := configOf(t)
	if err != nil {
		return false, err
	}
	if cfg.DBName == "" {
		return false, nil
	}
	db, err := serverSession(ctx, t, cfg)
	if err != nil {
		return false, err
	}
	defer db.Close()
	var found int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", cfg.DBName).Scan(&found); err != nil {
		return false, fmt.Errorf("mysql: look up database: %w", dialect.ScrubError(err, cfg.Passwd))
	}
	if found > 0 {
		return false, nil
	}
	res, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(cfg.DBName))
	if err != nil {
		return false, fmt.Errorf("mysql: create database: %w", dialect.ScrubError(err, cfg.Passwd))
	}
	// One row affected when created, zero (and a warning) when it existed.
	n, err := res.RowsAffected()
	return err == nil && n > 0, nil
}

// Connect opens one server session: a driver connection, dialled through a
// DialFunc that waits for the server's greeting (see dial) and keeps its
// network connection for cancellation (the driver still negotiates TLS over
// it), and handed to a private database/sql pool for the connection's
// non-hot-path methods. The target's connect timeout bounds it all.
func (Dialect) Connect(ctx context.Context, t *dialect.Location) (dialect.Conn, error) {
	cfg, err := configOf(t)
	if err != nil {
		return nil, err
	}
	cctx, cancel, timeout := t.ConnectWithin(ctx)
	defer cancel()
	c := &conn{cfg: cfg, stmts: map[string]*sql.Stmt{}}
	dcfg := cfg.Clone()
	dcfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c.nc = nc
		return nc, nil
	}
	connector, err := mysql.NewConnector(dcfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %s", dialect.Scrub(err.Error(), cfg.Passwd))
	}
	dc, err := connector.Connect(cctx)
	if err != nil {
		return nil, fmt.Errorf("mysql: connect: %w", connectErr(ctx, cctx, dialect.ScrubError(err, cfg.Passwd), cfg, timeout))
	}
	var ok1, ok2 bool
	c.prep, ok1 = dc.(driver.ConnPrepareContext)
	c.exec, ok2 = dc.(driver.ExecerContext)
	if !ok1 || !ok2 || c.nc == nil {
		dc.Close()
		return nil, fmt.Errorf("mysql: connect: unexpected driver connection %T", dc)
	}
	c.dc = dc
	c.db = sql.OpenDB(&session{dc: dc})
	c.db.SetMaxOpenConns(1)
	c.db.SetMaxIdleConns(1)
	c.db.SetConnMaxLifetime(0)
	c.db.SetConnMaxIdleTime(0)
	if c.sc, err = c.db.Conn(cctx); err != nil {
		c.db.Close()
		dc.Close()
		return nil, fmt.Errorf("mysql: connect: %w", connectErr(ctx, cctx, dialect.ScrubError(err, cfg.Passwd), cfg, timeout))
	}
	if err := c.readInfo(cctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("mysql: connect: %w", connectErr(ctx, cctx, err, cfg, timeout))
	}
	return c, nil
}

// session is a driver.Connector that hands database/sql one existing driver
// connection, once: a lost session is never silently replaced.
type session struct {
	dc     driver.Conn
	handed atomic.Bool
}

// errSessionLost is what database/sql gets if it asks for a second connection.
var errSessionLost = fmt.Errorf("mysql: session lost: %w", mysql.ErrInvalidConn)

func (s *session) Connect(context.Context) (driver.Conn, error) {
	if s.handed.Swap(true) {
		return nil, errSessionLost
	}
	return s.dc, nil
}

func (s *session) Driver() driver.Driver { return mysql.MySQLDriver{} }

// Classify maps an error to its class from MySQL / MariaDB error numbers and
// driver error values.
func (Dialect) Classify(err error) errclass.Class {
	if err == nil {
		return errclass.None
	}
	if errors.Is(err, context.Canceled) {
		return errclass.Canceled
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1020: // ER_CHECKREAD: MariaDB snapshot isolation write conflict
			return errclass.Serialization
		case 1213: // ER_LOCK_DEADLOCK
			return errclass.Deadlock
		case 1205, 3572: // ER_LOCK_WAIT_TIMEOUT, ER_LOCK_NOWAIT
			return errclass.LockTimeout
		case 1062, 1452, 1451, 1048, 3819, 1216, 1217, 4025: // duplicate, FK, NOT NULL, CHECK (MySQL 3819, MariaDB 4025)
			return errclass.Constraint
		case 1317, 3024, 1969: // query interrupted, max_execution_time, MariaDB max_statement_time
			return errclass.Timeout
		case 2006, 2013, 1053, 1927, 1040, 4031: // gone away, lost, shutdown, killed, too many, idle timeout
			return errclass.Connection
		case 1045, 1698: // ER_ACCESS_DENIED_ERROR (user or password), ER_ACCESS_DENIED_NO_PASSWORD_ERROR
			return errclass.Auth
		case 1044, 1142, 1143, 1227: // access denied to the database, a table, a column; a privilege needed
			return errclass.Permission
		case 1049, 1146: // ER_BAD_DB_ERROR (no such database), ER_NO_SUCH_TABLE
			return errclass.Missing
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errclass.Timeout
	}
	var netErr net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn),
		errors.Is(err, mysql.ErrInvalidConn),
		errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		errors.As(err, &netErr):
		return errclass.Connection
	}
	return errclass.Generic(err)
}

// quoteIdent quotes a possibly database-qualified name with backticks.
func quoteIdent(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
	}
	return strings.Join(parts, ".")
}

// Package mysql is the MySQL and MariaDB dialect, built on go-sql-driver/mysql.
//
// Each dialect.Conn is one driver connection, so a virtual user has exactly
// one server session (its BEGIN, COMMIT and prepared statements all go to it),
// and a lost session surfaces as a Connection error instead of being silently
// replaced mid-transaction. The hot path (prepared statements, BEGIN, COMMIT,
// ROLLBACK) calls the driver directly, without database/sql and without
// handing each statement's context to the driver's watcher goroutine;
// cancellation closes the network connection instead. The other methods go
// through a private *sql.DB that holds only that connection, pinned with
// *sql.Conn, and can never open another.
// Statements are prepared on the server (interpolateParams is always off), as
// sysbench does by default.
//
// Targets are URLs: mysql://user:password@host:port/database?param=value,
// where params are go-sql-driver/mysql DSN parameters; the scheme mariadb://
// is accepted too. TLS defaults to the driver's "preferred" mode.
//
// The dialect is not a dialect.Store, so a MySQL database cannot hold the
// history catalog: the catalog's SQL upserts with ON CONFLICT, which MySQL
// spells INSERT ... ON DUPLICATE KEY UPDATE, and keys on TEXT columns, which
// MySQL cannot index without a prefix length.
package mysql

// Package mysql is the MySQL and MariaDB dialect, built on go-sql-driver/mysql
// through database/sql.
//
// Each dialect.Conn owns a private *sql.DB limited to one connection and pins
// that connection with *sql.Conn, so a virtual user has exactly one server
// session (its BEGIN, COMMIT and prepared statements all go to it), no pool
// lock is shared between virtual users, and a lost session surfaces as a
// Connection error instead of being silently replaced mid-transaction.
// Statements are prepared on the server (interpolateParams is always off), as
// sysbench does by default.
//
// Targets are URLs: mysql://user:password@host:port/database?param=value,
// where params are go-sql-driver/mysql DSN parameters; the scheme mariadb://
// is accepted too. TLS defaults to the driver's "preferred" mode.
package mysql

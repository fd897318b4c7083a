// Package capturedb reads, for rightsize capture, what a database server
// counts about its own statements: two snapshots of its statement
// statistics (PostgreSQL's pg_stat_statements, MySQL's and MariaDB's
// performance_schema digest summary) and transaction counters a window
// apart, and the catalog facts (columns, keys) that bind a statement's
// parameters. It only reads, on one connection through the dialect
// interface; every statement it runs carries capture.Marker. It refuses,
// with the setting or the SQL that would let it, a server whose statistics
// are off or a user who may not read them (ErrNotReady).
//
// It is the one place that knows these system views: they differ between
// the servers as SQL does not, so each server has its file here rather than
// a method of every dialect.
package capturedb

// Package stmtstats is the one reader of what a database server counts
// about its own statements: PostgreSQL's pg_stat_statements and MySQL's
// and MariaDB's performance_schema digest summary. rightsize capture reads
// two snapshots a window apart and builds a workload from their
// difference; the server statistics (serverstats) name the statements
// that took the most of a step's time. Both read through a Reader, on one
// connection of theirs through the dialect interface, and diff with
// capture.Diff (the snapshot is pure data, capture's model reads it).
//
// It is the one place that knows these system views (they differ between
// the servers as SQL does not, so each server has its file here) and that
// decides what a missing extension, setting or privilege means: Open
// returns a *NotReady that says which (its Kind) and what would let the
// statistics be read (its Reason, the SQL or setting to give).
package stmtstats

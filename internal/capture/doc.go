// Package capture turns what a database server counted about its own
// statements over a window — two snapshots of its statement statistics
// (pg_stat_statements; performance_schema's digest summary) and of its
// transaction counters — plus a few facts of its catalog (tables, columns,
// keys) into a workload file a person reads and edits: the statements that
// make up at least 99 % of the calls and of the time, their shares as the
// mix, statements that always ran together as one transaction, each
// normalized parameter ($1, ?) bound to what the statement compares it
// with, and 1x, the observed rate (baseline_rate).
//
// It is pure: it reads values and returns text. Reading the server is
// capture/source's; what it reads and what it guesses are in
// docs/capture.md. It copies no literal value of production into the file:
// a literal left in a statement's text becomes a parameter, and every
// value is drawn at run time (sampled from the target's own columns).
package capture

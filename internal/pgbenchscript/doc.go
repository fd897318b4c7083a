// Package pgbenchscript reads scripts written in pgbench's language (the
// files pgbench's -f takes, and its built-in scripts) and evaluates them,
// so that rightsize can run what pgbench users already have.
//
// A Program holds the scripts of one run and their variables: every
// variable a script names is compiled to a slot (an index), so that a
// virtual user's State keeps its variables in a slice and evaluates
// expressions without a map lookup or an allocation per event. Parsing
// returns every problem it finds, each naming the script's file and line
// as pgbench does ("bench.sql:3: ..."), wrapped in ErrInvalid.
//
// Supported: SQL commands with :variable references (sent as parameters of
// a prepared statement, as pgbench -M prepared does), \set with pgbench's
// expression grammar, operators and functions, \sleep, \gset and \aset,
// \if/\elif/\else/\endif, and the built-in scripts tpcb-like, simple-update
// and select-only. \shell, \setshell and the pipeline commands are refused
// with a message that says so. The semantics (integer and double
// arithmetic, NULL propagation, coercions, hash and permute) are pgbench's;
// the code is this package's own.
//
// The package is pure: no database, no clock, no I/O beyond what a caller
// hands it.
package pgbenchscript

// Package sqltext is the one reader of SQL text in rightsize: a lexer
// that knows each dialect's literals, quoted identifiers, comments and
// placeholders (Lex, Scanner), what a statement is and which tables it
// writes (Classify), how many columns a query returns (Columns), and
// placeholder rendering (Render for :name references, Dollars for '?').
// The PostgreSQL dialect's placeholder rewriting, the workload files'
// checks, capture and pgbench scripts all read SQL through it, so that a
// ':name' or a '?' inside a string or a comment means the same to each.
//
// It is a scanner, not a parser: it knows tokens and the few shapes of
// INSERT, UPDATE, DELETE, MERGE and REPLACE that name their table; its
// limits are documented in docs/workload-files.md. It is pure: functions
// of a string, safe for concurrent use.
package sqltext

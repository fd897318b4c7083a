// Package workfile reads and checks a workload file: a YAML description of
// the tables a workload needs, its transactions (their statements, weights
// and pauses) and the parameters its statements take, so that a user's own
// workload runs as a built-in one does (docs/workload-files.md is the
// format's reference). Its Spec is the one value of a data workload:
// pgbench's scripts compile into one too (FromScripts), each transaction's
// steps being Actions that one interpreter (workload/custom) runs.
//
// It exists so that everything about a file is decided before anything
// runs: Parse returns a Spec or an error listing every problem with its
// line (wrapping ErrInvalid: exit 2 at the CLI's edge), and the Spec holds
// what a runner needs in ready form: each statement's SQL per dialect with
// its parameters as ordered slots (Form.Render writes $1..$n or ? once, to
// prepare once per connection), what each statement writes (for the safety
// rule about existing tables, CheckWrites), the transaction mix (Pick), and
// generators that draw parameters (Gen) and rows (Rows) from a
// datagen.Source without allocating.
//
// It is pure: no database, no files, no clock (the runner passes the time),
// no process state, and no workload or runner type, so that the runner and
// the table routine can be built on it without it knowing them.
//
// A Spec is immutable after Parse and safe for concurrent use; a Gen or a
// Rows belongs to one goroutine.
package workfile

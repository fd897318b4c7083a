// Package foreignflag is the table of other benchmark tools' flags (sysbench,
// fio, go-tpc, pgbench, k6) that rightsize does not take, as data, and the
// hints the command line prints under "unknown flag": what rightsize calls
// the flag, on which command, or why it has none. It asks the command tree
// (cobra) which flags exist; the CLI only calls Explain, and CommandOrder
// for a command line in sysbench's order (the workload first).
package foreignflag

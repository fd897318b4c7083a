// Package serverstats samples a database server's own view of a run: on
// one monitoring connection per instance, apart from the virtual users, it
// reads what the server's sessions are doing (PostgreSQL's
// pg_stat_activity, every 100 ms by default) and, at each report interval's
// end, the server's counters (pg_stat_database, the checkpointer's and
// WAL's statistics). A Step cuts them by the runner's report intervals, so
// that a step's figures (result.ServerStats) cover its measured window
// only, the warm-up left out.
//
// Cost: one cheap query per sampling interval (a GROUP BY over
// pg_stat_activity, a few rows) and one of the counters per report
// interval, on one connection per instance. Measured (issue 32, part 1's
// bound: about 1 % of the server's CPU at the default interval) on the
// shared PostgreSQL on a 2-CPU host, oltp_point_select at 4 threads, 100 ms:
// the monitoring connection's backend used 2.0 to 3.0 ms of CPU per second
// (about 0.25 ms per sample; 0.2 to 0.3 % of one CPU), 0.38 to 0.66 % of the
// server's own CPU (median 0.55 %, five runs of 10 to 18 s, read from its
// /proc/PID/stat against the postmaster's process tree over the same
// window), while the server used about 20 to 27 µs of CPU per transaction.
// With the sampler on and off, alternating (four 15 s runs each), the
// server's CPU per transaction had medians of 25.1 µs (on) and 25.7 µs
// (off): the difference is within the run-to-run spread of a host other
// work kept 99 % busy, so the direct measurement of the monitoring
// backend is the figure to quote. Its cost grows with the sessions
// pg_stat_activity lists, not with the load. A server that cannot be read,
// or a user that may not see other users' sessions, costs the run nothing
// but a note (result.ServerStats.Note) that says what is missing and how
// to grant it; the run goes on.
//
// It only reads, through the dialect interface (dialect.Conn), and knows
// no workload, run or report: the session tells a Step each interval's
// phase and attaches what Stop returns; analysis classes the wait events
// (analysis.WaitClass).
//
// TODO(issue 32, part 2): MySQL and MariaDB (performance_schema's wait
// events when it is on, SHOW GLOBAL STATUS deltas otherwise: row lock
// waits, log waits, buffer pool reads vs requests, data fsyncs, threads
// running; information_schema.INNODB_METRICS where enabled) and SQLite
// (the virtual users' time waiting on the database lock, counted by the
// client). Until then their instances get no server figures.
// TODO(issue 32, part 1): pg_stat_io (PostgreSQL 16 and later) and, where
// pg_stat_statements is installed, the statements that took the most
// server time per step.
package serverstats

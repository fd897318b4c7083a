// Package serverstats samples a database server's own view of a run: on
// one monitoring connection per instance, apart from the virtual users, it
// reads what the server's sessions are doing (PostgreSQL's
// pg_stat_activity, MySQL's and MariaDB's threads; every 100 ms by default)
// and, at each report interval's end, the server's counters
// (pg_stat_database, the checkpointer's and WAL's statistics; SHOW GLOBAL
// STATUS); SQLite's lock waits are counted by the client. A Step cuts them by the runner's report intervals, so
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
// MySQL and MariaDB (mysql.go): each sample reads the run schema's
// foreground threads, the monitor's own left out, one row each, from
// performance_schema.threads when performance_schema is on (it takes no
// process-list mutex) and INFORMATION_SCHEMA.PROCESSLIST otherwise, both
// joined with INFORMATION_SCHEMA.INNODB_TRX. A thread between statements
// (command Sleep) is not active. A row lock wait is named Lock:row from
// INNODB_TRX.trx_state = 'LOCK WAIT', in every mode: it is the one sign
// both products give (MySQL 8's data_lock_waits is not MariaDB's
// INNODB_LOCK_WAITS), and on MariaDB 10.11 a waiter's wait event is
// wait/io/table/sql/handler and its state "Updating", exactly as a thread
// doing the update's work (seen with 6 clients on 3 rows). InnoDB
// refreshes INNODB_TRX's copy at most every 100 ms, so a wait is seen a
// sample late at worst; the tests check the sampled waiters against
// Innodb_row_lock_time. A metadata or table lock is named from the state.
// Then, when performance_schema's events_waits_current consumer is on
// (off by default in both products, as are InnoDB's wait instruments;
// the sampler does not change the server's settings, a note says how),
// the thread's innermost wait not ended (END_EVENT_ID IS NULL) is named
// after its instrument (wait/io/file:innodb/innodb_log_file), or CPU when
// it has none; without wait events, the thread's state (State:Updating),
// which analysis.WaitClass counts as CPU unless it names a lock, a commit
// or the client. Counters: SHOW GLOBAL STATUS at each report interval's
// end, as "status.<name>" deltas (Com_commit, Com_rollback,
// Innodb_row_lock_waits and _time, Innodb_log_waits, Innodb_buffer_pool_
// reads and read_requests, Innodb_data_fsyncs, Innodb_os_log_written,
// Innodb_deadlocks, Questions), Threads_running (less the monitor) and
// Innodb_row_lock_current_waits as their means. Without PROCESS no
// session is sampled (another user's threads and INNODB_TRX are not
// visible): a note gives the GRANT and the counters are still read.
//
// SQLite (client.go) has no server to ask: its connections in this
// process (dialect.ClientWaiter) count the calls in progress and the time
// in BEGIN IMMEDIATE, which in WAL mode waits for the one write lock (the
// driver, modernc.org/sqlite, installs its own busy handler and offers no
// hook). A sample counts the virtual users in a call: those in BEGIN
// IMMEDIATE as Lock:database, the rest as on CPU, so that average active
// sessions read as for a server; "client.lock_waits" and
// "client.lock_wait_ms" count the lock taken and the time it took. Writes
// outside a transaction wait inside their statement and are counted on
// CPU.
//
// Statements (statements.go): where the server counts them per
// normalized statement, the step's top statements by execution time,
// from the counters read at the step's start, at each report interval's
// end before the window (the last of them is the window's start) and at
// the step's end by stmtstats, their deltas taken by capture.Diff.
// PostgreSQL: pg_stat_statements when the extension is installed in the
// run's database (a row per queryid, its users added up; the monitor's
// queries, which all read a pg_stat view, left out); installed but not
// loaded, a note says to add it to shared_preload_libraries. MySQL: the
// digest summary of the schema and, as its digests leave out statements
// executed as prepared statements by the binary protocol (the virtual
// users'), its prepared_statements_instances of the schema's threads,
// added up by text (stmtstats.Options.Prepared). MariaDB 10.11 counts those in neither (seen: 0 of 77,402
// executions in a window): when most of the window's Com_stmt_execute are
// missing, no statement is named (the BEGINs and COMMITs that are left
// would read as the top statements) and a note says why.
//
// Beyond SHOW GLOBAL STATUS, InnoDB's lock wait timeouts and undo history
// length come from information_schema.INNODB_METRICS where enabled; on
// PostgreSQL 16 and later the client backends' own I/O from pg_stat_io
// (written from the documented view; this host has only PostgreSQL 15).
//
// MySQL/MariaDB sessions are sampled only when asked (Options.MySQLSessions,
// --server-stats given): reading INNODB_TRX every 100 ms held up InnoDB's
// lock waits in a deadlock storm on MariaDB 10.11 (the run's transactions
// still waited 5 s after it ended, with a lock wait timeout of 1 s). By
// default only their status counters are read.
package serverstats

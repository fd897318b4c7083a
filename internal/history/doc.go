// Package history is the run catalog: every run and sweep rightsize records,
// kept in an embedded SQLite file by default or in a PostgreSQL database that
// a team shares, so that runs can be listed, shown again and compared long
// after their result files have moved.
//
// The catalog keeps each run's headline (throughput, latency, errors) in
// columns for listing and filtering, and the whole result (or sweep) JSON,
// gzip-compressed, so that nothing is lost: show reprints it and compare
// reads its per-interval series.
//
// Keys. A run's key is "<id>-<workload>", with "-<label>" appended when the
// run has a label, the label cut down to letters, digits, '-' and '_' as in
// result file names (Key). The steps of one sweep share its id and differ by
// their labels ("threads 4" becomes "threads4"), so a key names one result:
// without --label, it is the default result file's name without ".json". A
// sweep's key is "<id>-<workload>-sweep" (SweepKey), its file's name. Any
// unique prefix of a key names it too.
//
// Databases. A catalog's location is a target of a dialect that is a
// dialect.Store (SQLite, PostgreSQL), found through dialect/all and parsed,
// connected, printed without its password and told its column types by that
// dialect: this package names no database and imports no driver. Several
// processes may write one catalog at once: every write runs in a
// transaction that takes its lock at BEGIN where the database needs that
// (SQLite), and creating the tables is serialized (dialect.Store.StoreLock).
//
// The package is impure (it opens a database); it never reads the process
// environment: the command line works out where the default catalog is, and
// hands Open the environment a PostgreSQL location may use (libpq's PG*
// variables).
package history

// Package stored is the one door to stored results: what a user types (a
// result, sweep or plan file; a history key, a unique prefix of one or a key
// as history list elides it; a label; a configuration name) is resolved
// here, read (files as session.ReadFile reads them: capped, no devices),
// decoded and upgraded to this build's figures (workload/all.Upgrade), with
// the messages and the classes of error (ErrUsage: the argument is wrong)
// the command line prints. report, history, merge, plan, import and analyze
// read through it; none of them reads a result file or calls the upgrade
// itself.
//
// It also does the history subcommands' and merge's work on the catalog
// (Door.Show, Door.Delete, Import, Merge, Door.LoadSides for compare), so
// that the command line holds no catalog.
//
// The name: the package hands back what was stored (and says what was not
// found); the only changes it makes are those a user names (history import
// and delete); a run's results are recorded by observe.Record. "store"
// would read as the writer, and already names the catalog's database
// capability (dialect.Store).
//
// The package is impure: it reads files and opens the history catalog. It
// sits above history and result, and below the command line; it draws no
// table (report does) and computes no figure (analysis does).
package stored

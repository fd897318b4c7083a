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
// The name: the package hands back what was stored (and says what was not
// found), and never stores anything; "store" would read as the writer, and
// already names the catalog's database capability (dialect.Store).
//
// The package is impure: it reads files and opens the history catalog. It
// sits above history and result, and below the command line; it draws no
// table (report does) and computes no figure (analysis does).
package stored

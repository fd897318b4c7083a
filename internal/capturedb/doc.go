// Package capturedb reads, for rightsize capture, what a database server
// counts about its own statements: two snapshots of its statement
// statistics and transaction counters a window apart (read by stmtstats,
// whole: every user's statements, those the clients sent), and the
// catalog facts (columns, keys) that bind a statement's parameters. It
// only reads, on one connection through the dialect interface; every
// statement it runs carries capture.Marker. It refuses, with the setting
// or the SQL that would let it, a server whose statistics are off or a
// user who may not read them (ErrNotReady, with stmtstats.NotReady's
// reason).
//
// The catalogs differ between the servers as SQL does not, so each server
// has its file here rather than a method of every dialect.
package capturedb

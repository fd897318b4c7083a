// Package all is the one list of database dialects rightsize knows.
//
// Adding a database is one package under dialect/ and one line in All; no
// package registers itself from init(). ForURL picks a dialect by the target
// URL's scheme, so the CLI and workloads never name a database.
package all

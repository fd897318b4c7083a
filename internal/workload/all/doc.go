// Package all is the one list of workloads rightsize knows.
//
// Adding a workload is one package under workload/ and one line in All; no
// package registers itself from init(). The CLI builds one subcommand per
// entry, with the flags the workload binds.
package all

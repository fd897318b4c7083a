// Package tpcc is the TPC-C workload (TPC Benchmark C, standard
// specification 5.11): its schema with the standard table and column names,
// the initial population of clause 4.3, the five transactions of clause 2
// (one file each), the terminal model of clause 5 (home warehouse, keying and
// think times, the mix), the consistency conditions of clause 3.3.2, and the
// figures of clause 5.4 (tpmC) computed from a run's result.
package tpcc

// Package datagen generates the random numbers and strings that workloads put
// into rows and statements.
//
// It exists so that every workload draws from the same seeded, per-VU sources
// and the same distributions, and so that a figure measured by rightsize can
// be compared with one measured by sysbench: the distributions behind
// sysbench's --rand-type (uniform, gaussian, special, pareto, zipfian) and its
// '#'/'@' string templates are implemented here as sysbench 1.0 defines them
// (src/sb_rand.c), on top of Go's PCG generator instead of sysbench's
// xoroshiro128+. pgbench.go does the same for pgbench's random functions
// (uniform, gaussian, exponential, zipfian), which workload files use.
//
// Nothing here is safe for concurrent use except Dist and Template (which are
// immutable) and Unique: each VU owns its Source.
package datagen

// Package noop is a workload whose events do nothing: no database, no I/O,
// no allocation. It measures the driver's own ceiling — what the runner, its
// per-virtual-user HDR histograms and its interval ticks cost per event — so
// that a database workload's figures can be read against it, and it proves
// that a workload is one folder here plus one line in workload/all.
package noop

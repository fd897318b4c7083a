// Package analysis turns a sweep's steps into answers: where the knee is
// (three methods, each with its reason in words), how throughput scales
// (the Universal Scalability Law), and what held the system there (the
// Diagnosis: CPU, storage, a cgroup's quota or the hypervisor, conflicts,
// the load generator, with the thresholds that decide it; package report
// words it). It is pure: it computes on figures taken from result files, so
// an analysis can be re-run from a saved sweep with no database.
package analysis

// Package analysis turns a sweep's steps into answers: where the knee is
// (three methods, each with its reason in words) and how throughput scales
// (the Universal Scalability Law). It is pure: it computes on figures taken
// from result files, so an analysis can be re-run from a saved sweep with no
// database.
package analysis

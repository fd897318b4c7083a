// Package metrics serves a run's live figures to Prometheus while it runs.
//
// A run writes its result file only at the end of each step; a dashboard
// watching a long sweep wants the figures of every report tick as they come.
// An Exporter turns each tick's intervals (package result) into Prometheus
// counters and gauges in a registry of its own, and Serve exposes that
// registry over HTTP at /metrics. It is fed the same intervals the progress
// line prints, so it adds no work to the measurement path beyond one call per
// tick.
//
// The package is not pure: it serves HTTP. It reads result types only and
// knows nothing of the CLI, the runner or the reports. docs/metrics.md lists
// every metric.
package metrics

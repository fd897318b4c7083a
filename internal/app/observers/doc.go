// Package observers holds what watches a session from the command line:
// the console (a header per step, the live line, the summary, a sweep's
// verdict), prepare's and check's progress, the live Prometheus metrics, a
// Go CPU profile and the history recorder, each a session.Observer or a
// workload.Progress; and the samplers beside the session: the host's /proc
// with the cgroups of rightsize and of the database, and the database
// servers' own statistics. They write to the io.Writers they are given
// (Out), never to the process's streams.
package observers

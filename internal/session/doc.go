// Package session runs a validated plan (runplan.Plan): it opens and
// prepares the instances, measures the baseline rate when asked, runs each
// step of the plan (a run's one step, the workload's own steps, a sweep's
// axis points, a shard's part of a distributed run), writes each step's
// result and its checkpoints, and assembles a sweep from its steps.
//
// What a session shows or records is not its business: progress lines,
// summaries, the history catalog, Prometheus and profiling are Observers it
// calls at fixed points (see Observer). The process's state it needs
// (host name, CPUs, GOMAXPROCS, the host sampler, the clock's CPU time) comes
// in Options, so that the CLI stays the only package that touches the
// process and a session can be driven by any front end: run, sweep, shard,
// quickstart.
package session

// Package runplan turns a command line into a validated plan, once.
//
// The flags of run, sweep, prepare and cleanup are bound on a Flags value
// (Bind); Flags.Plan parses and checks every one of them together with the
// workload's own options and every --target, and returns a Plan, or every
// problem at once as an Error (the CLI exits 2, before anything is opened).
// A Plan is what a session runs: the workload, its targets, how load is
// offered (Load: filled once, it resolves each step's load, scaled for a
// shard), the runner's configuration, the steps (a run's one step or the
// workload's own steps, a sweep's axis points), the shard of a distributed
// run, and where results go.
// Nothing writes back into Flags: a value given on the command line is
// parsed here and travels on in the Plan.
//
// Rules that used to live in several places live here once: a rate given as
// a multiple ("2x") of --baseline-rate (Rate), the rising lists of a sweep
// (--threads 1,2,4), --target env:VAR, and the result file of each step
// (Output).
package runplan

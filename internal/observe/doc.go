// Package observe runs a plan from the command line (Run): a session with
// the observers its options ask for — the console (a header per step, the
// live line, the summary, a sweep's verdict), the live Prometheus metrics,
// a Go CPU profile and the history catalog — and the host's /proc sampled
// beside it, with the cgroups of rightsize and of the database. It also
// runs the phases other than run on a workload's targets (Prepare, Cleanup,
// Check), with prepare's progress, and a study's steps, resumed from the
// history catalog (RunStudy); records results in the catalog (Record);
// reads a host's topology and measures its hyperthreading for plan
// (LoadHost, PlanHTGain, MeasureHT); and aligns a hypervisor's samples to
// a run or sweep file (ReadHypervisor, ImportInto). It holds the process's
// view the session must not know (the catalog, the metrics server, /proc,
// /sys), so that the CLI only parses flags, builds the plan and calls one
// function.
package observe

// Package run is the run use case: a plan run from the command line
// (Run) with the observers its options ask for (package observers) and
// the host and server samplers beside it, its results recorded in the
// history catalog (Record); and what every use case shares of the process
// (Env), of the catalog (PlanEnv) and of the command line shown back
// (PrintCommand). It holds the process's view the session must not know
// (the catalog, the metrics server, /proc, /sys).
package run

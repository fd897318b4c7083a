// Package cli is rightsize's command line: it turns arguments into validated
// configurations (config), calls the one function that does the command's
// work (a use case of internal/app runs a plan, a phase or a study,
// captures, imports; report, history and the planner read and render what
// was stored), and maps errors to exit codes.
// It touches no process state of its own: main passes in the arguments, the
// environment, the output streams, a CPU clock and a context that signals
// cancel.
//
// Exit codes (also in the README and --help):
//
//	0  success
//	1  the run or command failed (cannot connect, SQL error, I/O error), or
//	   more of a run's events failed than --max-error-pct allows
//	2  invalid usage or options (nothing was opened or changed)
//	3  interrupted (SIGINT/SIGTERM), or the run could not complete its window;
//	   a partial result was written if the run had started
package cli

// Package htmeasure measures what hyperthreading (SMT) adds on this host:
// `rightsize measure ht`. The seed study's first rule is that a hyperthread
// is not a core ("expect roughly +20 %, workload dependent"); this package
// replaces the rule of thumb by a figure for the machine at hand.
//
// Each round runs two phases of the same CPU-bound loop (integer xorshift
// and a floating-point multiply-add, a chain of dependent operations) for
// the same wall time: phase A runs one worker per physical core, pinned to
// the core's first logical CPU; phase B runs one worker per logical CPU, so
// both siblings of every core are busy. The gain is B's throughput over A's,
// minus one. It is the gain of that loop: a database, with its cache misses
// and branches, gains differently, so the figure tells whether HT is on and
// working and how much it can give, not what a database will get.
//
// The package does process-level things: it pins OS threads to CPUs
// (sched_setaffinity) and raises GOMAXPROCS for the duration of a phase
// when it is below the number of workers. It is not pure, and it must not
// run beside other measurements: it needs an idle host, and says so in the
// result when the workers did not get their CPUs to themselves.
//
// OnThisMachine measures the cores a /sys tree lists (measure ht), and
// PlanGain the cores of a topology read from this machine (plan --ht-gain
// measure).
package htmeasure

package foreignflag

import (
	"fmt"
	"slices"
)

// phases are the commands that take a workload: "rightsize run WORKLOAD".
var phases = []string{"run", "prepare", "cleanup", "sweep", "check"}

// CommandOrder adds, to err, the error of a command line args that starts
// with a workload's name (one of workloads; sysbench's order: sysbench
// oltp_read_write run), the order rightsize takes: the command first. Any
// other err is returned as it is. The flags are not echoed: a --target may
// hold a password.
func CommandOrder(err error, args, workloads []string) error {
	if len(args) == 0 || !slices.Contains(workloads, args[0]) {
		return err
	}
	phase := "run"
	if i := slices.IndexFunc(args, func(a string) bool { return slices.Contains(phases, a) }); i >= 0 {
		phase = args[i]
	}
	more := ""
	if len(args) > 2 || phase == "run" && len(args) > 1 {
		more = " ..."
	}
	return fmt.Errorf("%w\n  rightsize takes the command first, then the workload (sysbench's order is the other way round): rightsize %s %s%s",
		err, phase, args[0], more)
}

package runplan

import (
	"bytes"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/workload"
)

// PlanArgs parses a command's flags, args as 'rightsize PHASE WORKLOAD
// args...' takes them (a study's step), with the workload's flags and the
// phase's, and makes its plan. A flag that does not parse is returned as
// pflag says it.
func PlanArgs(w workload.Workload, phase string, args []string, env Env) (*Plan, error) {
	fs := pflag.NewFlagSet(w.Meta().Name, pflag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	w.BindFlags(fs)
	var f Flags
	f.Bind(fs, phase)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return f.Plan(w, env)
}

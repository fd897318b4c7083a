package study

import (
	"fmt"
	"strings"
)

// Command is one step of a study at a scale: what 'rightsize sweep' or
// 'rightsize run' would be given, before the study adds its own flags
// (--target, --out, --label, --config, --history).
type Command struct {
	Step     string
	Line     int    // the step's line in the study file
	Phase    string // "sweep" or "run"
	Workload string
	Config   string
	// Args are the step's flags, --name=value, in the order written (the
	// axis last): one option each, a list joined by commas.
	Args []string
}

// String is the command as typed, without the study's own flags.
func (c Command) String() string {
	return "rightsize " + c.Phase + " " + c.Workload + " " + strings.Join(c.Args, " ")
}

// Expand is the study at a scale (Small or Full): one Command per step, in
// order.
func (s *Study) Expand(scale string) ([]Command, error) {
	if scale != Small && scale != Full {
		return nil, fmt.Errorf("%w: scale %q: want small or full", ErrInvalid, scale)
	}
	out := make([]Command, 0, len(s.Stages))
	for _, st := range s.Stages {
		c := Command{Step: st.Name, Line: st.Line, Phase: "run", Workload: st.Workload, Config: st.Config}
		if st.Sweep {
			c.Phase = "sweep"
		}
		for _, o := range st.Options {
			c.Args = append(c.Args, flagArg(o.Name, o.Value.At(scale)))
		}
		if st.Sweep {
			c.Args = append(c.Args, flagArg(st.Axis, st.Values.At(scale)))
		}
		out = append(out, c)
	}
	return out, nil
}

// flagArg is one flag with its value: --name=v1,v2 (a bare --name for
// true, so that boolean flags read as they are typed).
func flagArg(name string, items []string) string {
	v := strings.Join(items, ",")
	if v == "true" {
		return "--" + name
	}
	return "--" + name + "=" + v
}

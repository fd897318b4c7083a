package app

import (
	"context"
	"time"

	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/htmeasure"
	"github.com/rightsize/rightsize/internal/topology"
)

// LoadHost reads a host's topology for plan --host (host.Topology): this
// machine's /sys (arg "auto"), or the YAML description in the file arg.
func LoadHost(env *Env, arg string) (topology.Host, error) {
	return host.Topology(arg, env.SysFS, env.ProcRoot, env.Hostname)
}

// PlanHTGain measures the hyperthreading gain for plan --ht-gain measure
// (htmeasure.PlanGain).
var PlanHTGain = htmeasure.PlanGain

// MeasureHT measures the hyperthreading gain on this machine's cores, d a
// phase and rounds rounds (measure ht; htmeasure.OnThisMachine).
func MeasureHT(ctx context.Context, env *Env, d time.Duration, rounds int) (htmeasure.Result, error) {
	return htmeasure.OnThisMachine(ctx, env.SysFS, d, rounds)
}

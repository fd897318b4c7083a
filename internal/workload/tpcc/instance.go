package tpcc

import (
	"sync"

	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// instance is the workload bound to one target. Its methods may be called
// from several goroutines (NewVU concurrently for many VUs).
type instance struct {
	dbtarget.Base
	o    Options
	kind string // --in-server's form on this database (serverKind); "" client-side

	// run holds what every VU of a run shares, set up by the first NewVU
	// from runSeed (SeedRun) or, without one, from that VU's seed.
	runSeed uint64
	runOnce sync.Once
	runErr  error
	run     runShared
}

var _ workload.Instance = (*instance)(nil)

func newInstance(o Options, t *dbtarget.DB) *instance {
	in := &instance{o: o}
	in.Init(t)
	return in
}

// SeedRun takes the run's seed, from which the NURand constants are drawn
// (InstanceHooks.SeedRun).
func (in *instance) SeedRun(seed uint64) { in.runSeed = seed }

// Hooks: the tables matched against the options, the run's seed, and the
// consistency checks.
func (in *instance) Hooks() workload.InstanceHooks {
	return workload.InstanceHooks{Match: in.Match, SeedRun: in.SeedRun, Check: in.Check}
}

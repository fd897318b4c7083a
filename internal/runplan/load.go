package runplan

import (
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/shard"
)

// Load is how a plan offers load, filled once from the flags and checked
// with them: what every step shares (Base: arrivals, think time, warm-up and
// steady state, duration), the baseline a multiple of it multiplies, and
// this process's part of a sharded run. The schedule is the plan's steps,
// each with its virtual users per instance and rate (Step.Threads,
// Step.Rate). Step resolves one of them into the runner's Load, scaled for
// the shard; the session asks nothing else (k6's executor configuration and
// its ExecutionTuple are the model).
type Load struct {
	// Base is every step's load but its virtual users and rate (zero here).
	Base runner.Load
	// Baseline is --baseline-rate: what a rate given as a multiple
	// multiplies, or Auto: measured before the first step.
	Baseline Baseline
	// Shard is this process's part of the run (nil: the whole run).
	Shard *shard.Part
}

// Step is the load of step st when 1x is baseline events per second per
// instance: st's virtual users and rate per second, and this shard's part
// of them.
func (l Load) Step(st Step, baseline float64) runner.Load {
	out := l.offer(st.Threads, st.Rate, baseline)
	if l.Shard != nil {
		out = out.Shard(*l.Shard)
	}
	return out
}

// Closed is the closed-loop load of threads virtual users per instance (the
// baseline's measurement).
func (l Load) Closed(threads int) runner.Load { return l.offer(threads, Rate{}, 0) }

// offer is Base with threads virtual users and rate resolved against
// baseline (a multiple without a baseline: 0, the closed loop).
func (l Load) offer(threads int, rate Rate, baseline float64) runner.Load {
	out := l.Base
	out.Threads, out.Rate = threads, rate.PerSecond(baseline)
	return out
}

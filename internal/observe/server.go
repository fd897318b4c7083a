package observe

import (
	"context"

	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/serverstats"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// serverSampler samples the plan's database servers (--server-stats): the
// session's Options.Server and the sampler to close once it has run; nil
// when off.
func serverSampler(p *runplan.Plan) (func(ctx context.Context, n int) session.ServerStep, *serverstats.Sampler) {
	if p.ServerStats <= 0 {
		return nil, nil
	}
	ts := make([]serverstats.Target, len(p.Targets))
	counters := p.Workload.Meta().ServerCounters
	for i, t := range p.Targets {
		if loc, d, ok := dbtarget.Located(t); ok {
			ts[i].Loc, ts[i].D = loc, d
			ts[i].Counters = counters
		}
	}
	s := serverstats.New(ts, p.ServerStats, serverstats.Options{MySQLSessions: p.ServerSessions})
	return func(ctx context.Context, n int) session.ServerStep { return s.Start(ctx, n) }, s
}

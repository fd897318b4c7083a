package observers

import (
	"context"
	"fmt"
	"io"

	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/serverstats"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// CPUModel is the host's CPU model from its /proc at procRoot ("" when
// there is none to read, or it names none: the result then records none).
func CPUModel(procRoot string) string {
	if procRoot == "" {
		return ""
	}
	m, _ := host.CPUModel(procRoot)
	return m
}

// Watched are the database's cgroup and server processes on this host
// for p's --db-cgroup and targets (host.Watched, with rightsize's own
// cgroup); what it cannot find it says on stderr. None when there is no
// /proc to read.
func Watched(procRoot string, stderr io.Writer, p *runplan.Plan) ([]host.Cgroup, []host.Server) {
	if procRoot == "" {
		return nil, nil
	}
	var locals []host.Local
	for _, t := range p.Targets {
		if local := t.Hooks().LocalServer; local != nil {
			network, address := local()
			locals = append(locals, host.Local{Network: network, Address: address})
		}
	}
	return host.Watched(procRoot, p.DBCgroup, locals, stderr)
}

// HostSampler samples the host's /proc at procRoot for each interval, with
// the cgroups and the database server's own processes Watched found; nil
// when there is no /proc to read. What it cannot watch it says on stderr.
func HostSampler(procRoot string, stderr io.Writer, cgroups []host.Cgroup, servers []host.Server) func(secs float64) *result.Host {
	if procRoot == "" {
		return nil
	}
	s, err := host.NewSampler(procRoot, cgroups...)
	if err != nil {
		fmt.Fprintf(stderr, "rightsize: host metrics not available: %v\n", err)
		return nil
	}
	for _, srv := range servers {
		if err := s.WatchServer(srv); err != nil {
			fmt.Fprintf(stderr, "rightsize: the database's CPU: %v\n", err)
		}
	}
	return func(secs float64) *result.Host {
		h, err := s.Sample(secs)
		if err != nil {
			return nil
		}
		return h
	}
}

// ServerSampler samples the plan's database servers (--server-stats): the
// session's Options.Server and the sampler to close once it has run; nil
// when off.
func ServerSampler(p *runplan.Plan) (func(ctx context.Context, n int) session.ServerStep, *serverstats.Sampler) {
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

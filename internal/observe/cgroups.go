package observe

import (
	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/runplan"
)

// watchedCgroups are the cgroups and servers the host sampler reads
// (host.Watched) for the plan's --db-cgroup and the servers its targets
// name on this host.
func watchedCgroups(env *Env, p *runplan.Plan) ([]host.Cgroup, []host.Server) {
	var locals []host.Local
	for _, t := range p.Targets {
		if local := t.Hooks().LocalServer; local != nil {
			network, address := local()
			locals = append(locals, host.Local{Network: network, Address: address})
		}
	}
	return host.Watched(env.ProcRoot, p.DBCgroup, locals, env.Stderr)
}

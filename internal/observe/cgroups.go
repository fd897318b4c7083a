package observe

import (
	"errors"
	"fmt"

	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/runplan"
)

// forwarder names the processes that listen for a container's or a
// tunnel's published port and pass the connections on: their cgroup is not
// the database's.
var forwarder = map[string]bool{"docker-proxy": true, "rootlessport": true, "rootlesskit": true, "slirp4netns": true, "pasta": true,
	"conmon": true, "kubectl": true, "socat": true, "haproxy": true, "pgbouncer": true, "proxysql": true, "sshd": true, "ssh": true}

// watchedCgroups are the cgroups whose CPU the host sampler reads:
// rightsize's own, and the database's (--db-cgroup, else that of each
// server on this host the targets name, found from the process listening
// at its address; an embedded database's is rightsize's); and the servers
// whose own processes' CPU it reads (each server on this host the targets
// name, found the same way, --db-cgroup or not; not an embedded one, whose
// CPU is rightsize's). What cannot be found is said once on stderr, and
// the run goes on without it.
func watchedCgroups(env *Env, p *runplan.Plan) ([]host.Cgroup, []host.Server) {
	var out []host.Cgroup
	var servers []host.Server
	warn := func(what string, err error) {
		fmt.Fprintf(env.Stderr, "rightsize: %s: %v\n", what, err)
	}
	own, ownErr := host.CgroupOf(env.ProcRoot, 0)
	if ownErr != nil {
		warn("this process's cgroup", ownErr)
	} else {
		own.Role = "rightsize"
		out = append(out, own)
	}
	if p.DBCgroup != "" {
		c, err := host.CgroupAt(env.ProcRoot, p.DBCgroup)
		if err != nil {
			warn("--db-cgroup", err)
		} else {
			c.Role = "database"
			out = append(out, c)
		}
	}
	seen := map[[2]string]bool{}
	for _, t := range p.Targets {
		local := t.Hooks().LocalServer
		if local == nil {
			continue
		}
		network, address := local()
		if network == "" || seen[[2]string{network, address}] {
			continue
		}
		seen[[2]string{network, address}] = true
		if network == "embedded" {
			if ownErr == nil && p.DBCgroup == "" {
				db := own
				db.Role = "database"
				out = append(out, db)
			}
			continue
		}
		pid, comm, lerr := host.Listener(env.ProcRoot, network, address)
		if errors.Is(lerr, host.ErrNoListener) {
			continue // nothing listens: connecting will say so
		}
		if lerr != nil {
			warn("the database's cgroup and CPU", lerr)
			continue
		}
		if forwarder[comm] {
			warn("the database's cgroup and CPU", fmt.Errorf("%s %s is served by %s (PID %d), a port forwarder, not the database: give the database's own cgroup with --db-cgroup", network, address, comm, pid))
			continue
		}
		servers = append(servers, host.Server{Name: fmt.Sprintf("%s (PID %d)", comm, pid), Address: network + " " + address, PID: pid})
		if p.DBCgroup != "" {
			continue
		}
		c, cerr := host.CgroupOf(env.ProcRoot, pid)
		if cerr != nil {
			warn(fmt.Sprintf("the cgroup of %s (PID %d)", comm, pid), cerr)
			continue
		}
		c.Role, c.Server = "database", fmt.Sprintf("%s (PID %d)", comm, pid)
		out = append(out, c)
	}
	return out, servers
}

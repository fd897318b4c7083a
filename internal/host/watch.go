package host

import (
	"errors"
	"fmt"
	"io"
)

// forwarder names the processes that listen for a container's or a
// tunnel's published port and pass the connections on: their cgroup is not
// the database's.
var forwarder = map[string]bool{"docker-proxy": true, "rootlessport": true, "rootlesskit": true, "slirp4netns": true, "pasta": true,
	"conmon": true, "kubectl": true, "socat": true, "haproxy": true, "pgbouncer": true, "proxysql": true, "sshd": true, "ssh": true}

// Local is where a database server of a run's targets listens, as its
// target says (workload.TargetHooks.LocalServer): a network ("tcp",
// "unix", or "embedded" for a database inside rightsize) and an address.
type Local struct{ Network, Address string }

// Watched are the cgroups whose CPU the host sampler reads: rightsize's
// own, and the database's (dbCgroup, else that of each server on this host
// of locals, found from the process listening at its address; an embedded
// database's is rightsize's); and the servers whose own processes' CPU it
// reads (each server on this host of locals, found the same way, dbCgroup
// or not; not an embedded one, whose CPU is rightsize's). procRoot is the
// host's /proc. What cannot be found is said once on warn, and the run
// goes on without it.
func Watched(procRoot, dbCgroup string, locals []Local, warn io.Writer) ([]Cgroup, []Server) {
	var out []Cgroup
	var servers []Server
	say := func(what string, err error) {
		fmt.Fprintf(warn, "rightsize: %s: %v\n", what, err)
	}
	own, ownErr := CgroupOf(procRoot, 0)
	if ownErr != nil {
		say("this process's cgroup", ownErr)
	} else {
		own.Role = "rightsize"
		out = append(out, own)
	}
	if dbCgroup != "" {
		c, err := CgroupAt(procRoot, dbCgroup)
		if err != nil {
			say("--db-cgroup", err)
		} else {
			c.Role = "database"
			out = append(out, c)
		}
	}
	seen := map[Local]bool{}
	for _, l := range locals {
		if l.Network == "" || seen[l] {
			continue
		}
		seen[l] = true
		if l.Network == "embedded" {
			if ownErr == nil && dbCgroup == "" {
				db := own
				db.Role = "database"
				out = append(out, db)
			}
			continue
		}
		pid, comm, lerr := Listener(procRoot, l.Network, l.Address)
		if errors.Is(lerr, ErrNoListener) {
			continue // nothing listens: connecting will say so
		}
		if lerr != nil {
			say("the database's cgroup and CPU", lerr)
			continue
		}
		if forwarder[comm] {
			say("the database's cgroup and CPU", fmt.Errorf("%s %s is served by %s (PID %d), a port forwarder, not the database: give the database's own cgroup with --db-cgroup", l.Network, l.Address, comm, pid))
			continue
		}
		servers = append(servers, Server{Name: fmt.Sprintf("%s (PID %d)", comm, pid), Address: l.Network + " " + l.Address, PID: pid})
		if dbCgroup != "" {
			continue
		}
		c, cerr := CgroupOf(procRoot, pid)
		if cerr != nil {
			say(fmt.Sprintf("the cgroup of %s (PID %d)", comm, pid), cerr)
			continue
		}
		c.Role, c.Server = "database", fmt.Sprintf("%s (PID %d)", comm, pid)
		out = append(out, c)
	}
	return out, servers
}

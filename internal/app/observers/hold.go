package observers

import (
	"errors"
	"fmt"
	"io"

	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/runplan"
)

// HoldCPUs is how a plan that holds the database to allotments of CPUs
// (--db-cpus) sets them: on the database's cgroup Watched found, checked
// to be the database's own (host.NewHold), each allotment at most the
// host's numCPU. It says on stderr what it holds and, through restore
// (which the caller runs when the session ends), what it put back. A plan
// that holds nothing gets nil functions; one whose database cannot be
// held, an error (host.ErrCannotHold).
func HoldCPUs(procRoot string, numCPU int, stderr io.Writer, p *runplan.Plan, cgroups []host.Cgroup, servers []host.Server) (hold func(cpus float64) error, restore func(), err error) {
	if !p.HoldsCPUs() {
		return nil, nil, nil
	}
	most := 0.0
	for _, l := range p.Steps {
		most = max(most, l.DBCPUs)
	}
	if numCPU > 0 && most > float64(numCPU) {
		return nil, nil, fmt.Errorf("%w: --db-cpus %g: this host has %d CPUs", host.ErrCannotHold, most, numCPU)
	}
	if procRoot == "" {
		return nil, nil, fmt.Errorf("%w: this host's /proc is not read here", host.ErrCannotHold)
	}
	var db *host.Cgroup
	for i, c := range cgroups {
		if c.Role == "database" || c.Role == "rightsize and database" {
			db = &cgroups[i]
		}
	}
	if db == nil {
		return nil, nil, fmt.Errorf("%w: no cgroup of the database server was found on this host (--db-cpus needs the server on this host, reached by a loopback address or a socket, or its cgroup named by --db-cgroup)", host.ErrCannotHold)
	}
	cg := *db
	for _, c := range cgroups {
		if c.Role == "rightsize" && c.CPUDir == cg.CPUDir {
			cg.Role = "rightsize and database" // an embedded database, or both in one
		}
	}
	h, err := host.NewHold(procRoot, cg, servers)
	if err != nil {
		return nil, nil, err
	}
	before, held := h.Before(), 0.0
	hold = func(cpus float64) error {
		if cpus == held {
			return nil
		}
		if err := h.Set(cpus); err != nil {
			return err
		}
		if held == 0 {
			fmt.Fprintf(stderr, "holding the database's cgroup %s to %g CPUs (it had %s; put back when this ends)\n", h.Path(), cpus, before)
		}
		held = cpus
		return nil
	}
	restore = func() {
		if err := h.Restore(); err != nil {
			fmt.Fprintf(stderr, "rightsize: could not put back the database's cgroup %s as it was (%s): %v\n", h.Path(), before, errors.Unwrap(err))
			return
		}
		if held > 0 {
			fmt.Fprintf(stderr, "the database's cgroup %s is back to %s\n", h.Path(), before)
		}
	}
	return hold, restore, nil
}

package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/topology"
)

// Topology reads a host's topology for plan --host: this machine's (arg
// "auto": sys is its /sys, nil when not available; the memory cross-checked
// with procRoot's /proc/meminfo, none when procRoot is ""; named hostname
// when sys names none), or the YAML description in the file arg. A
// description that is not one is a usage error (exit 2, exitcode.Usage); a
// file it cannot read, or a /sys, is not.
func Topology(arg string, sys fs.FS, procRoot, hostname string) (topology.Host, error) {
	if arg == "auto" {
		if sys == nil {
			return topology.Host{}, errors.New("host: this machine's /sys is not available; describe the host in a file (--host host.yaml)")
		}
		var memTotal int64
		var memErr error
		if procRoot != "" {
			memTotal, memErr = MemTotal(procRoot)
		}
		h, err := topology.FromSys(sys, memTotal)
		if err != nil {
			return h, fmt.Errorf("host: %w", err)
		}
		if memErr != nil {
			h.Notes = append(h.Notes, fmt.Sprintf("memory from sysfs only, not cross-checked with /proc/meminfo: %v", memErr))
		}
		if h.Name == "" {
			h.Name = hostname
		}
		return h, nil
	}
	f, err := os.Open(arg)
	if err != nil {
		return topology.Host{}, fmt.Errorf("host: %w", err)
	}
	defer f.Close()
	h, err := topology.Read(f, arg) // at most topology.MaxFileSize of it
	switch {
	case errors.Is(err, topology.ErrRead):
		return h, fmt.Errorf("host: %w", err)
	case err != nil:
		return h, exitcode.With(err, exitcode.Usage)
	}
	return h, nil
}

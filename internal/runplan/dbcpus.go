package runplan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MinDBCPUs and MaxDBCPUs are the least and the most CPUs --db-cpus
// takes: the least is the kernel's smallest quota, 1 ms, of the 20 ms
// period an allotment is held over (host.HoldPeriodUs).
const MinDBCPUs, MaxDBCPUs = 0.05, 1024

// DBCPUs parses --db-cpus: allotments of CPUs (0.5,1,1.5,2), sorted,
// without repeats; nil when not given.
func (c *Flags) DBCPUs() ([]float64, error) {
	if strings.TrimSpace(c.DBCPUList) == "" {
		return nil, nil
	}
	var out []float64
	for f := range strings.SplitSeq(c.DBCPUList, ",") {
		f = strings.TrimSpace(f)
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || !(x >= MinDBCPUs && x <= MaxDBCPUs) {
			return nil, fmt.Errorf("--db-cpus %q: want CPUs from %g to %d (0.5, 1, 1.5)", f, MinDBCPUs, MaxDBCPUs)
		}
		out = append(out, x)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// runDBCPUs checks a run's --db-cpus: one allotment at most.
func (c *Flags) runDBCPUs() error {
	cpus, err := c.DBCPUs()
	if len(cpus) > 1 {
		return fmt.Errorf("--db-cpus %s: a run holds the database to one allotment; a sweep takes a list", c.DBCPUList)
	}
	return err
}

// holdCPUs sets every step's allotment to cpus (one value: the whole run
// or sweep is held to it).
func holdCPUs(steps []Step, cpus float64) {
	for i := range steps {
		steps[i].DBCPUs = cpus
	}
}

// HoldsCPUs reports whether a step holds the database to an allotment of
// CPUs (--db-cpus).
func (p *Plan) HoldsCPUs() bool {
	for _, l := range p.Steps {
		if l.DBCPUs > 0 {
			return true
		}
	}
	return false
}

// cpusLabel is the label of an allotment's step: "cpus 0.5".
func cpusLabel(x float64) string { return "cpus " + strconv.FormatFloat(x, 'f', -1, 64) }

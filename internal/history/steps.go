package history

import (
	"context"
	"strings"
)

// Labelled finds what a labelled run or sweep wrote, as the catalog holds
// it: for a run (sweep false), the newest run labelled label that is not
// partial and not a sweep's, its file in runs; for a sweep, the newest
// sweep recorded (once all its steps ran) whose runs are labelled "<label>
// <axis step>", its file in sweepPath; of those, the newest whose file
// accept takes (nil: any). ok is false when the catalog holds none for
// workload. A study finds its steps so (label <study id>/<step>), taking
// only those it wrote itself.
func (c *Catalog) Labelled(ctx context.Context, workload, label string, sweep bool, accept func(path string) bool) (sweepPath string, runs []string, ok bool, err error) {
	if accept == nil {
		accept = func(string) bool { return true }
	}
	es, err := c.List(ctx, Filter{Workload: workload})
	if err != nil {
		return "", nil, false, err
	}
	seen := map[string]bool{}
	for _, e := range es {
		switch {
		case !sweep && e.Label == label && !e.Partial && e.SweepID == "" && e.Path != "":
			if accept(e.Path) {
				return "", []string{e.Path}, true, nil
			}
		case sweep && strings.HasPrefix(e.Label, label+" ") && e.SweepID != "" && !seen[e.SweepID]:
			seen[e.SweepID] = true
			key := e.SweepID + "-" + e.Workload + "-sweep"
			has, err := c.Has(ctx, key)
			if err != nil || !has {
				continue
			}
			_, se, err := c.GetSweep(ctx, key)
			if err != nil {
				return "", nil, false, err
			}
			if se.Path != "" && accept(se.Path) {
				return se.Path, nil, true, nil
			}
		}
	}
	return "", nil, false, nil
}

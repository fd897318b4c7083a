package stored

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// DefaultRounds is the bootstrap's resampling rounds (analysis.DefaultRounds).
const DefaultRounds = analysis.DefaultRounds

// Compare compares the candidate's runs with the baseline's
// (analysis.Compare).
func Compare(base, cand []*result.Run, rounds int, seed uint64) analysis.Comparison {
	return analysis.Compare(base, cand, rounds, seed)
}

// Analyze analyses a sweep again with a command line's options over its
// own (analysis.OptionsOver): analyze's --slo and --cpu-target.
func Analyze(sw *result.Sweep, sloMs float64, sloSet bool, cpuTargetPct float64, cpuTargetSet bool) *analysis.Result {
	return analysis.Analyze(sw, analysis.OptionsOver(sw, sloMs, sloSet, cpuTargetPct, cpuTargetSet))
}

// compareSide loads one side of a comparison (Load: a result file, else a
// run whose key is exactly arg, else the runs labelled arg, else the run
// whose key starts with arg). It returns the runs and a description of
// them.
func (d *Door) compareSide(ctx context.Context, arg string) ([]*result.Run, string, error) {
	f, err := d.Load(ctx, arg)
	if err != nil {
		return nil, "", err
	}
	switch f.How {
	case ByLabel:
		var names []string
		for _, r := range f.Runs {
			if !slices.Contains(names, r.Workload) {
				names = append(names, r.Workload)
			}
		}
		return f.Runs, fmt.Sprintf("label %q: %d run(s) of %s", arg, len(f.Runs), strings.Join(names, ", ")), nil
	case ByKey:
		arg = f.Key
	}
	return f.Runs, fmt.Sprintf("%s (%s)", arg, report.DescribeRun(f.Runs[0])), nil
}

// LoadSides loads a comparison's baseline and candidate (args[0] and
// args[1]), refusing (ErrUsage, naming both arguments) a run on both
// sides, and writes on w what each side is (history compare).
func (d *Door) LoadSides(ctx context.Context, w io.Writer, args []string) (base, cand []*result.Run, err error) {
	base, baseDesc, err := d.compareSide(ctx, args[0])
	if err != nil {
		return nil, nil, err
	}
	cand, candDesc, err := d.compareSide(ctx, args[1])
	if err != nil {
		return nil, nil, err
	}
	if err := d.sameRunTwice(args, base, cand); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "baseline:  %s\ncandidate: %s\n\n", baseDesc, candDesc)
	return base, cand, nil
}

// sameRunTwice refuses a run on both sides of a comparison, as report
// refuses the same measurement named twice: by the same file, a copy, its
// key or a label that shares it.
func (d *Door) sameRunTwice(args []string, sides ...[]*result.Run) error {
	var seen Seen
	for i, runs := range sides {
		for _, r := range runs {
			if err := seen.Once(d.Verb, args[i], "run", r.ID, RunKey(r), "a run compared with itself shows no change"); err != nil {
				return err
			}
		}
	}
	return nil
}

package stored

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// List gathers what history list shows of the catalog (report.WriteListing
// draws it): the runs f selects (newest first) and, unless f selects by
// label or configuration, the sweeps, with each run's key as the fitted
// list names it (unless wide: whole) and each sweep's study,
// configuration and servers.
func List(ctx context.Context, cat *history.Catalog, f history.Filter, wide bool) (report.Listing, error) {
	l := report.Listing{Catalog: cat.String(), Filter: filterText(f), Wide: wide}
	runs, err := cat.List(ctx, f)
	if err != nil {
		return l, err
	}
	var sweeps []history.SweepEntry
	if f.Label == "" && f.Config == "" {
		if sweeps, err = cat.ListSweeps(ctx, f); err != nil {
			return l, err
		}
	}
	var keys []history.Ref
	if !wide && len(runs) > 0 {
		if keys, err = CatalogKeys(ctx, cat); err != nil {
			return l, err
		}
	}
	for _, e := range runs {
		key := e.Key
		if !wide {
			if key, err = shortKey(ctx, cat, e, keys); err != nil {
				return l, err
			}
		}
		study, label := StudyOf(e.Label)
		l.Runs = append(l.Runs, report.ListedRun{Key: key, Study: study, Label: label, Workload: e.Workload, Config: e.Config,
			SweepStep: e.SweepStep, Started: e.Started, Targets: e.Targets, Servers: e.Servers, Throughput: e.Throughput,
			AvgMs: e.AvgMs, P95Ms: e.P95Ms, P99Ms: e.P99Ms, Errors: e.Errors, Partial: e.Partial})
	}
	for _, s := range sweeps {
		info, err := sweepInfoOf(ctx, cat, s)
		if err != nil {
			return l, err
		}
		l.Sweeps = append(l.Sweeps, report.ListedSweep{Key: s.Key, Workload: s.Workload, Axis: s.Axis, Steps: s.Steps,
			Study: info.study, Config: info.config, Servers: info.servers})
	}
	return l, nil
}

func filterText(f history.Filter) string {
	var parts []string
	if f.Workload != "" {
		parts = append(parts, "workload "+f.Workload)
	}
	if f.Label != "" {
		parts = append(parts, fmt.Sprintf("label %q", f.Label))
	}
	if f.Config != "" {
		parts = append(parts, fmt.Sprintf("config %q", f.Config))
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " and ")
}

// shortKey is what names a run in the fitted list: its id when that prefix
// names it alone in the catalog; else (the steps of a sweep share its id)
// its id, "…" and the shortest end of its key that, with the id, names it
// alone among keys (every key of the catalog), at least its sweep step's
// ("20250301T120000Z-5eeeee…rate3x"), as Door.Resolve reads it; else its
// whole key.
func shortKey(ctx context.Context, cat *history.Catalog, e history.Entry, keys []history.Ref) (string, error) {
	if e.ID == "" || e.ID == e.Key {
		return e.Key, nil
	}
	ref, err := cat.Resolve(ctx, e.ID)
	switch {
	case err == nil && ref.Key == e.Key:
		return e.ID, nil
	case err != nil && !errors.Is(err, history.ErrAmbiguous):
		return "", err
	case !strings.HasPrefix(e.Key, e.ID):
		return e.Key, nil
	}
	rest := e.Key[len(e.ID):] // the tail is cut from it
	n := 1
	if step := result.FileSafe(e.SweepStep); step != "" && strings.HasSuffix(rest, step) {
		n = len(step)
	}
	for ; n < len(rest)-1; n++ { // "…" stands for at least 2 characters
		if len(ElidedMatches(keys, e.ID, rest[len(rest)-n:])) == 1 {
			return e.ID + "…" + rest[len(rest)-n:], nil
		}
	}
	return e.Key, nil
}

// studyLabel is how a study labels its steps' runs: "<study id>/<step>",
// and "<study id>/<step> <axis step>" for a sweep's (study id: a run id or
// --study-id, letters, digits, '-' and '_').
var studyLabel = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_-]{0,63})/(.+)$`)

// StudyOf splits a run's label into the study that ran it and the rest (its
// step); "" and the label when no study did.
func StudyOf(label string) (study, rest string) {
	if m := studyLabel.FindStringSubmatch(label); m != nil {
		return m[1], m[2]
	}
	return "", label
}

// sweepInfo is what history list and show say of a sweep beyond its
// entry: the study that ran it, its configuration and its runs' servers.
type sweepInfo struct {
	study, config string
	servers       []string
	runs          []history.Entry
	sweep         *result.Sweep
}

// sweepInfoOf gathers a sweep's study, configuration and servers: the
// configuration from the sweep, the others from its runs in the catalog.
func sweepInfoOf(ctx context.Context, cat *history.Catalog, s history.SweepEntry) (sweepInfo, error) {
	sw, _, err := cat.GetSweep(ctx, s.Key)
	if err != nil {
		return sweepInfo{}, err
	}
	runs, err := SweepRuns(ctx, cat, sw)
	if err != nil {
		return sweepInfo{}, err
	}
	info := sweepInfo{config: sw.Config, runs: runs, sweep: sw}
	for _, e := range runs {
		if st, _ := StudyOf(e.Label); st != "" && info.study == "" {
			info.study = st
		}
		if info.config == "" {
			info.config = e.Config
		}
		info.servers = append(info.servers, e.Servers...)
	}
	return info, nil
}

// ShowSweep gathers what history show shows of the sweep of key
// (report.WriteShownSweep draws it): its record, study, configuration and
// servers, the sweep analysed again from its steps, and its runs' keys.
func ShowSweep(ctx context.Context, cat *history.Catalog, key string) (report.ShownSweep, error) {
	_, e, err := cat.GetSweep(ctx, key)
	if err != nil {
		return report.ShownSweep{}, err
	}
	info, err := sweepInfoOf(ctx, cat, e)
	if err != nil {
		return report.ShownSweep{}, err
	}
	s := report.ShownSweep{Recorded: report.Recorded{Key: e.Key, At: e.Recorded, Path: e.Path}, Study: info.study, Config: info.config,
		Servers: info.servers, Sweep: analysis.Analyze(info.sweep, analysis.OptionsOf(info.sweep))}
	for _, st := range info.runs {
		s.Steps = append(s.Steps, [2]string{st.Key, st.SweepStep})
	}
	return s, nil
}

// ShowRun gathers what history show shows of the run of key
// (report.WriteShownRun draws it): its record, study and step, the sweep
// it was a step of, its targets and servers, and the run, upgraded.
func ShowRun(ctx context.Context, cat *history.Catalog, key string) (report.ShownRun, error) {
	r, e, err := Get(ctx, cat, key)
	if err != nil {
		return report.ShownRun{}, err
	}
	study, step := StudyOf(e.Label)
	return report.ShownRun{Recorded: report.Recorded{Key: e.Key, At: e.Recorded, Path: e.Path}, Study: study, Step: step,
		Workload: e.Workload, SweepID: e.SweepID, SweepStep: e.SweepStep, Targets: e.Targets, Servers: e.Servers, Run: r}, nil
}

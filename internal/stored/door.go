package stored

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
)

// Takes is what a command's arguments may name besides a file and a key.
type Takes int

const (
	// Measurements are result, sweep and plan files, a run's or a sweep's
	// key, and a configuration's sweeps (or its runs when it has none):
	// report's arguments.
	Measurements Takes = iota
	// Runs are result files, a run's key and the runs of a label: history
	// compare's sides. A sweep or a plan is refused (ErrUsage).
	Runs
)

// Door reads what the arguments of one command name: a file, else what the
// history catalog holds under it (the catalog opened the first time an
// argument is not a file, closed by Close). It is not safe for concurrent
// use.
type Door struct {
	// Verb begins every message: "report", "history compare".
	Verb string
	// DSN is the history catalog's location ("": there is none), and Getenv
	// the environment a PostgreSQL location may use.
	DSN    string
	Getenv func(string) string
	// NoCatalog is the whole message when an argument needs the catalog and
	// there is none; "" says that the argument is not a file, and that
	// there is no catalog to look it up in.
	NoCatalog string
	Takes     Takes

	cat *history.Catalog
}

// How says what an argument named.
type How int

const (
	ByFile How = iota
	ByKey
	ByLabel
	ByConfig
)

// Found is what one argument named: runs, sweeps or a plan, upgraded.
type Found struct {
	Arg string
	How How
	// Key is the catalog's key of the run or sweep (ByKey).
	Key string
	// Runs are results named on their own (a file, a key, a label's or a
	// configuration's runs), in the catalog's order oldest first.
	Runs []*result.Run
	// Sweeps are sweeps with their steps' results.
	Sweeps []Sweep
	Plan   *sizing.Report
	// Files are the paths of every file read (a sweep's steps' too).
	Files []string
}

// Sweep is a stored sweep with the results of its steps that were found
// (in the catalog, or as files where the sweep recorded them or beside
// it), in its steps' order.
type Sweep struct {
	*result.Sweep
	Runs []*result.Run
}

// Config is the sweep analysed and named (analysis.ConfigOf), with its
// steps' results.
func (s Sweep) Config() analysis.Candidate {
	return analysis.Candidate{Name: analysis.ConfigOf(s.Sweep, s.Runs), Sweep: s.Analysed(), Runs: s.Runs}
}

// Analysed is the sweep analysed with its own options.
func (s Sweep) Analysed() *analysis.Result {
	return analysis.Analyze(s.Sweep, analysis.OptionsOf(s.Sweep))
}

// Close closes the catalog if an argument opened it.
func (d *Door) Close() {
	if d.cat != nil {
		d.cat.Close()
		d.cat = nil
	}
}

// IsFile reports whether arg names a file rather than something in the
// catalog: a path that exists (or that cannot be looked at), or one ending
// in .json (no key has a '.'): a missing one is a missing file.
func IsFile(arg string) bool {
	_, err := os.Stat(arg)
	return err == nil || !errors.Is(err, fs.ErrNotExist) || strings.HasSuffix(arg, ".json")
}

// Load reads what arg names: a file (IsFile), else from the catalog the
// run or sweep of exactly that key, else (arg not empty) a configuration's
// sweeps or runs or a label's runs (as d.Takes says), else the run or sweep
// whose key arg uniquely prefixes (or names as history list elides it).
func (d *Door) Load(ctx context.Context, arg string) (Found, error) {
	if IsFile(arg) {
		return d.loadFile(arg)
	}
	cat, err := d.Catalog(ctx, arg)
	if err != nil {
		return Found{}, err
	}
	has, err := cat.Has(ctx, arg)
	if err != nil {
		return Found{}, err
	}
	if !has && arg != "" { // an empty filter would match every run
		f, err := d.loadNamed(ctx, cat, arg)
		if err != nil || len(f.Runs)+len(f.Sweeps) > 0 {
			return f, err
		}
	}
	ref, err := resolveKey(ctx, cat, arg)
	if err != nil {
		return Found{}, d.notFound(cat, arg, err)
	}
	return d.loadKey(ctx, cat, arg, ref)
}

// loadFile reads the file arg, with its steps' results when it is a sweep.
func (d *Door) loadFile(arg string) (Found, error) {
	f, err := ReadFile(arg)
	if err != nil {
		return Found{}, fmt.Errorf("%s: %w", d.Verb, err)
	}
	if d.Takes == Runs && f.Run == nil {
		return Found{}, usagef("%s: %s is a %s; compare runs (result files, keys or labels)", d.Verb, arg, f.What())
	}
	found := Found{Arg: arg, How: ByFile, Plan: f.Plan, Files: []string{arg}}
	if f.Run != nil {
		found.Runs = []*result.Run{f.Run}
	}
	if f.Sweep != nil {
		sw := Sweep{Sweep: f.Sweep}
		for _, st := range f.Sweep.Steps {
			if st.Result == "" {
				continue
			}
			r, p, err := ReadRun(st.Result, filepath.Join(filepath.Dir(arg), filepath.Base(st.Result)))
			if p != "" {
				found.Files = append(found.Files, p)
			}
			if err != nil {
				return Found{}, fmt.Errorf("%s: %w", d.Verb, err)
			}
			sw.Runs = append(sw.Runs, r)
		}
		found.Sweeps = []Sweep{sw}
	}
	return found, nil
}

// Catalog returns the catalog, opening it for arg, the first argument that
// is not a file. A location it cannot use is ErrUsage, and so is none.
func (d *Door) Catalog(ctx context.Context, arg string) (*history.Catalog, error) {
	if d.cat != nil {
		return d.cat, nil
	}
	if d.DSN == "" {
		if d.NoCatalog != "" {
			return nil, usage{errors.New(d.NoCatalog)}
		}
		return nil, usagef("%s: %q is not a file, and there is no history catalog to look it up in: give --history, or set RIGHTSIZE_HISTORY, XDG_DATA_HOME or HOME", d.Verb, arg)
	}
	cat, err := history.Open(ctx, d.DSN, d.Getenv)
	if errors.Is(err, history.ErrBadDSN) {
		return nil, usage{err}
	}
	if err != nil {
		return nil, err
	}
	d.cat = cat
	return cat, nil
}

// Resolve finds the run or sweep key names in the catalog: a key, a
// unique prefix of one, or a key as history list elides it.
func (d *Door) Resolve(ctx context.Context, key string) (*history.Catalog, history.Ref, error) {
	cat, err := d.Catalog(ctx, key)
	if err != nil {
		return nil, history.Ref{}, err
	}
	ref, err := resolveKey(ctx, cat, key)
	return cat, ref, err
}

// notFound is the message of an argument that is neither a file nor
// anything in the catalog (err: why resolveKey found no key).
func (d *Door) notFound(cat *history.Catalog, arg string, err error) error {
	if d.Takes == Runs {
		return fmt.Errorf("%s: %q is not a result file, a run's key or a label in %s: %w", d.Verb, arg, cat, err)
	}
	const what = "%s: %q is not a file, nor a run's or sweep's key (or a unique prefix of one), nor a configuration (--config) in the history catalog %s"
	switch {
	case errors.Is(err, history.ErrNotFound):
		return usagef(what, d.Verb, arg, cat)
	case errors.Is(err, history.ErrAmbiguous):
		return usagef(what+": %w", d.Verb, arg, cat, err)
	}
	return err
}

// loadKey reads the run or sweep ref names.
func (d *Door) loadKey(ctx context.Context, cat *history.Catalog, arg string, ref history.Ref) (Found, error) {
	f := Found{Arg: arg, How: ByKey, Key: ref.Key}
	if ref.Kind == history.KindSweep {
		if d.Takes == Runs {
			return Found{}, usagef("%s: %s is a sweep; compare runs (its steps' keys: history show %s)", d.Verb, ref.Key, ref.Key)
		}
		sw, err := d.catalogSweep(ctx, cat, ref.Key, &f.Files)
		if err != nil {
			return Found{}, err
		}
		f.Sweeps = []Sweep{sw}
		return f, nil
	}
	r, err := d.catalogRun(ctx, cat, ref.Key)
	if err != nil {
		return Found{}, err
	}
	f.Runs = []*result.Run{r}
	return f, nil
}

// catalogRun reads the run of key from the catalog, upgraded.
func (d *Door) catalogRun(ctx context.Context, cat *history.Catalog, key string) (*result.Run, error) {
	r, _, err := Get(ctx, cat, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Verb, err)
	}
	return r, nil
}

// catalogSweep reads the sweep of key from the catalog with its steps'
// runs as the catalog holds them (so that it does not matter where the
// files went); a step the catalog has no run of is read from its result
// file, where the sweep recorded it or beside the sweep's file (added to
// files).
func (d *Door) catalogSweep(ctx context.Context, cat *history.Catalog, key string, files *[]string) (Sweep, error) {
	sw, e, err := cat.GetSweep(ctx, key)
	if err != nil {
		return Sweep{}, fmt.Errorf("%s: %w", d.Verb, err)
	}
	if len(sw.Steps) == 0 { // as DecodeSweep refuses a file of none
		return Sweep{}, fmt.Errorf("%s: sweep %s: %w", d.Verb, key, ErrNoSteps)
	}
	steps, err := SweepRuns(ctx, cat, sw)
	if err != nil {
		return Sweep{}, fmt.Errorf("%s: %w", d.Verb, err)
	}
	out := Sweep{Sweep: sw}
	for _, st := range sw.Steps {
		r, err := d.stepRun(ctx, cat, st, steps, e.Path, files)
		if err != nil {
			return Sweep{}, err
		}
		if r != nil {
			out.Runs = append(out.Runs, r)
		}
	}
	return out, nil
}

// stepRun is a catalog sweep's step's run: the catalog's (steps), else its
// result file's (nil when it has none).
func (d *Door) stepRun(ctx context.Context, cat *history.Catalog, st result.SweepStep, steps []history.Entry, sweepPath string, files *[]string) (*result.Run, error) {
	for _, s := range steps {
		if s.SweepStep == st.Label {
			return d.catalogRun(ctx, cat, s.Key)
		}
	}
	if st.Result == "" {
		return nil, nil
	}
	paths := []string{st.Result}
	if sweepPath != "" {
		paths = append(paths, filepath.Join(filepath.Dir(sweepPath), filepath.Base(st.Result)))
	}
	r, p, err := ReadRun(paths...)
	if p != "" {
		*files = append(*files, p)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Verb, err)
	}
	return r, nil
}

// SweepRuns returns the catalog's runs of the sweep sw's steps, oldest
// first (the sweep's order).
func SweepRuns(ctx context.Context, cat *history.Catalog, sw *result.Sweep) ([]history.Entry, error) {
	es, err := cat.List(ctx, history.Filter{Workload: sw.Workload})
	if err != nil {
		return nil, err
	}
	var steps []history.Entry
	for i := len(es) - 1; i >= 0; i-- { // List is newest first
		if es[i].SweepID == sw.ID {
			steps = append(steps, es[i])
		}
	}
	return steps, nil
}

// Get reads the run of key from the catalog with its entry, upgraded.
func Get(ctx context.Context, cat *history.Catalog, key string) (*result.Run, history.Entry, error) {
	r, e, err := cat.Get(ctx, key)
	if err != nil {
		return nil, e, err
	}
	upgrade(r)
	return r, e, nil
}

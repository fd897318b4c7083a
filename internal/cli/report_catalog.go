package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// reportCatalog is the history catalog report looks up the arguments that
// are not files in: opened the first time one is (a report of files opens
// none), closed by close.
type reportCatalog struct {
	env  *Env
	flag string // --history
	cat  *history.Catalog
}

// open returns the catalog, opening it for arg, the first argument that is
// not a file.
func (rc *reportCatalog) open(ctx context.Context, arg string) (*history.Catalog, error) {
	if rc.cat != nil {
		return rc.cat, nil
	}
	dsn := historyDSN(rc.env, rc.flag)
	if dsn == "" {
		return nil, usagef("report: %q is not a file, and there is no history catalog to look it up in: give --history, or set RIGHTSIZE_HISTORY, XDG_DATA_HOME or HOME", arg)
	}
	cat, err := openCatalog(ctx, rc.env, dsn)
	if err != nil {
		return nil, wrapRun(err)
	}
	rc.cat = cat
	return cat, nil
}

func (rc *reportCatalog) close() {
	if rc.cat != nil {
		rc.cat.Close()
	}
}

// loadArgs reads what each argument names: a file as loadFiles does; else,
// from the history catalog, the run or sweep of that key (or unique key
// prefix), or the sweeps of that configuration (--config), or its runs
// when it has no sweep. A missing file that ends in .json is a missing file
// (no key has a '.'), not looked up.
func loadArgs(ctx context.Context, rc *reportCatalog, args []string) (loaded, error) {
	var l loaded
	for _, a := range args {
		l.arg = a
		var err error
		if _, serr := os.Stat(a); serr == nil || !errors.Is(serr, fs.ErrNotExist) || strings.HasSuffix(a, ".json") {
			err = l.addFile(a)
		} else {
			err = l.addFromCatalog(ctx, rc, a)
		}
		if err != nil {
			return l, err
		}
	}
	l.finish()
	return l, nil
}

// addFromCatalog loads what the catalog holds under arg: the run or sweep
// of exactly that key, else the configuration of that name, else the run or
// sweep whose key arg uniquely prefixes.
func (l *loaded) addFromCatalog(ctx context.Context, rc *reportCatalog, arg string) error {
	cat, err := rc.open(ctx, arg)
	if err != nil {
		return err
	}
	has, err := cat.Has(ctx, arg)
	if err != nil {
		return wrapRun(err)
	}
	if !has && arg != "" { // an empty Filter.Config would match every run
		n, err := l.addConfig(ctx, cat, arg)
		if err != nil || n > 0 {
			return err
		}
	}
	ref, err := resolveKey(ctx, cat, arg) // a key as history list elides it, too
	switch {
	case errors.Is(err, history.ErrNotFound):
		return usagef("report: %q is not a file, nor a run's or sweep's key (or a unique prefix of one), nor a configuration (--config) in the history catalog %s", arg, cat)
	case errors.Is(err, history.ErrAmbiguous):
		return usagef("report: %q is not a file, nor a run's or sweep's key (or a unique prefix of one), nor a configuration (--config) in the history catalog %s: %w", arg, cat, err)
	case err != nil:
		return wrapRun(err)
	}
	if ref.Kind == history.KindSweep {
		cf, err := l.catalogSweep(ctx, cat, ref.Key)
		if err != nil {
			return err
		}
		return l.addSweep(cf)
	}
	r, err := catalogRun(ctx, cat, ref.Key)
	if err != nil {
		return err
	}
	return l.addRun(r)
}

// addConfig loads a configuration's sweeps, oldest first: every sweep whose
// steps' runs carry that --config (several are repeated runs of it); when
// none has, its runs. It returns how many sweeps or runs it loaded.
func (l *loaded) addConfig(ctx context.Context, cat *history.Catalog, name string) (int, error) {
	es, err := cat.List(ctx, history.Filter{Config: name})
	if err != nil {
		return 0, wrapRun(err)
	}
	slices.Reverse(es) // List is newest first
	var sweeps, runs []string
	for _, e := range es {
		if e.SweepID == "" {
			runs = append(runs, e.Key)
			continue
		}
		// A step's run has its sweep's id and workload, all its key is made of.
		key := history.SweepKey(&result.Sweep{ID: e.SweepID, Workload: e.Workload})
		if slices.Contains(sweeps, key) {
			continue
		}
		has, err := cat.Has(ctx, key)
		if err != nil {
			return 0, wrapRun(err)
		}
		if has {
			sweeps = append(sweeps, key)
		} else { // the sweep was deleted: its runs are kept, on their own
			runs = append(runs, e.Key)
		}
	}
	if len(sweeps) > 0 {
		for _, k := range sweeps {
			cf, err := l.catalogSweep(ctx, cat, k)
			if err != nil {
				return 0, err
			}
			if err := l.addSweep(cf); err != nil {
				return 0, err
			}
		}
		return len(sweeps), nil
	}
	for _, k := range runs {
		r, err := catalogRun(ctx, cat, k)
		if err != nil {
			return 0, err
		}
		if err := l.addRun(r); err != nil {
			return 0, err
		}
	}
	return len(runs), nil
}

// catalogSweep loads the sweep of key from the catalog, analysed as
// loadSweep does, with its steps' runs as the catalog holds them (so that
// it does not matter where the files went); a step the catalog has no run
// of is read from its result file, as loadSweep reads it.
func (l *loaded) catalogSweep(ctx context.Context, cat *history.Catalog, key string) (analysis.Config, error) {
	sw, e, err := cat.GetSweep(ctx, key)
	if err != nil {
		return analysis.Config{}, wrapRun(fmt.Errorf("report: %w", err))
	}
	if len(sw.Steps) == 0 { // as decodeSweep refuses a file of none
		return analysis.Config{}, runError{fmt.Errorf("report: sweep %s: %w", key, errNoSteps)}
	}
	steps, err := sweepRuns(ctx, cat, sw)
	if err != nil {
		return analysis.Config{}, wrapRun(fmt.Errorf("report: %w", err))
	}
	return analyseSweep(sw, func(st result.SweepStep) (*result.Run, error) {
		for _, s := range steps {
			if s.SweepStep == st.Label {
				return catalogRun(ctx, cat, s.Key)
			}
		}
		if st.Result == "" {
			return nil, nil
		}
		paths := []string{st.Result}
		if e.Path != "" {
			paths = append(paths, filepath.Join(filepath.Dir(e.Path), filepath.Base(st.Result)))
		}
		return l.readRun(paths...)
	})
}

// catalogRun loads the run of key from the catalog, upgraded as readRun
// upgrades a file's.
func catalogRun(ctx context.Context, cat *history.Catalog, key string) (*result.Run, error) {
	r, _, err := cat.Get(ctx, key)
	if err != nil {
		return nil, wrapRun(fmt.Errorf("report: %w", err))
	}
	all.Upgrade(r)
	return r, nil
}

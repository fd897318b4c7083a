package stored

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/result"
)

// loadNamed reads what a name (not a key) names in the catalog: a
// configuration's sweeps or runs (Measurements), or a label's runs (Runs).
// Nothing found is no error: the name may still prefix a key.
func (d *Door) loadNamed(ctx context.Context, cat *history.Catalog, name string) (Found, error) {
	if d.Takes == Runs {
		return d.loadLabel(ctx, cat, name)
	}
	return d.loadConfig(ctx, cat, name)
}

// loadLabel reads the runs labelled name, as repeated runs of one
// configuration.
func (d *Door) loadLabel(ctx context.Context, cat *history.Catalog, name string) (Found, error) {
	es, err := cat.List(ctx, history.Filter{Label: name})
	if err != nil {
		return Found{}, err
	}
	f := Found{Arg: name, How: ByLabel}
	for _, e := range es {
		r, err := d.catalogRun(ctx, cat, e.Key)
		if err != nil {
			return Found{}, err
		}
		f.Runs = append(f.Runs, r)
	}
	return f, nil
}

// loadConfig reads a configuration's sweeps, oldest first: every sweep
// whose steps' runs carry that --config (several are repeated runs of it);
// when none has, its runs.
func (d *Door) loadConfig(ctx context.Context, cat *history.Catalog, name string) (Found, error) {
	es, err := cat.List(ctx, history.Filter{Config: name})
	if err != nil {
		return Found{}, err
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
			return Found{}, err
		}
		if has {
			sweeps = append(sweeps, key)
		} else { // the sweep was deleted: its runs are kept, on their own
			runs = append(runs, e.Key)
		}
	}
	f := Found{Arg: name, How: ByConfig}
	for _, k := range sweeps {
		sw, err := d.catalogSweep(ctx, cat, k, &f.Files)
		if err != nil {
			return Found{}, err
		}
		f.Sweeps = append(f.Sweeps, sw)
	}
	if len(sweeps) > 0 {
		return f, nil
	}
	for _, k := range runs {
		r, err := d.catalogRun(ctx, cat, k)
		if err != nil {
			return Found{}, err
		}
		f.Runs = append(f.Runs, r)
	}
	return f, nil
}

// resolveKey finds the run or sweep key names: a key or a unique prefix of
// one (Catalog.Resolve), or a key as history list elides it, "HEAD…TAIL":
// the one key that starts with HEAD and ends with TAIL.
func resolveKey(ctx context.Context, cat *history.Catalog, key string) (history.Ref, error) {
	head, tail, elided := strings.Cut(key, "…")
	if !elided || head == "" {
		return cat.Resolve(ctx, key)
	}
	keys, err := CatalogKeys(ctx, cat)
	if err != nil {
		return history.Ref{}, err
	}
	found := ElidedMatches(keys, head, tail)
	switch len(found) {
	case 0:
		return history.Ref{}, fmt.Errorf("%w: no key starts with %q and ends with %q", history.ErrNotFound, head, tail)
	case 1:
		return found[0], nil
	}
	return history.Ref{}, fmt.Errorf("%w: %d keys start with %q and end with %q (history list --wide shows them whole)", history.ErrAmbiguous, len(found), head, tail)
}

// CatalogKeys are the keys of every run and sweep in the catalog.
func CatalogKeys(ctx context.Context, cat *history.Catalog) ([]history.Ref, error) {
	runs, err := cat.List(ctx, history.Filter{})
	if err != nil {
		return nil, err
	}
	sweeps, err := cat.ListSweeps(ctx, history.Filter{})
	if err != nil {
		return nil, err
	}
	refs := make([]history.Ref, 0, len(runs)+len(sweeps))
	for _, e := range runs {
		refs = append(refs, history.Ref{Kind: history.KindRun, Key: e.Key})
	}
	for _, s := range sweeps {
		refs = append(refs, history.Ref{Kind: history.KindSweep, Key: s.Key})
	}
	return refs, nil
}

// ElidedMatches are the keys "HEAD…TAIL" names: those that start with
// head and end with tail (apart).
func ElidedMatches(keys []history.Ref, head, tail string) []history.Ref {
	var found []history.Ref
	for _, k := range keys {
		if len(k.Key) >= len(head)+len(tail) && strings.HasPrefix(k.Key, head) && strings.HasSuffix(k.Key, tail) {
			found = append(found, k)
		}
	}
	return found
}

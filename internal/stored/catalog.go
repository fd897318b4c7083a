package stored

import (
	"context"
	"fmt"
	"io"

	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/merge"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
)

// Filter selects the runs and sweeps history list shows (history.Filter).
type Filter = history.Filter

// CheckCatalog checks a catalog location without opening it: one it
// cannot use is ErrUsage (history.Validate).
func CheckCatalog(dsn string, getenv func(string) string) error {
	if err := history.Validate(dsn, getenv); err != nil {
		return usage{err}
	}
	return nil
}

// resolve opens the catalog and finds the run or sweep a key or unique
// prefix names. A catalog it cannot open for the key is ErrUsage or not as
// Catalog says; a key it does not find is never ErrUsage.
func (d *Door) resolve(ctx context.Context, key string) (*history.Catalog, history.Ref, error) {
	if _, err := d.Catalog(ctx, key); err != nil {
		return nil, history.Ref{}, err
	}
	cat, ref, err := d.Resolve(ctx, key)
	if err != nil {
		return nil, ref, fmt.Errorf("%s: %w", d.Verb, err)
	}
	return cat, ref, nil
}

// Show writes the summary of the run, or the report of the sweep, that key
// (or a unique prefix of one) names in the catalog (history show).
func (d *Door) Show(ctx context.Context, w io.Writer, key string) error {
	cat, ref, err := d.resolve(ctx, key)
	if err != nil {
		return err
	}
	if ref.Kind == history.KindSweep {
		sw, err := ShowSweep(ctx, cat, ref.Key)
		if err != nil {
			return err
		}
		return report.WriteShownSweep(w, sw)
	}
	r, err := ShowRun(ctx, cat, ref.Key)
	if err != nil {
		return err
	}
	return report.WriteShownRun(w, r)
}

// Delete deletes the run or sweep that key (or a unique prefix of one)
// names from the catalog, a sweep's runs kept, and says so on w (history
// delete).
func (d *Door) Delete(ctx context.Context, w io.Writer, key string) error {
	cat, ref, err := d.resolve(ctx, key)
	if err != nil {
		return err
	}
	if err := cat.Delete(ctx, ref.Key); err != nil {
		return err
	}
	if ref.Kind == history.KindSweep {
		fmt.Fprintf(w, "deleted sweep %s (the runs of its steps are kept)\n", ref.Key)
	} else {
		fmt.Fprintf(w, "deleted run %s\n", ref.Key)
	}
	return nil
}

// Import records the result or sweep file at path in cat, as it was
// written (not upgraded), unless the catalog holds it already, and says
// which on w (history import).
func Import(ctx context.Context, w io.Writer, cat *history.Catalog, path string) error {
	f, err := ReadAsWritten(path)
	if err != nil {
		return err
	}
	if f.Plan != nil {
		return fmt.Errorf("%s is a plan: import result and sweep files", path)
	}
	r, sw := f.Run, f.Sweep
	kind, key := "run", ""
	if sw != nil {
		kind, key = "sweep", history.SweepKey(sw)
	} else {
		key = history.Key(r)
	}
	has, err := cat.Has(ctx, key)
	if err != nil {
		return err
	}
	if has {
		fmt.Fprintf(w, "already in the catalog: %s %s (%s)\n", kind, key, path)
		return nil
	}
	if sw != nil {
		err = cat.RecordSweep(ctx, sw, session.AbsPath(path))
	} else {
		err = cat.Record(ctx, r, session.AbsPath(path))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "imported %s %s (%s)\n", kind, key, path)
	return nil
}

// Merge merges the results of a distributed run's shards (merge.Merge):
// those of the run recorded in the catalog at dsn (runID given; getenv is
// the environment its location may use), or the files at paths, as they
// were written. It returns the merged result and notes on it.
func Merge(ctx context.Context, dsn string, getenv func(string) string, runID string, paths []string) (*result.Run, []string, error) {
	shards, err := readShards(ctx, dsn, getenv, runID, paths)
	if err != nil {
		return nil, nil, err
	}
	return merge.Merge(shards)
}

// readShards reads the shards' results for Merge.
func readShards(ctx context.Context, dsn string, getenv func(string) string, runID string, paths []string) ([]*result.Run, error) {
	var shards []*result.Run
	if runID != "" {
		cat, err := history.Open(ctx, dsn, getenv)
		if err != nil {
			return nil, err
		}
		shards, err = cat.ShardResults(ctx, runID)
		cat.Close()
		if err != nil {
			return nil, err
		}
		if len(shards) == 0 {
			return nil, fmt.Errorf("merge: no shard of run %s in %s", runID, history.Redact(dsn))
		}
	}
	for _, p := range paths {
		f, err := ReadAsWritten(p) // the shards as they were written
		if err == nil && f.Run == nil {
			err = fmt.Errorf("%s is a %s, not a shard's result", p, f.What())
		}
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		shards = append(shards, f.Run)
	}
	return shards, nil
}

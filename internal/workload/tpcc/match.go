package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// Match compares the database with --warehouses (InstanceHooks.Match): missing
// tables, or more warehouses than the database holds, cannot run
// (ErrMissingTables, even with --force); fewer run on warehouses 1..W, with
// a note; a load whose records in rightsize_objects say it did not finish
// (an interrupted prepare) is a mismatch. A load by another tool has no
// records: its warehouses are counted.
func (in *instance) Match(ctx context.Context) ([]string, error) {
	return tables.Match(ctx, &in.Base, func(ctx context.Context, c dialect.Conn) (notes, problems []string, err error) {
		if err := in.checkTables(ctx, c); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", in.Target, err)
		}
		note, err := in.checkWarehouses(ctx, c)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", in.Target, err)
		}
		if note != "" {
			notes = append(notes, note)
		}
		found, err := tables.Survey(ctx, c, tableSet.Names())
		if err != nil {
			return notes, nil, fmt.Errorf("%s: %w", in.Target, err)
		}
		var unfinished []string
		for _, f := range found {
			var m loadMeta
			f.Decode(&m)
			if f.Owned && !m.Loaded {
				unfinished = append(unfinished, f.Name)
			}
		}
		if len(unfinished) > 0 {
			problems = append(problems, fmt.Sprintf("the TPC-C load did not finish (%s: prepare was interrupted)", strings.Join(unfinished, ", ")))
		}
		return notes, problems, nil
	})
}

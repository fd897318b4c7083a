package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

var _ workload.Matcher = (*instance)(nil)

// Match compares the database with --warehouses (workload.Matcher): missing
// tables, or more warehouses than the database holds, cannot run
// (ErrMissingTables, even with --force); fewer run on warehouses 1..W, with
// a note; a load whose records in rightsize_objects say it did not finish
// (an interrupted prepare) is a mismatch. A load by another tool has no
// records: its warehouses are counted.
func (in *instance) Match(ctx context.Context) ([]string, error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Target, err)
	}
	defer c.Close()
	if err := in.checkTables(ctx, c); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Target, err)
	}
	note, err := in.checkWarehouses(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Target, err)
	}
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	hasMeta, err := objects.Exists(ctx, c)
	if err != nil || !hasMeta {
		return notes, err
	}
	var unfinished []string
	for i := range tables {
		var m loadMeta
		owned, err := objects.Read(ctx, c, tables[i].name, &m)
		if err != nil {
			return notes, fmt.Errorf("%s: read %s: %w", in.Target, objects.Table, err)
		}
		if owned && !m.Loaded {
			unfinished = append(unfinished, tables[i].name)
		}
	}
	if len(unfinished) > 0 {
		msg := fmt.Sprintf("the TPC-C load did not finish (%s: prepare was interrupted)", strings.Join(unfinished, ", "))
		in.Note(msg + " (run with --force)")
		return notes, workload.Mismatchf("%s: %s", in.Target, msg)
	}
	return notes, nil
}

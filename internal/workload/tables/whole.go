package tables

import (
	"context"
	"fmt"
	"github.com/rightsize/rightsize/internal/sqltext"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// Differ says how a table's record differs from what the options ask
// ("holds 100 rows, --table-size asks 1,000"), or "" when it does not.
type Differ func(f Found) string

// Whole is the Decider of a Set whose tables are each loaded whole by one
// unit, units[i] loading s.Tables[i]: what most workloads need. A table
// rightsize recorded as loaded, of which differ says nothing and that holds
// its unit's rows, is kept; the others are created, or dropped and loaded
// again, and prepare says why. fresh returns the record of a table this
// prepare creates (what it is loaded with).
func Whole(units []Unit, fresh func() Record, differ Differ) Decider {
	return func(ctx context.Context, c dialect.Conn, found []Found, p workload.Progress) (*Work, error) {
		pl := &Work{Parts: 1, Tables: make([]Decision, len(found)), Units: units}
		for i, f := range found {
			pl.Tables[i] = Decision{Recreate: true, Record: fresh()}
			why, rows, err := judgeWhole(ctx, c, f, units[i].Rows, differ)
			if err != nil {
				return nil, err
			}
			if why == "" {
				pl.Tables[i] = Decision{Record: fresh(), Done: []bool{true}}
				f.Decode(pl.Tables[i].Record)
				p.Message(fmt.Sprintf("%s: already loaded with %d rows, kept", f.Name, rows))
			} else if why != created {
				p.Message("table " + f.Name + " " + why + ": dropping and loading again")
			}
		}
		return pl, nil
	}
}

// created is judgeWhole's answer for a table that does not exist.
const created = "-"

// judgeWhole says why table f is loaded again ("" to keep it, created when
// it does not exist); rows is what a kept table holds.
func judgeWhole(ctx context.Context, c dialect.Conn, f Found, want int64, differ Differ) (why string, rows int64, err error) {
	var st State
	f.Decode(&st)
	switch {
	case !f.Exists:
		return created, 0, nil
	case !f.Owned:
		return "was not created by rightsize (--force)", 0, nil
	case !st.Loaded:
		return "was not fully loaded (an interrupted prepare)", 0, nil
	}
	if d := differ(f); d != "" {
		return d, 0, nil
	}
	if err := c.QueryRow(ctx, sqltext.Own+"SELECT COUNT(*) FROM "+f.Name, nil, &rows); err != nil {
		return "", 0, fmt.Errorf("count %s: %w", f.Name, err)
	}
	if rows != want {
		return "holds " + workload.Thousands(rows) + " rows, " + workload.Thousands(want) + " were loaded", 0, nil
	}
	return "", rows, nil
}

// CompareWhole is the Comparer of tables loaded whole (Match): a missing
// table cannot run (workload.ErrNotPrepared, even with --force); a table
// whose load did not finish, or of which differ says something, is a
// mismatch; a table without a record (made by another tool) is a note.
func CompareWhole(in *dbtarget.Base, s *Set, differ Differ) Comparer {
	return func(ctx context.Context, c dialect.Conn) (notes, problems []string, err error) {
		found, err := Survey(ctx, c, s.Names())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", in.Target, err)
		}
		var missing []string
		for _, f := range found {
			var st State
			f.Decode(&st)
			switch {
			case !f.Exists:
				missing = append(missing, f.Name)
			case !f.Owned:
				notes = append(notes, "table "+f.Name+" has no record in rightsize_objects (made by another tool, or by hand): its rows are used as they are")
			case !st.Loaded:
				problems = append(problems, "table "+f.Name+" was not fully loaded (prepare was interrupted)")
			default:
				if d := differ(f); d != "" {
					problems = append(problems, "table "+f.Name+" "+d)
				}
			}
		}
		if len(missing) > 0 {
			return nil, nil, fmt.Errorf("%s: %w: missing tables %s (run prepare %s first)",
				in.Target, workload.ErrNotPrepared, strings.Join(missing, ", "), s.Workload)
		}
		return notes, problems, nil
	}
}

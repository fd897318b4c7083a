package tables

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// Table is one table a workload declares.
type Table struct {
	Name string
	// Create returns the CREATE TABLE statement the dialect gets. What
	// differs between databases (an auto-increment key, table options) is
	// asked of the dialect, never decided by its name.
	Create func(d dialect.Dialect) string
	// Columns are the columns a load fills, in the order a row source
	// yields them.
	Columns []string
	// Indexes are the CREATE INDEX statements run once the table's rows
	// are complete (faster than maintaining them during the load).
	Indexes []string
	// PartColumn is the column that holds a unit's part (TPC-C's warehouse
	// id): the rows of an interrupted unit are deleted by it. "" means the
	// table is loaded whole, by one unit of part 0.
	PartColumn string
}

// Set is a workload's tables on one target, declared for the options it was
// opened with.
type Set struct {
	// Workload is what rightsize_objects records as the tables' maker.
	Workload string
	Tables   []Table
	// Loaders is the number of parallel loaders when prepare is not given
	// --threads (one on a single-writer database).
	Loaders int
	// Analyze brings each table's statistics up to date once every table
	// is loaded, where the dialect is a dialect.Analyzer.
	Analyze bool
}

// Names returns the tables' names in declaration order.
func (s *Set) Names() []string {
	out := make([]string, len(s.Tables))
	for i := range s.Tables {
		out[i] = s.Tables[i].Name
	}
	return out
}

// State is what the shared routine records of a table in rightsize_objects,
// beside the workload's own fields: a workload's record embeds it.
type State struct {
	// Done lists the parts whose rows are complete, as ranges ("1-8,10");
	// "0" for a table loaded whole.
	Done     string `json:"done"`
	Indexing bool   `json:"indexing,omitempty"` // secondary indexes being created
	Loaded   bool   `json:"loaded"`             // every row loaded, indexed and analyzed
	// Indexed: the table has its secondary indexes while it is not yet
	// Loaded: rows are still to load (it is growing to more parts), or it
	// waits for the analyze at the end of the load. Finishing it creates
	// none.
	Indexed bool `json:"indexed,omitempty"`
}

// Record is a workload's record of one table: its own fields (what the
// table was loaded with) and the embedded State.
type Record interface {
	TableState() *State
}

// TableState makes a State, and a record embedding it, a Record.
func (s *State) TableState() *State { return s }

// Found is what a survey found of one table, before anything is changed.
type Found struct {
	Name   string
	Exists bool
	Owned  bool // recorded in rightsize_objects
	raw    json.RawMessage
}

// Decode reads the table's record into v (a workload's record). A record
// that does not decode leaves v as it was: owned, and not loaded.
func (f Found) Decode(v any) {
	if len(f.raw) > 0 {
		_ = json.Unmarshal(f.raw, v)
	}
}

// Survey reports, for each table named, whether it exists and whether
// rightsize_objects records it as rightsize's. It changes nothing.
func Survey(ctx context.Context, c dialect.Conn, names []string) ([]Found, error) {
	hasMeta, err := objects.Exists(ctx, c)
	if err != nil {
		return nil, err
	}
	found := make([]Found, len(names))
	for i, name := range names {
		f := &found[i]
		f.Name = name
		if f.Exists, err = c.TableExists(ctx, name); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if hasMeta {
			if f.Owned, err = objects.Read(ctx, c, name, &f.raw); err != nil {
				return nil, fmt.Errorf("read %s: %w", objects.Table, err)
			}
		}
	}
	return found, nil
}

// refuseForeign returns the error that stops prepare before any change when
// tables exist that rightsize did not create, unless force.
func refuseForeign(found []Found, force bool) error {
	var foreign []string
	for _, f := range found {
		if f.Exists && !f.Owned && !force {
			foreign = append(foreign, f.Name)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	return fmt.Errorf("table(s) %s already exist and were %w (no row in %s); nothing was changed; use --force to drop and recreate them",
		strings.Join(foreign, ", "), objects.ErrNotOwned, objects.Table)
}

// Cleanup drops the tables named that rightsize_objects records, and their
// records; with force also unrecorded ones. It never drops anything else.
// Unrecorded tables left in place are reported in an error wrapping
// objects.ErrNotOwned, after everything else is done; rightsize_objects
// is dropped once it holds no record. removed lists the tables dropped.
func Cleanup(ctx context.Context, in *dbtarget.Base, names []string, force bool) (removed []string, err error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return removed, fmt.Errorf("%s: cleanup: %w", in.Target, err)
	}
	defer c.Close()
	hasMeta, err := objects.Exists(ctx, c)
	if err != nil {
		return removed, fmt.Errorf("%s: cleanup: %w", in.Target, err)
	}
	var left []string
	for _, name := range names {
		owned := false
		if hasMeta {
			var raw json.RawMessage
			if owned, err = objects.Read(ctx, c, name, &raw); err != nil {
				return removed, fmt.Errorf("%s: cleanup: read %s: %w", in.Target, objects.Table, err)
			}
		}
		exists, err := c.TableExists(ctx, name)
		if err != nil {
			return removed, fmt.Errorf("%s: cleanup: %s: %w", in.Target, name, err)
		}
		switch {
		case exists && (owned || force):
			if _, err := c.Exec(ctx, DropSQL(name)); err != nil {
				return removed, fmt.Errorf("%s: cleanup: drop %s: %w", in.Target, name, err)
			}
			removed = append(removed, name)
		case exists:
			left = append(left, name)
		}
		if owned {
			if err := objects.Delete(ctx, c, name); err != nil {
				return removed, fmt.Errorf("%s: cleanup: %s: %w", in.Target, objects.Table, err)
			}
		}
	}
	if hasMeta {
		if err := objects.DropIfEmpty(ctx, c); err != nil {
			return removed, fmt.Errorf("%s: cleanup: %s: %w", in.Target, objects.Table, err)
		}
	}
	if len(left) > 0 {
		return removed, fmt.Errorf("%s: cleanup: left %s in place: %w (no row in %s); use --force to drop them",
			in.Target, strings.Join(left, ", "), objects.ErrNotOwned, objects.Table)
	}
	return removed, nil
}

// DropSQL drops table name if it exists.
func DropSQL(name string) string { return "DROP TABLE IF EXISTS " + name }

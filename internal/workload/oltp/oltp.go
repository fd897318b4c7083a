package oltp

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// variant is one of sysbench's OLTP scripts.
type variant uint8

const (
	readWrite variant = iota
	readOnly
	writeOnly
	pointSelect
	updateIndex
	updateNonIndex
	insert
	deleteOnly
)

// variantDef describes a script: its name, help and the operations it can run
// (in the order a transaction runs them).
type variantDef struct {
	name  string
	short string
	ops   []op
	// about is the script-specific paragraph of Long.
	about string
}

var variants = [...]variantDef{
	readWrite: {
		name:  "oltp_read_write",
		short: "sysbench OLTP read/write transaction (10 point selects, 4 ranges, 2 updates, delete+insert)",
		ops:   []op{opBegin, opPointSelect, opSimpleRange, opSumRange, opOrderRange, opDistinctRange, opIndexUpdate, opNonIndexUpdate, opDelete, opInsert, opCommit},
		about: `One transaction (sysbench oltp_read_write.lua): BEGIN; --point-selects point
SELECTs; if --range-selects: --simple-ranges, --sum-ranges, --order-ranges and
--distinct-ranges range SELECTs over --range-size ids; --index-updates UPDATEs
of k; --non-index-updates UPDATEs of c; --delete-inserts DELETE + INSERT of the
same id; COMMIT. With the defaults: 14 reads, 4 writes, 2 other (BEGIN/COMMIT).`,
	},
	readOnly: {
		name:  "oltp_read_only",
		short: "sysbench OLTP read-only transaction (10 point selects, 4 range queries)",
		ops:   []op{opBegin, opPointSelect, opSimpleRange, opSumRange, opOrderRange, opDistinctRange, opCommit},
		about: `One transaction (sysbench oltp_read_only.lua): BEGIN; --point-selects point
SELECTs; if --range-selects: the four range SELECT groups; COMMIT. With the
defaults: 14 reads, 2 other.`,
	},
	writeOnly: {
		name:  "oltp_write_only",
		short: "sysbench OLTP write-only transaction (2 updates, delete+insert)",
		ops:   []op{opBegin, opIndexUpdate, opNonIndexUpdate, opDelete, opInsert, opCommit},
		about: `One transaction (sysbench oltp_write_only.lua): BEGIN; --index-updates,
--non-index-updates, --delete-inserts DELETE + INSERT pairs; COMMIT. With the
defaults: 4 writes, 2 other.`,
	},
	pointSelect: {
		name:  "oltp_point_select",
		short: "sysbench OLTP point select: one primary-key SELECT per event",
		ops:   []op{opPointSelect},
		about: `One event (sysbench oltp_point_select.lua): a single point SELECT, in
autocommit. As in sysbench, --point-selects is fixed at 1 for this script.`,
	},
	updateIndex: {
		name:  "oltp_update_index",
		short: "sysbench OLTP update index: UPDATE of the indexed column k",
		ops:   []op{opIndexUpdate},
		about: `One event (sysbench oltp_update_index.lua): --index-updates UPDATEs of the
indexed column k, in autocommit.`,
	},
	updateNonIndex: {
		name:  "oltp_update_non_index",
		short: "sysbench OLTP update non-index: UPDATE of the unindexed column c",
		ops:   []op{opNonIndexUpdate},
		about: `One event (sysbench oltp_update_non_index.lua): --non-index-updates UPDATEs
of the unindexed column c, in autocommit.`,
	},
	insert: {
		name:  "oltp_insert",
		short: "sysbench OLTP insert: one INSERT per event",
		ops:   []op{opInsert},
		about: `One event (sysbench oltp_insert.lua): one INSERT into a random table, in
autocommit. With --auto-inc (the default) the database numbers the row; without
it ids come from a sequence of unique scrambled 32-bit values shared by the
instance's VUs, and prepare creates empty tables (as sysbench does, so that
loaded ids cannot collide with generated ones). Unlike sysbench, the INSERT is
a prepared statement.`,
	},
	deleteOnly: {
		name:  "oltp_delete",
		short: "sysbench OLTP delete: one DELETE by primary key per event",
		ops:   []op{opDelete},
		about: `One event (sysbench oltp_delete.lua): one DELETE of a random id, in
autocommit. As in sysbench, nothing re-inserts the rows: over a long run the
table empties and more DELETEs find no row.`,
	},
}

// Workload is one of sysbench's OLTP scripts with its options. Flags bind to
// it; use one value per command line. Open copies the options, so an Instance
// is not affected by later changes.
type Workload struct {
	v   variant
	opt Options
}

var _ workload.Workload = (*Workload)(nil)

func newWorkload(v variant) *Workload { return &Workload{v: v, opt: DefaultOptions()} }

// NewReadWrite returns oltp_read_write with sysbench's defaults.
func NewReadWrite() *Workload { return newWorkload(readWrite) }

// NewReadOnly returns oltp_read_only with sysbench's defaults.
func NewReadOnly() *Workload { return newWorkload(readOnly) }

// NewWriteOnly returns oltp_write_only with sysbench's defaults.
func NewWriteOnly() *Workload { return newWorkload(writeOnly) }

// NewPointSelect returns oltp_point_select with sysbench's defaults.
func NewPointSelect() *Workload { return newWorkload(pointSelect) }

// NewUpdateIndex returns oltp_update_index with sysbench's defaults.
func NewUpdateIndex() *Workload { return newWorkload(updateIndex) }

// NewUpdateNonIndex returns oltp_update_non_index with sysbench's defaults.
func NewUpdateNonIndex() *Workload { return newWorkload(updateNonIndex) }

// NewInsert returns oltp_insert with sysbench's defaults.
func NewInsert() *Workload { return newWorkload(insert) }

// NewDelete returns oltp_delete with sysbench's defaults.
func NewDelete() *Workload { return newWorkload(deleteOnly) }

// Meta describes the script: its name (sysbench's, e.g. "oltp_read_write"),
// help, the statements it can run and its options.
func (w *Workload) Meta() workload.Meta {
	return workload.Meta{
		Name:    variants[w.v].name,
		Short:   variants[w.v].short,
		Long:    w.long(),
		Event:   "transaction",
		Ops:     w.ops(),
		Prepare: true,
		Options: workload.OptionsOf(Options{}),
	}
}

// long explains what the workload runs and why its defaults are what they are.
func (w *Workload) long() string {
	name := variants[w.v].name
	return variants[w.v].about + `

This is sysbench 1.0's ` + name + ` (src/lua/` + name + `.lua and
oltp_common.lua): the same tables, the same SQL in the same order, and its
options with their defaults, so results compare with published sysbench
figures. Not carried over: --secondary (id as a secondary index instead of the
primary key), --mysql-storage-engine (tables are InnoDB) and
--pgsql-variant. Added from sysbench 1.1: --create-table-options and the
zipfian --rand-type. As sysbench does, a transaction that fails with a
deadlock, serialization failure, lock wait timeout or (PostgreSQL) duplicate
key is run again: see --retry.

Tables: sbtest1..--tables, each (id INTEGER primary key, k INTEGER, c CHAR(120),
pad CHAR(60)) with --table-size rows, and the index k_N on k created after the
load. c and pad are groups of 11 random digits joined by '-' (119 and 59
characters); k is drawn from --rand-type over [1, --table-size].

Each statement group picks its table uniformly from 1..--tables, as sysbench's
execute_* functions do (so one transaction can touch several tables); ids come
from --rand-type over [1, --table-size], ranges span --range-size ids. Every
statement is prepared once per table per virtual user; BEGIN and COMMIT are
counted as 'other', SELECTs as reads, UPDATE/DELETE/INSERT as writes.

--rand-type defaults to 'special', sysbench 1.0's default, so that a default
run hits the same hot spot as a default sysbench 1.0 run: 75 % of the ids fall
in 1 % of the table, the rest are bell-shaped over the whole table. That keeps
the working set small (cache-friendly, more row-lock contention on writes).
sysbench 1.1 changed its default to uniform and dropped 'special'; pass
--rand-type=uniform to compare with it or to spread the load over the table.

prepare records the tables it creates in rightsize_objects; it refuses to touch
sbtest tables it did not create unless --force, skips tables already fully
loaded (so an interrupted prepare can be re-run), and loads tables in parallel.
cleanup drops only recorded tables (and unrecorded sbtest tables with --force),
then a database prepare created (numbered by --instances, say) once it holds
nothing else.
Tables made by sysbench itself can be used by run as they are. A prepare that
loads a recorded table again says why (e.g. "tables sbtest1..sbtest4 hold
10,000 rows each, --table-size asks 1,000,000: dropping and loading again").

run compares the tables with its options before the first virtual user: a
table recorded with another --table-size, or whose prepare did not finish, is
refused (exit 1) with a message naming both values, unless --force; more
--tables than exist are refused as missing, even with --force; fewer are
allowed, as in sysbench (the run uses sbtest1..N). Tables without a record
(made by sysbench) are never refused: their highest id, which sysbench's
prepare makes --table-size, is compared instead and a difference is a note.
oltp_insert only adds rows: its tables' size is not compared.

On SQLite, writing transactions start with BEGIN IMMEDIATE (SQLite has one
writer at a time; write throughput does not grow with virtual users).`
}

// BindFlags registers sysbench's OLTP options on fs.
func (w *Workload) BindFlags(fs *pflag.FlagSet) { w.opt.bind(fs) }

// Validate checks the options and returns every problem at once.
func (w *Workload) Validate() error { return w.effective().Validate() }

// effective returns the options as the script runs them (oltp_point_select
// forces one point select per event).
func (w *Workload) effective() Options {
	o := w.opt
	if w.v == pointSelect {
		o.PointSelects = 1
	}
	return o
}

// Options returns the effective options (Options: the result records them
// keyed by flag name).
func (w *Workload) Options() any { return w.effective() }

// ops lists the statements this script can run, in the order a transaction
// runs them. The list does not depend on the options: a statement disabled by
// an option is simply never reported.
func (w *Workload) ops() []workload.Op {
	ops := variants[w.v].ops
	out := make([]workload.Op, len(ops))
	for i, o := range ops {
		out[i] = workload.Op{Name: opDefs[o].name, Kind: opDefs[o].kind}
	}
	return out
}

// DefaultTarget is the target of instance index when --target is empty: a
// SQLite file under ./rightsize-data.
func DefaultTarget(index int) string { return dbtarget.DefaultSQLite("sbtest", index) }

// Hooks: databases numbered by --instances.
func (w *Workload) Hooks() workload.Hooks { return workload.Hooks{NumberTargets: w.NumberTargets} }

// NumberTargets derives n targets from raw for --instances (dbtarget.Number).
func (w *Workload) NumberTargets(raw string, n int) ([]string, error) {
	return dbtarget.Number(raw, "sbtest", n)
}

// ParseTarget parses a database URL (any scheme in dialect/all); an empty raw
// means DefaultTarget(o.Index).
func (w *Workload) ParseTarget(raw string, o workload.TargetOptions) (workload.Target, error) {
	return dbtarget.ParseFor(raw, "sbtest", o, w.open)
}

// open binds the workload to the target. It does not connect: prepare may
// first have to create the database.
func (w *Workload) open(_ context.Context, tg *dbtarget.DB) (workload.Instance, error) {
	o := w.effective()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", variants[w.v].name, err)
	}
	return newInstance(w.v, o, tg)
}

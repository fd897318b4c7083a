package randompoints

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// Name is the workload's name on the command line, sysbench's script name.
const Name = "select_random_points"

// Workload is select_random_points with its options. Flags bind to it; use
// one value per command line. Open copies the options.
type Workload struct{ o Options }

// Options are sysbench's for this script (oltp_common.lua's --table-size,
// select_random_points.lua's --random-points), with its defaults.
type Options struct {
	TableSize    int64 `json:"table-size" data:"true"` // --table-size: rows in sbtest1
	RandomPoints int   `json:"random-points"`          // --random-points: values in the IN() list
}

var (
	_ workload.Workload = (*Workload)(nil)
	_ workload.Instance = (*instance)(nil)
)

// Hooks: databases numbered by --instances.
func (w *Workload) Hooks() workload.Hooks { return workload.Hooks{NumberTargets: w.NumberTargets} }

// Hooks: the table matched against the options.
func (in *instance) Hooks() workload.InstanceHooks { return workload.InstanceHooks{Match: in.Match} }

// New returns select_random_points with sysbench's defaults.
func New() *Workload { return &Workload{o: Options{TableSize: 10000, RandomPoints: 10}} }

// Meta describes select_random_points (workload.Meta).
func (w *Workload) Meta() workload.Meta {
	return workload.Meta{
		Name:    Name,
		Short:   "sysbench select_random_points: SELECT of the rows whose k is IN a list of random values",
		Long:    long,
		Event:   "query",
		Ops:     []workload.Op{{Name: "select_random_points", Kind: workload.Read}},
		Prepare: true,
		Options: workload.OptionsOf(Options{}),
	}
}

const long = `One event (sysbench select_random_points.lua): SELECT id, k, c, pad FROM
sbtest1 WHERE k IN (?, ..., ?) with --random-points values, each drawn from
sysbench 1.0's default distribution ('special': 75 % of the values in 1 % of
the range) over [1, --table-size], in autocommit; the rows are read to the
end, as sysbench does. It was written for MariaDB's segmented key cache and
measures secondary-index lookups. Unlike sysbench, the values of every
virtual user span the whole table (sysbench gives each thread its own
segment of it).

Table: sbtest1 (id INTEGER primary key, k INTEGER, c CHAR(120), pad
CHAR(60)) with --table-size rows and the index k_1 on k, as sysbench's
oltp_common.lua makes it (with client-numbered ids). The script uses one
table: sysbench refuses --tables above 1, and it has no --tables here.

prepare, its resume after an interruption, its records in
rightsize_objects, its refusal of tables it did not create (unless --force),
run's comparison of the table with --table-size and cleanup are the shared
routine every database workload uses (workload/tables): a table recorded
with another --table-size is loaded again by prepare and refused by run
unless --force; a table sysbench made is used as it is, with a note.`

func (w *Workload) BindFlags(fs *pflag.FlagSet) {
	fs.Int64Var(&w.o.TableSize, "table-size", w.o.TableSize, "number of rows in sbtest1")
	fs.IntVar(&w.o.RandomPoints, "random-points", w.o.RandomPoints, "number of random points in the IN() clause of each SELECT")
}

func (w *Workload) Validate() error {
	var errs []error
	if w.o.TableSize < 1 || w.o.TableSize > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("--table-size %d: want 1 to %d", w.o.TableSize, math.MaxInt32))
	}
	if w.o.RandomPoints < 1 || w.o.RandomPoints > 1000 {
		errs = append(errs, fmt.Errorf("--random-points %d: want 1 to 1000", w.o.RandomPoints))
	}
	return errors.Join(errs...)
}

// Options returns the options as the result records them.
func (w *Workload) Options() any { return w.o }

// NumberTargets derives n targets from raw for --instances (dbtarget.Number).
func (w *Workload) NumberTargets(raw string, n int) ([]string, error) {
	return dbtarget.Number(raw, "sbtest", n)
}

// ParseTarget parses a database URL; empty means a SQLite file under
// ./rightsize-data.
func (w *Workload) ParseTarget(raw string, o workload.TargetOptions) (workload.Target, error) {
	return dbtarget.ParseFor(raw, "sbtest", o, w.open)
}

// open binds the options to the target without connecting.
func (w *Workload) open(_ context.Context, tg *dbtarget.DB) (workload.Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	in := &instance{o: w.o}
	in.Init(tg)
	return in, nil
}

// record is what rightsize_objects records of sbtest1: the size it was
// loaded with (the name oltp's scripts record it under, so that either
// keeps the other's table) and the shared routine's state.
type record struct {
	TableSize int64 `json:"table_size"`
	tables.State
}

type instance struct {
	dbtarget.Base
	o Options
}

// set declares sbtest1.
func (in *instance) set() *tables.Set {
	return &tables.Set{Workload: Name, Tables: []tables.Table{{
		Name:    "sbtest1",
		Create:  createSQL,
		Columns: []string{"id", "k", "c", "pad"},
		Indexes: []string{"CREATE INDEX k_1 ON sbtest1(k)"},
	}}}
}

func createSQL(d dialect.Dialect) string {
	return "CREATE TABLE sbtest1(\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n" +
		"  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)" + d.TableOptions()
}

// differ says how a recorded table's size differs from --table-size.
func (in *instance) differ(f tables.Found) string {
	var r record
	f.Decode(&r)
	if r.TableSize != in.o.TableSize {
		return "holds " + workload.Thousands(r.TableSize) + " rows, --table-size asks " + workload.Thousands(in.o.TableSize)
	}
	return ""
}

// Prepare creates and loads sbtest1 (tables.Prepare).
func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	u := tables.Unit{Name: "sbtest1", Tables: []string{"sbtest1"}, Rows: in.o.TableSize, Sources: in.rows}
	fresh := func() tables.Record { return &record{TableSize: in.o.TableSize} }
	return tables.Prepare(ctx, &in.Base, in.set(), opt, p, tables.Whole([]tables.Unit{u}, fresh, in.differ))
}

// Cleanup drops sbtest1 if rightsize made it, or with --force (tables.Cleanup).
func (in *instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) ([]string, error) {
	return tables.Cleanup(ctx, &in.Base, in.set().Names(), opt.Force)
}

// Match compares sbtest1 with --table-size before a run (tables.Match).
func (in *instance) Match(ctx context.Context) ([]string, error) {
	return tables.Match(ctx, &in.Base, tables.CompareWhole(&in.Base, in.set(), in.differ))
}

// rows is sbtest1's row source, as oltp_common.lua fills it: id 1..N, k
// from the default distribution over [1, N], c and pad from their templates.
func (in *instance) rows(add func(int64)) []tables.Source {
	return []tables.Source{&rowSource{Counted: tables.Counted{N: in.o.TableSize, Add: add}, s: datagen.NewSource(0x9e3779b97f4a7c15),
		dist: newDist(), c: datagen.NewTemplate(datagen.CTemplate), pad: datagen.NewTemplate(datagen.PadTemplate)}}
}

// newDist is sysbench 1.0's default --rand-type: special, 12 draws, 1 %
// of the range getting 75 % of the values.
func newDist() *datagen.Dist {
	d, err := datagen.NewDist(datagen.DefaultDistSpec(datagen.Special))
	if err != nil {
		panic(err) // a constant configuration
	}
	return d
}

type rowSource struct {
	tables.Counted
	s      *datagen.Source
	dist   *datagen.Dist
	c, pad *datagen.Template
	vals   [4]any
}

func (r *rowSource) Values() ([]any, error) {
	i := r.Row()
	r.vals = [4]any{i, r.dist.Next(r.s, 1, r.N), string(r.c.Fill(r.s, nil)), string(r.pad.Fill(r.s, nil))}
	return r.vals[:], nil
}

// NewVU opens one virtual user: a connection with the SELECT prepared.
func (in *instance) NewVU(ctx context.Context, id int, seed uint64) (workload.VU, error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, err
	}
	q := "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (" + strings.Repeat("?, ", in.o.RandomPoints-1) + "?)"
	st, err := c.Prepare(ctx, q)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: VU %d: %w", in.Target, id, err)
	}
	return &vu{c: c, st: st, n: in.o.TableSize, s: datagen.NewSource(seed), dist: newDist(), args: make([]any, in.o.RandomPoints)}, nil
}

type vu struct {
	c    dialect.Conn
	st   dialect.Stmt
	n    int64
	s    *datagen.Source
	dist *datagen.Dist
	args []any
}

// Event runs one SELECT and reads its rows.
func (v *vu) Event(ctx context.Context, m workload.Meter) error {
	for i := range v.args {
		v.args[i] = v.dist.Next(v.s, 1, v.n)
	}
	sp := m.Start(0)
	_, err := v.st.Drain(ctx, v.args...)
	m.End(sp, err)
	return err
}

func (v *vu) Close() error { return v.c.Close() }

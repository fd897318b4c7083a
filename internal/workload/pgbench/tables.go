package pgbench

import (
	"context"
	"fmt"
	"github.com/rightsize/rightsize/internal/sqltext"
	"strconv"
	"sync"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/custom"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// pgbench's rows per unit of scale.
const (
	branchesPerScale = 1
	tellersPerScale  = 10
	accountsPerScale = 100000
	// bigScale is the scale from which pgbench makes aid a bigint.
	bigScale = 20000
)

// instance is pgbench's scripts, compiled into a Spec, on the one
// interpreter (custom.Instance: its VUs), with pgbench's own tables.
type instance struct {
	*custom.Instance
	o       Options
	builtin bool // a built-in script runs: the tables must be there

	scaleOnce sync.Once
	scale     int64 // :scale, once known (Match, or the first VU)
	scaleErr  error
}

// prepareScale is the scale prepare loads: --scale, 1 when not given.
func (in *instance) prepareScale() int64 {
	if in.o.Scale > 0 {
		return int64(in.o.Scale)
	}
	return 1
}

// set declares pgbench's tables as 'pgbench -i' creates them: the
// primary keys added once the rows are loaded.
func (in *instance) set() *tables.Set {
	aid := "int"
	if in.prepareScale() >= bigScale {
		aid = "bigint"
	}
	ff := " with (fillfactor=" + strconv.Itoa(in.o.Fillfactor) + ")"
	ddl := func(q string) func(dialect.Dialect) string { return func(dialect.Dialect) string { return q } }
	return &tables.Set{Workload: Name, Analyze: true, Tables: []tables.Table{
		{Name: "pgbench_branches", Create: ddl("create table pgbench_branches(bid int not null,bbalance int,filler char(88))" + ff),
			Columns: []string{"bid", "bbalance", "filler"}, Indexes: []string{"alter table pgbench_branches add primary key (bid)"}},
		{Name: "pgbench_tellers", Create: ddl("create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84))" + ff),
			Columns: []string{"tid", "bid", "tbalance", "filler"}, Indexes: []string{"alter table pgbench_tellers add primary key (tid)"}},
		{Name: "pgbench_accounts", Create: ddl("create table pgbench_accounts(aid " + aid + " not null,bid int,abalance int,filler char(84))" + ff),
			Columns: []string{"aid", "bid", "abalance", "filler"}, Indexes: []string{"alter table pgbench_accounts add primary key (aid)"}},
		{Name: "pgbench_history", Create: ddl("create table pgbench_history(tid int,bid int,aid " + aid + ",delta int,mtime timestamp,filler char(22))"),
			Columns: []string{"tid", "bid", "aid", "delta", "mtime", "filler"}},
	}}
}

// record is what rightsize_objects records of a pgbench table: the scale
// and fill factor it was made with, and the shared routine's state.
type record struct {
	Scale      int64 `json:"scale"`
	Fillfactor int   `json:"fillfactor"`
	tables.State
}

// differ says how a recorded table differs from --scale and --fillfactor
// (a run without --scale takes the tables' scale).
func (in *instance) differ(run bool) tables.Differ {
	return func(f tables.Found) string {
		var r record
		f.Decode(&r)
		want := in.prepareScale()
		switch {
		case run && in.o.Scale == 0:
		case r.Scale != want:
			return "was made with --scale " + strconv.FormatInt(r.Scale, 10) + ", --scale asks " + strconv.FormatInt(want, 10)
		}
		if r.Fillfactor != in.o.Fillfactor && !run {
			return "was made with --fillfactor " + strconv.Itoa(r.Fillfactor) + ", --fillfactor asks " + strconv.Itoa(in.o.Fillfactor)
		}
		return ""
	}
}

// Prepare makes the tables as 'pgbench -i' does (tables.Prepare): branches,
// tellers and accounts loaded by COPY, the history empty, primary keys
// added after the load, then VACUUM ANALYZE.
func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	scale := in.prepareScale()
	rows := func(table string, n int64, cols int, vals func(i int64, out []any)) tables.Unit {
		return tables.Unit{Name: table, Tables: []string{table}, Rows: n, Sources: func(add func(int64)) []tables.Source {
			return []tables.Source{&rowSource{Counted: tables.Counted{N: n, Add: add}, fill: vals, cols: cols}}
		}}
	}
	units := []tables.Unit{
		rows("pgbench_branches", scale*branchesPerScale, 3, func(i int64, out []any) {
			out[0], out[1], out[2] = i, 0, nil
		}),
		rows("pgbench_tellers", scale*tellersPerScale, 4, func(i int64, out []any) {
			out[0], out[1], out[2], out[3] = i, (i-1)/tellersPerScale+1, 0, nil
		}),
		rows("pgbench_accounts", scale*accountsPerScale, 4, func(i int64, out []any) {
			out[0], out[1], out[2], out[3] = i, (i-1)/accountsPerScale+1, 0, ""
		}),
		rows("pgbench_history", 0, 6, nil),
	}
	fresh := func() tables.Record { return &record{Scale: scale, Fillfactor: in.o.Fillfactor} }
	return tables.Prepare(ctx, &in.Base, in.set(), opt, p, tables.Whole(units, fresh, in.differ(false)))
}

// Cleanup drops the tables rightsize made, or with --force any of their
// names (tables.Cleanup).
func (in *instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) ([]string, error) {
	return tables.Cleanup(ctx, &in.Base, in.set().Names(), opt.Force)
}

// Match compares the tables with the options before a run and finds the
// run's :scale. A built-in script needs the tables (missing ones are
// refused); script files alone may run without them (:scale is then
// --scale, or 1). Tables 'pgbench -i' made are used as they are, with a
// note; their scale is pgbench_branches' count, as pgbench counts it, and
// a --scale that differs from it is a mismatch.
func (in *instance) Match(ctx context.Context) ([]string, error) {
	set := in.set()
	whole := tables.CompareWhole(&in.Base, set, in.differ(true))
	return tables.Match(ctx, &in.Base, func(ctx context.Context, c dialect.Conn) (notes, problems []string, err error) {
		ok, err := c.TableExists(ctx, "pgbench_branches")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", in.Target, err)
		}
		if !ok && !in.builtin {
			in.setScale(in.prepareScale(), nil)
			return []string{"no pgbench tables: :scale is " + strconv.FormatInt(in.prepareScale(), 10)}, nil, nil
		}
		notes, problems, err = whole(ctx, c)
		if err != nil {
			return notes, problems, err
		}
		n, err := countBranches(ctx, c)
		if err != nil {
			return notes, problems, fmt.Errorf("%s: %w", in.Target, err)
		}
		if in.o.Scale > 0 && int64(in.o.Scale) != n {
			problems = append(problems, fmt.Sprintf("pgbench_branches holds %d rows (scale %d), --scale asks %d", n, n, in.o.Scale))
		}
		in.setScale(n, nil)
		return append(notes, ":scale is "+strconv.FormatInt(n, 10)+" (the count of pgbench_branches)"), problems, nil
	})
}

func countBranches(ctx context.Context, c dialect.Conn) (int64, error) {
	var n int64
	if err := c.QueryRow(ctx, sqltext.Own+"select count(*) from pgbench_branches", nil, &n); err != nil {
		return 0, fmt.Errorf("could not count number of branches: %w", err)
	}
	return n, nil
}

func (in *instance) setScale(n int64, err error) {
	in.scaleOnce.Do(func() { in.scale, in.scaleErr = n, err })
}

// scaleFor returns the run's :scale, found by Match or, when the run did
// not match (a test, a shard), counted now on c.
func (in *instance) scaleFor(ctx context.Context, c dialect.Conn) (int64, error) {
	in.scaleOnce.Do(func() {
		ok, err := c.TableExists(ctx, "pgbench_branches")
		switch {
		case err != nil:
			in.scaleErr = err
		case ok && in.o.Scale == 0:
			in.scale, in.scaleErr = countBranches(ctx, c)
		default:
			in.scale = in.prepareScale()
		}
	})
	return in.scale, in.scaleErr
}

// rowSource yields a table's rows, numbered from 1.
type rowSource struct {
	tables.Counted
	fill func(i int64, out []any)
	cols int
	vals [6]any
}

func (r *rowSource) Values() ([]any, error) {
	r.fill(r.Row(), r.vals[:r.cols])
	return r.vals[:r.cols], nil
}

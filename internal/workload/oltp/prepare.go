package oltp

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// defaultLoaders caps the parallel loaders when PrepareOptions.Threads is 0.
const defaultLoaders = 4

// progressEvery is how many rows a loader generates between progress reports.
const progressEvery = 1000

// meta is what rightsize_objects.options records for an sbtest table: what
// it was loaded with, and the shared routine's state (Loaded: load and
// index finished).
type meta struct {
	TableSize int64 `json:"table_size"` // rows the table was loaded with
	AutoInc   bool  `json:"auto_inc"`
	Secondary bool  `json:"create_secondary"`
	tables.State
}

// loadSize is the number of rows prepare puts in each table: oltp_insert
// without --auto-inc creates empty tables, as sysbench does.
func (in *instance) loadSize() int64 {
	if in.v == insert && !in.o.AutoInc {
		return 0
	}
	return in.o.TableSize
}

func (in *instance) wantMeta() meta {
	return meta{TableSize: in.loadSize(), AutoInc: in.o.AutoInc, Secondary: in.o.CreateSecondary}
}

// tableSet declares sbtest1..--tables to the shared routine
// (workload/tables): each loaded whole, its index k_N created after the
// load, up to four loaders by default, not analyzed (as sysbench).
func (in *instance) tableSet() *tables.Set {
	s := &tables.Set{Workload: variants[in.v].name, Loaders: defaultLoaders}
	for n := 1; n <= in.o.Tables; n++ {
		t := tables.Table{
			Name:    tableName(n),
			Create:  func(d dialect.Dialect) string { return createTableSQL(d, n, in.o.AutoInc, in.o.CreateTableOptions) },
			Columns: loadColumns(in.o.AutoInc),
		}
		if in.o.CreateSecondary {
			t.Indexes = []string{createIndexSQL(n)}
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// Prepare creates and loads sbtest1..--tables through the shared routine
// (tables.Prepare). It first checks every table: a table that exists but is
// not recorded in rightsize_objects stops prepare before anything is
// changed (ErrNotOwned), unless opt.Force, which drops and recreates it. A
// recorded table with the requested size, fully loaded, is kept; any other
// recorded table is dropped and reloaded, and prepare says why (its size,
// an interrupted load, ...) before it starts. Tables are loaded by up to
// opt.Threads connections in parallel (default min(tables, 4); one for a
// single-writer database, where parallel loaders would only queue).
func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	return tables.Prepare(ctx, &in.Base, in.tableSet(), opt, p, in.plan)
}

// plan keeps each table that is owned, loaded with the same options and
// holds every row; it recreates the others, and says why for those that
// were recorded.
func (in *instance) plan(ctx context.Context, c dialect.Conn, found []tables.Found, sp workload.Progress) (*tables.Work, error) {
	want := in.wantMeta()
	pl := &tables.Work{Parts: 1, Tables: make([]tables.Decision, len(found))}
	var why reasons
	for i, f := range found {
		n := i + 1
		m := want
		pl.Tables[i] = tables.Decision{Recreate: true, Record: &m}
		kind, v, err := in.judge(ctx, c, f, want)
		if err != nil {
			return nil, err
		}
		switch kind {
		case reasonNone:
		case reasonKeep:
			var kept meta
			f.Decode(&kept)
			pl.Tables[i] = tables.Decision{Record: &kept, Done: []bool{true}}
			sp.Message(fmt.Sprintf("%s: already loaded with %d rows, kept", f.Name, v))
		default:
			why.add(kind, v, n)
		}
		pl.Units = append(pl.Units, in.unit(n, want.TableSize))
	}
	for _, w := range why.text(want.TableSize) {
		sp.Message(w + ": dropping and loading again")
	}
	return pl, nil
}

// judge says what becomes of the table found: kept (reasonKeep, v its
// rows), created (reasonNone), or loaded again for a reason (v: the
// recorded size, or the rows it holds).
func (in *instance) judge(ctx context.Context, c dialect.Conn, f tables.Found, want meta) (kind int, v int64, err error) {
	if !f.Exists {
		return reasonNone, 0, nil
	}
	var m meta
	f.Decode(&m)
	switch {
	case !f.Owned:
		return reasonForeign, 0, nil
	case !m.Loaded:
		return reasonPartial, 0, nil
	case m.TableSize != want.TableSize:
		return reasonSize, m.TableSize, nil
	case m.AutoInc != want.AutoInc:
		return reasonAutoInc, 0, nil
	case m.Secondary != want.Secondary:
		return reasonSecondary, 0, nil
	}
	var rows int64
	if err := c.QueryRow(ctx, countRowsSQL(f.Name), nil, &rows); err != nil {
		return 0, 0, fmt.Errorf("count %s: %w", f.Name, err)
	}
	if rows == want.TableSize {
		return reasonKeep, rows, nil
	}
	return reasonRows, rows, nil
}

// unit loads table n whole with size rows.
func (in *instance) unit(n int, size int64) tables.Unit {
	name := tableName(n)
	return tables.Unit{
		Name: name, Say: fmt.Sprintf("creating %s with %d rows", name, size), Tables: []string{name}, Rows: size,
		Sources: func(add func(int64)) []tables.Source {
			return []tables.Source{&rowSource{
				size: size, autoInc: in.o.AutoInc,
				src:  datagen.NewSource(uint64(n) * 0x9e3779b97f4a7c15),
				dist: in.dist, c: in.cTmpl, pad: in.padTmpl, add: add,
			}}
		},
	}
}

// What prepare does with a table, and why it loads a recorded table again.
const (
	reasonNone      = iota // absent: created
	reasonKeep             // owned, complete and the same: kept
	reasonForeign          // not created by rightsize (--force)
	reasonPartial          // its load did not finish
	reasonSize             // loaded with another --table-size (v: the recorded size)
	reasonAutoInc          // made with another --auto-inc
	reasonSecondary        // made with another --create-secondary
	reasonRows             // recorded as loaded, but holds other rows (v: how many)
)

// reasons groups tables by why they are loaded again, in the order the
// reasons were first seen.
type reasons struct {
	list []reason
}

type reason struct {
	kind int
	g    group
}

func (r *reasons) add(kind int, v int64, n int) {
	for i := range r.list {
		if r.list[i].kind == kind && r.list[i].g.v == v {
			r.list[i].g.tables = append(r.list[i].g.tables, n)
			return
		}
	}
	r.list = append(r.list, reason{kind: kind, g: group{v: v, tables: []int{n}}})
}

// text words each reason for tables that should hold size rows.
func (r *reasons) text(size int64) []string {
	out := make([]string, len(r.list))
	for i, x := range r.list {
		ns := x.g.tables
		switch x.kind {
		case reasonForeign:
			out[i] = named(ns, "was", "were") + " not created by rightsize (--force)"
		case reasonPartial:
			out[i] = named(ns, "was", "were") + " not fully loaded (an interrupted prepare)"
		case reasonSize:
			out[i] = holdRows(ns, x.g.v) + ", --table-size asks " + workload.Thousands(size)
		case reasonAutoInc:
			out[i] = named(ns, "was", "were") + " made with the other --auto-inc"
		case reasonSecondary:
			out[i] = named(ns, "was", "were") + " made with the other --create-secondary"
		case reasonRows:
			out[i] = holdRows(ns, x.g.v) + ", " + workload.Thousands(size) + " were loaded"
		}
	}
	return out
}

// rowSource generates sbtest rows as sysbench's create_table does: id 1..N
// (or left to the database), k from --rand-type over [1, table-size], c and
// pad from their templates. It is used by one loader goroutine.
type rowSource struct {
	size    int64
	autoInc bool
	src     *datagen.Source
	dist    *datagen.Dist
	c, pad  *datagen.Template
	add     func(int64)

	i       int64 // rows generated
	pending int64 // rows not yet reported
	vals    [4]any
	cbuf    [128]byte
	padbuf  [64]byte
}

func (r *rowSource) Next() bool {
	if r.i >= r.size {
		return false
	}
	r.i++
	r.pending++
	if r.pending >= progressEvery {
		r.flush()
	}
	return true
}

func (r *rowSource) flush() {
	if r.pending > 0 {
		r.add(r.pending)
		r.pending = 0
	}
}

// Rows is how many rows it yields (tables.Source).
func (r *rowSource) Rows() int64 { return r.size }

// Flush reports the rows not yet reported (tables.Source).
func (r *rowSource) Flush() { r.flush() }

// Values returns the current row; the slice is reused by the next call.
func (r *rowSource) Values() ([]any, error) {
	k := r.dist.Next(r.src, 1, r.size)
	c := string(r.c.Fill(r.src, r.cbuf[:0]))
	pad := string(r.pad.Fill(r.src, r.padbuf[:0]))
	if r.autoInc {
		r.vals[0], r.vals[1], r.vals[2] = k, c, pad
		return r.vals[:3], nil
	}
	r.vals[0], r.vals[1], r.vals[2], r.vals[3] = r.i, k, c, pad
	return r.vals[:4], nil
}

func (r *rowSource) Err() error { return nil }

// Cleanup drops sbtest1..--tables that rightsize_objects records, and their
// records; with opt.Force it also drops unrecorded sbtest tables in that
// range (tables.Cleanup). It never drops anything else. Unrecorded tables
// left in place are reported in an error wrapping ErrNotOwned, after
// everything else is done. rightsize_objects itself is dropped once it
// holds no record.
func (in *instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) (removed []string, err error) {
	removed, err = tables.Cleanup(ctx, &in.Base, in.tableSet().Names(), opt.Force)
	if err == nil {
		in.tablesOK.Store(false)
	}
	return removed, err
}

package oltp

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// family is the value of rightsize_objects.workload for sbtest tables; every
// oltp_* script shares them, as in sysbench.
const family = "oltp"

// defaultLoaders caps the parallel loaders when PrepareOptions.Threads is 0.
const defaultLoaders = 4

// progressEvery is how many rows a loader generates between progress reports.
const progressEvery = 1000

// meta is what rightsize_objects.options records for an sbtest table.
type meta struct {
	TableSize int64 `json:"table_size"` // rows the table was loaded with
	AutoInc   bool  `json:"auto_inc"`
	Secondary bool  `json:"create_secondary"`
	Loaded    bool  `json:"loaded"` // load and index finished
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

// readMeta returns the recorded metadata of table name, if any. A record
// whose options do not decode reads as owned and not loaded.
func readMeta(ctx context.Context, c dialect.Conn, name string) (meta, bool, error) {
	var m meta
	owned, err := objects.Read(ctx, c, name, &m)
	return m, owned, err
}

// writeMeta records table name as rightsize's (replacing any earlier record).
func (in *instance) writeMeta(ctx context.Context, c dialect.Conn, name string, m meta) error {
	return objects.Write(ctx, c, name, variants[in.v].name, m)
}

// tableAction is what prepare does with one table.
type tableAction uint8

const (
	actSkip     tableAction = iota // owned and fully loaded
	actCreate                      // absent
	actRecreate                    // owned but incomplete or different, or forced
)

// Prepare creates and loads sbtest1..--tables. It first checks every table:
// a table that exists but is not recorded in rightsize_objects stops prepare
// before anything is changed (ErrNotOwned), unless opt.Force, which drops and
// recreates it. A recorded table with the requested size, fully loaded, is
// kept; any other recorded table is dropped and reloaded, and prepare says
// why (its size, an interrupted load, ...) before it starts. Tables are loaded by
// up to opt.Threads connections in parallel (default min(tables, 4); one for a
// single-writer database, where parallel loaders would only queue).
func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	sp := workload.SyncProgress(p)
	d, t := in.Target.D, in.Target.T
	if err := objects.EnsureDatabase(ctx, d, t); err != nil {
		return fmt.Errorf("%s: prepare: %w", in.Target, err)
	}
	admin, err := in.Connect(ctx)
	if err != nil {
		return fmt.Errorf("%s: prepare: %w", in.Target, err)
	}
	defer admin.Close()
	// Survey first and create the record table only once prepare goes ahead:
	// a refused prepare issues no DDL at all.
	hasMeta, err := objects.Exists(ctx, admin)
	if err != nil {
		return fmt.Errorf("%s: prepare: %w", in.Target, err)
	}

	want := in.wantMeta()
	sv, err := in.survey(ctx, admin, hasMeta, opt.Force, sp)
	if err != nil {
		return err
	}
	if len(sv.foreign) > 0 {
		names := make([]string, len(sv.foreign))
		for i, n := range sv.foreign {
			names[i] = tableName(n)
		}
		return fmt.Errorf("%s: prepare: table(s) %s already exist and were %w (no row in %s); nothing was changed; use --force to drop and recreate them",
			in.Target, strings.Join(names, ", "), ErrNotOwned, metaTable)
	}
	for _, why := range sv.why.text(want.TableSize) {
		sp.Message(why + ": dropping and loading again")
	}
	actions, todo := sv.actions, sv.todo
	if len(todo) == 0 {
		return nil
	}
	if err := objects.Ensure(ctx, admin, d); err != nil {
		return fmt.Errorf("%s: prepare: create %s: %w", in.Target, metaTable, err)
	}
	sp.Total(int64(len(todo)) * want.TableSize)

	loaders := in.Loaders(opt.Threads, defaultLoaders, len(todo))
	err = dbtarget.Parallel(ctx, &in.Instance, admin, loaders, todo, func(ctx context.Context, c dialect.Conn, n int) error {
		if err := in.prepareTable(ctx, c, n, actions[n], sp); err != nil {
			return fmt.Errorf("%s: %w", tableName(n), err)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: prepare: %w", in.Target, err)
	}
	return err
}

// survey is what prepare found: what to do with each table, the tables to
// load, those it may not touch, and why recorded tables are loaded again.
type survey struct {
	actions       []tableAction // by table number
	todo, foreign []int
	why           reasons
}

// survey checks every table against the options: absent (create), owned
// with the same options and every row (keep), anything else (recreate, or
// refuse when not owned without force).
func (in *instance) survey(ctx context.Context, admin dialect.Conn, hasMeta, force bool, sp workload.Progress) (*survey, error) {
	want := in.wantMeta()
	sv := &survey{actions: make([]tableAction, in.o.Tables+1)}
	for n := 1; n <= in.o.Tables; n++ {
		name := tableName(n)
		exists, err := admin.TableExists(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("%s: prepare: %s: %w", in.Target, name, err)
		}
		if !exists {
			sv.actions[n] = actCreate
			sv.todo = append(sv.todo, n)
			continue
		}
		var m meta
		owned := false
		if hasMeta {
			if m, owned, err = readMeta(ctx, admin, name); err != nil {
				return nil, fmt.Errorf("%s: prepare: read %s: %w", in.Target, metaTable, err)
			}
		}
		switch {
		case !owned && !force:
			sv.foreign = append(sv.foreign, n)
			continue
		case !owned:
			sv.why.add(reasonForeign, 0, n)
		case !m.Loaded:
			sv.why.add(reasonPartial, 0, n)
		case m.TableSize != want.TableSize:
			sv.why.add(reasonSize, m.TableSize, n)
		case m.AutoInc != want.AutoInc:
			sv.why.add(reasonAutoInc, 0, n)
		case m.Secondary != want.Secondary:
			sv.why.add(reasonSecondary, 0, n)
		default:
			var rows int64
			if err := admin.QueryRow(ctx, countRowsSQL(name), nil, &rows); err != nil {
				return nil, fmt.Errorf("%s: prepare: count %s: %w", in.Target, name, err)
			}
			if rows == want.TableSize {
				sv.actions[n] = actSkip
				sp.Message(fmt.Sprintf("%s: already loaded with %d rows, kept", name, rows))
				continue
			}
			sv.why.add(reasonRows, rows, n)
		}
		sv.actions[n] = actRecreate
		sv.todo = append(sv.todo, n)
	}
	return sv, nil
}

// Why prepare loads a recorded table again.
const (
	reasonForeign   = iota // not created by rightsize (--force)
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
			out[i] = tables(ns, "was", "were") + " not created by rightsize (--force)"
		case reasonPartial:
			out[i] = tables(ns, "was", "were") + " not fully loaded (an interrupted prepare)"
		case reasonSize:
			out[i] = holdRows(ns, x.g.v) + ", --table-size asks " + workload.Thousands(size)
		case reasonAutoInc:
			out[i] = tables(ns, "was", "were") + " made with the other --auto-inc"
		case reasonSecondary:
			out[i] = tables(ns, "was", "were") + " made with the other --create-secondary"
		case reasonRows:
			out[i] = holdRows(ns, x.g.v) + ", " + workload.Thousands(size) + " were loaded"
		}
	}
	return out
}

// prepareTable (re)creates, loads and indexes one table, recording it first so
// that an interrupted prepare leaves a table rightsize knows it owns.
func (in *instance) prepareTable(ctx context.Context, c dialect.Conn, n int, act tableAction, p workload.Progress) error {
	name := tableName(n)
	m := in.wantMeta()
	if err := in.writeMeta(ctx, c, name, m); err != nil {
		return fmt.Errorf("record in %s: %w", metaTable, err)
	}
	if act == actRecreate {
		p.Message("dropping " + name)
		if _, err := c.Exec(ctx, dropTableSQL(name)); err != nil {
			return fmt.Errorf("drop: %w", err)
		}
	}
	p.Message(fmt.Sprintf("creating %s with %d rows", name, m.TableSize))
	if _, err := c.Exec(ctx, createTableSQL(in.Target.D, n, in.o.AutoInc, in.o.CreateTableOptions)); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if m.TableSize > 0 {
		src := &rowSource{
			size: m.TableSize, autoInc: in.o.AutoInc,
			src:  datagen.NewSource(uint64(n) * 0x9e3779b97f4a7c15),
			dist: in.dist, c: in.cTmpl, pad: in.padTmpl, p: p,
		}
		got, err := c.Load(ctx, name, loadColumns(in.o.AutoInc), src)
		src.flush()
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		if got != m.TableSize {
			return fmt.Errorf("load: %d rows loaded, want %d", got, m.TableSize)
		}
	}
	if in.o.CreateSecondary {
		p.Message("creating index k_" + name[len("sbtest"):] + " on " + name)
		if _, err := c.Exec(ctx, createIndexSQL(n)); err != nil {
			return fmt.Errorf("create index: %w", err)
		}
	}
	m.Loaded = true
	if err := objects.Update(ctx, c, name, m); err != nil {
		return fmt.Errorf("record in %s: %w", metaTable, err)
	}
	return nil
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
	p       workload.Progress

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
		r.p.Add(r.pending)
		r.pending = 0
	}
}

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
// range. It never drops anything else. Unrecorded tables left in place are
// reported in an error wrapping ErrNotOwned, after everything else is done.
// rightsize_objects itself is dropped once it holds no record.
func (in *instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) (removed []string, err error) {
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
	for n := 1; n <= in.o.Tables; n++ {
		name := tableName(n)
		owned := false
		if hasMeta {
			if _, owned, err = readMeta(ctx, c, name); err != nil {
				return removed, fmt.Errorf("%s: cleanup: read %s: %w", in.Target, metaTable, err)
			}
		}
		exists, err := c.TableExists(ctx, name)
		if err != nil {
			return removed, fmt.Errorf("%s: cleanup: %s: %w", in.Target, name, err)
		}
		switch {
		case exists && (owned || opt.Force):
			if _, err := c.Exec(ctx, dropTableSQL(name)); err != nil {
				return removed, fmt.Errorf("%s: cleanup: drop %s: %w", in.Target, name, err)
			}
			removed = append(removed, name)
		case exists:
			left = append(left, name)
		}
		if owned {
			if err := objects.Delete(ctx, c, name); err != nil {
				return removed, fmt.Errorf("%s: cleanup: %s: %w", in.Target, metaTable, err)
			}
		}
	}
	if hasMeta {
		if err := objects.DropIfEmpty(ctx, c); err != nil {
			return removed, fmt.Errorf("%s: cleanup: %s: %w", in.Target, metaTable, err)
		}
	}
	if len(left) > 0 {
		return removed, fmt.Errorf("%s: cleanup: left %s in place: %w (no row in %s); use --force to drop them",
			in.Target, strings.Join(left, ", "), ErrNotOwned, metaTable)
	}
	in.tablesOK.Store(false)
	return removed, nil
}

package tpcc

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// defaultLoaders is the number of parallel loaders when
// PrepareOptions.Threads is 0.
const defaultLoaders = 4

// loadMeta is what rightsize_objects.options records for each TPC-C table:
// what it was loaded with, and the shared routine's state (the warehouses
// whose rows are complete, as ranges, "0" for the item table once loaded).
type loadMeta struct {
	Warehouses int       `json:"warehouses"`
	Seed       uint64    `json:"seed"`
	CLoad      Constants `json:"c_load"` // the NURand constants of the load (clause 2.1.6)
	tables.State
}

// wColumn names each table's warehouse column, by which prepare deletes the
// partial rows of an interrupted unit.
var wColumn = map[string]string{
	"warehouse": "w_id", "district": "d_w_id", "customer": "c_w_id", "history": "h_w_id",
	"new_order": "no_w_id", "orders": "o_w_id", "order_line": "ol_w_id", "stock": "s_w_id",
}

// tableSet declares the nine tables to the shared routine (workload/tables):
// loaded by warehouse (item whole), four loaders by default, analyzed at the
// end.
var tableSet = func() *tables.Set {
	s := &tables.Set{Workload: Name, Loaders: defaultLoaders, Analyze: true}
	for i := range schema {
		t := &schema[i]
		s.Tables = append(s.Tables, tables.Table{
			Name: t.name, Create: t.createSQL, Columns: t.columns(), Indexes: t.indexSQL(), PartColumn: wColumn[t.name],
		})
	}
	return s
}()

// Prepare loads clause 4.3's initial population of --warehouses warehouses,
// through the shared routine (tables.Prepare), which surveys the nine
// tables and refuses, records, creates, loads, indexes and analyzes them.
//
// What TPC-C decides is plan's: tables recorded with the same warehouses
// and seed are kept: a complete load is left as it is, and an interrupted
// one is resumed (the partial rows of the units it was loading are deleted
// and loaded again). A complete load of fewer warehouses with the same seed
// grows: only the new warehouses are loaded, into the indexed tables, and
// the result is the same rows as a load of them all (each unit's data
// depend only on the seed and its warehouse). Any other recorded table is
// dropped and reloaded. opt.Seed 0 keeps the recorded seed, or draws one.
//
// The work is cut into units (item; each warehouse's order lines, stock,
// customers and history, orders and new orders, warehouse and districts),
// the longest first, loaded by up to opt.Threads connections (default 4;
// one where the database has a single writer). Each unit draws from its own
// seeded source, so the data depend only on the seed.
//
// With --in-server it then installs the five transactions as routines
// (installRoutines), replacing those of another version. On a database
// whose nine tables all exist and none was loaded by rightsize (a schema
// HammerDB or go-tpc built), --in-server without --force installs only the
// routines and leaves the tables as they are (foreignSchema).
func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	if in.kind != "" && !opt.Force {
		foreign, err := in.foreignSchema(ctx)
		if err != nil {
			return fmt.Errorf("%s: prepare: %w", in.Target, err)
		}
		if foreign {
			sp := workload.SyncProgress(p)
			sp.Message("the nine TPC-C tables exist and rightsize did not load them (another tool's schema, such as HammerDB's): " +
				"kept as they are, not checked against --warehouses; installing only the routines")
			if err := in.installRoutines(ctx, false, sp); err != nil {
				return fmt.Errorf("%s: prepare: %w", in.Target, err)
			}
			return nil
		}
	}
	err := tables.Prepare(ctx, &in.Base, tableSet, opt, p,
		func(ctx context.Context, c dialect.Conn, found []tables.Found, sp workload.Progress) (*tables.Work, error) {
			return in.plan(ctx, c, found, opt.Seed, sp)
		})
	if err != nil || in.kind == "" {
		return err
	}
	if err := in.installRoutines(ctx, opt.Force, workload.SyncProgress(p)); err != nil {
		return fmt.Errorf("%s: prepare: %w", in.Target, err)
	}
	return nil
}

// foreignSchema reports whether all nine tables exist and rightsize_objects
// records none of them. It creates the database when there is none, as
// prepare does anyway.
func (in *instance) foreignSchema(ctx context.Context) (bool, error) {
	if err := objects.EnsureDatabase(ctx, in.Target.D, in.Target.T); err != nil {
		return false, err
	}
	c, err := in.Connect(ctx)
	if err != nil {
		return false, err
	}
	defer c.Close()
	found, err := tables.Survey(ctx, c, tableSet.Names())
	if err != nil {
		return false, err
	}
	for _, f := range found {
		if !f.Exists || f.Owned {
			return false, nil
		}
	}
	return true, nil
}

// loadPlan is one prepare's decisions, by table (schema's order).
type loadPlan struct {
	W         int
	seed      uint64
	want      loadMeta
	recs      []*loadMeta
	dec       []tables.Decision
	why       reasons
	grownFrom int
}

// plan decides what prepare keeps of what it found, and says why it loads
// recorded tables again.
func (in *instance) plan(ctx context.Context, c dialect.Conn, found []tables.Found, seed uint64, sp workload.Progress) (*tables.Work, error) {
	W := in.o.Warehouses
	old := make([]loadMeta, len(found))
	for i := range found {
		found[i].Decode(&old[i])
	}
	seed = pickSeed(found, old, W, seed, sp)
	lp := &loadPlan{W: W, seed: seed, want: loadMeta{Warehouses: W, Seed: seed, CLoad: loadConstantsFor(seed)},
		dec: make([]tables.Decision, len(schema)), recs: make([]*loadMeta, len(schema))}
	for i := range schema {
		lp.decide(i, found[i], old[i])
	}
	lp.spread()
	for _, m := range lp.why.text() {
		sp.Message(m + ": dropping and loading again")
	}
	if lp.grownFrom > 0 {
		sp.Message(fmt.Sprintf("growing from %d to %d warehouse(s): loading only warehouses %d-%d, into the indexed tables", lp.grownFrom, W, lp.grownFrom+1, W))
	}
	// Everything kept and complete: nothing to do, after a sanity check.
	if lp.allLoaded() {
		if ok, err := in.countsMatch(ctx, c); err != nil {
			return nil, err
		} else if ok {
			sp.Message(fmt.Sprintf("already loaded: %d warehouse(s), seed %d; kept", W, seed))
		} else {
			sp.Message("the TPC-C tables recorded as loaded hold other row counts: dropping and loading again")
			for i := range schema {
				lp.recreate(i)
			}
		}
	}
	return &tables.Work{
		Parts: W + 1, Tables: lp.dec, Units: units(W, seed, time.Now().UTC().Truncate(time.Second)),
		Start: fmt.Sprintf("loading %d warehouse(s), seed %d", W, seed),
	}, nil
}

// pickSeed returns seed, or without one the seed of a recorded load of the
// same size or of a smaller complete one, or a new one (said).
func pickSeed(found []tables.Found, old []loadMeta, W int, seed uint64, sp workload.Progress) uint64 {
	if seed == 0 {
		for i, f := range found {
			if m := old[i]; f.Exists && f.Owned && (m.Warehouses == W || (m.Warehouses < W && m.Loaded)) && m.Seed != 0 {
				seed = m.Seed
				break
			}
		}
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano()) % (1 << 31)
		seed = max(seed, 1)
		sp.Message(fmt.Sprintf("seed %d (prepare --seed %d loads the same data)", seed, seed))
	}
	return seed
}

// recreate marks table i to be dropped and loaded again.
func (lp *loadPlan) recreate(i int) {
	m := lp.want
	lp.recs[i] = &m
	lp.dec[i] = tables.Decision{Recreate: true, Record: &m}
}

// keep marks table i kept with record m and the warehouses done.
func (lp *loadPlan) keep(i int, m loadMeta, done []bool) {
	lp.recs[i] = &m
	lp.dec[i] = tables.Decision{Record: &m, Done: done}
}

// decide keeps, resumes or grows table i as found, or recreates it and
// notes why.
func (lp *loadPlan) decide(i int, f tables.Found, m loadMeta) {
	W, tb := lp.W, &schema[i]
	need := W
	if tb.name == "item" {
		need = 1
	}
	var because reason
	switch {
	case !f.Exists:
		lp.recreate(i)
		return
	case !f.Owned:
		because = reason{"was not created by rightsize (--force)", "were not created by rightsize (--force)"}
	case m.Warehouses < W && m.Loaded && m.Seed == lp.seed && !m.Indexing:
		// A complete smaller load of the same data: grow it.
		done, n, ok := tables.ParseRanges(m.Done, W+1)
		if tb.name == "item" {
			ok = ok && n == 1 && done[0]
		} else {
			ok = ok && n == m.Warehouses && !done[0]
		}
		if !ok {
			because = reason{"has an unreadable record", "have unreadable records"}
			break
		}
		lp.grownFrom = m.Warehouses
		m.Warehouses, m.CLoad = W, lp.want.CLoad
		if n != need {
			m.Loaded, m.Indexed = false, len(tb.indexes) > 0
		}
		lp.keep(i, m, done)
		return
	case m.Warehouses != W:
		r := fmt.Sprintf(" %d warehouse(s), --warehouses asks %d", m.Warehouses, W)
		because = reason{"holds" + r, "hold" + r}
	case m.Seed != lp.seed:
		r := fmt.Sprintf(" loaded with seed %d, --seed asks %d", m.Seed, lp.seed)
		because = reason{"was" + r, "were" + r}
	case m.Indexing:
		because = reason{"was interrupted while indexing", "were interrupted while indexing"}
	default:
		done, n, ok := tables.ParseRanges(m.Done, W+1)
		if ok && n > 0 { // item records 0; the others 1..W
			if tb.name == "item" {
				ok = n == 1 && done[0]
			} else {
				ok = !done[0]
			}
		}
		if !ok {
			because = reason{"has an unreadable record", "have unreadable records"}
			break
		}
		if m.Loaded && n != need {
			because = reason{"has an inconsistent record", "have inconsistent records"}
			break
		}
		m.CLoad = lp.want.CLoad
		lp.keep(i, m, done)
		return
	}
	lp.recreate(i)
	lp.why.add(because, tb.name)
}

// spread recreates the indexed tables a unit to load shares with them: a
// unit to load deletes its partial rows from each of its tables, and a
// table already indexed cannot take them again.
func (lp *loadPlan) spread() {
	for changed := true; changed; {
		changed = false
		for _, u := range allUnits(lp.W) {
			if lp.unitDone(u) {
				continue
			}
			for _, name := range unitTables[u.k] {
				i := tableIndex(name)
				if !lp.dec[i].Recreate && lp.recs[i].Loaded && len(schema[i].indexes) > 0 {
					lp.recreate(i)
					lp.why.add(reason{"shares warehouses with tables loaded again", "share warehouses with tables loaded again"}, name)
					changed = true
				}
			}
		}
	}
}

// unitDone reports whether every table of u is kept with u's rows complete.
func (lp *loadPlan) unitDone(u loadUnit) bool {
	for _, name := range unitTables[u.k] {
		d := lp.dec[tableIndex(name)]
		if d.Recreate || d.Done == nil || !d.Done[u.w] {
			return false
		}
	}
	return true
}

func (lp *loadPlan) allLoaded() bool {
	for i, d := range lp.dec {
		if d.Recreate || !lp.recs[i].Loaded {
			return false
		}
	}
	return true
}

// reason is why prepare loads tables again, worded for one table and for
// several ("holds 2 warehouse(s), ...", "hold 2 warehouse(s), ...").
type reason struct{ one, many string }

// reasons groups tables by why they are loaded again, in the order the
// reasons were first seen.
type reasons struct {
	list  []reason
	names [][]string
}

func (r *reasons) add(why reason, table string) {
	for i := range r.list {
		if r.list[i] == why {
			r.names[i] = append(r.names[i], table)
			return
		}
	}
	r.list = append(r.list, why)
	r.names = append(r.names, []string{table})
}

// text words each reason with its tables: "the TPC-C tables hold ...",
// "table stock was ...", "tables stock, order_line were ...".
func (r *reasons) text() []string {
	out := make([]string, len(r.list))
	for i, why := range r.list {
		switch names := r.names[i]; {
		case len(names) == len(schema):
			out[i] = "the TPC-C tables " + why.many
		case len(names) == 1:
			out[i] = "table " + names[0] + " " + why.one
		default:
			out[i] = "tables " + strings.Join(names, ", ") + " " + why.many
		}
	}
	return out
}

// allUnits lists every unit of a load of W warehouses, the kinds that take
// longest first, so that parallel loaders finish together.
func allUnits(W int) []loadUnit {
	var out []loadUnit
	for _, k := range []unitKind{unitOrderLine, unitStock, unitCustomer, unitItem, unitOrders, unitWarehouse} {
		if k == unitItem {
			out = append(out, loadUnit{k: unitItem})
			continue
		}
		for w := 1; w <= W; w++ {
			out = append(out, loadUnit{k: k, w: w})
		}
	}
	return out
}

// units are allUnits as the shared routine loads them: each with its
// generators under seed, stamped with the load time now.
func units(W int, seed uint64, now time.Time) []tables.Unit {
	all := allUnits(W)
	out := make([]tables.Unit, len(all))
	for i, u := range all {
		out[i] = tables.Unit{
			Name: u.String(), Part: u.w, Tables: unitTables[u.k], Rows: u.expectedRows(),
			Sources: func(add func(int64)) []tables.Source {
				gens := unitGens(u, seed, now, add)
				srcs := make([]tables.Source, len(gens))
				for j, g := range gens {
					srcs[j] = g
				}
				return srcs
			},
		}
	}
	return out
}

// countsMatch checks a kept load's cheap cardinalities: W warehouses, 10 W
// districts, 100,000 items.
func (in *instance) countsMatch(ctx context.Context, c dialect.Conn) (bool, error) {
	W := int64(in.o.Warehouses)
	for _, q := range []struct {
		table string
		want  int64
	}{{"warehouse", W}, {"district", districtsPerWarehouse * W}, {"item", items}} {
		var n int64
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM "+q.table, nil, &n); err != nil {
			return false, fmt.Errorf("count %s: %w", q.table, err)
		}
		if n != q.want {
			return false, nil
		}
	}
	return true, nil
}

func (u loadUnit) String() string {
	if u.k == unitItem {
		return "item"
	}
	return fmt.Sprintf("warehouse %d: %s", u.w, strings.Join(unitTables[u.k], ", "))
}

// Cleanup drops the TPC-C routines and the nine tables that
// rightsize_objects records, and their records; with opt.Force also
// unrecorded ones (tables.Cleanup).
func (in *instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) (removed []string, err error) {
	// The routines first: tables.Cleanup drops rightsize_objects once it is
	// empty.
	routines, err := in.removeRoutines(ctx, opt.Force)
	if err != nil {
		return nil, fmt.Errorf("%s: cleanup: %w", in.Target, err)
	}
	removed, err = tables.Cleanup(ctx, &in.Base, tableSet.Names(), opt.Force)
	return append(routines, removed...), err
}

// loadConstants returns the NURand constants prepare loaded the database
// with; ok is false when none is recorded (a database loaded by another tool).
func (in *instance) loadConstants(ctx context.Context, c dialect.Conn) (Constants, bool, error) {
	has, err := objects.Exists(ctx, c)
	if err != nil || !has {
		return Constants{}, false, err
	}
	var m loadMeta
	owned, err := objects.Read(ctx, c, "customer", &m)
	if err != nil || !owned || m.Seed == 0 {
		return Constants{}, false, err
	}
	return m.CLoad, true, nil
}

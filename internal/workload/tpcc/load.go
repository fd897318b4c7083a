package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// defaultLoaders is the number of parallel loaders when
// PrepareOptions.Threads is 0.
const defaultLoaders = 4

// loadMeta is what rightsize_objects.options records for each TPC-C table.
type loadMeta struct {
	Warehouses int       `json:"warehouses"`
	Seed       uint64    `json:"seed"`
	CLoad      Constants `json:"c_load"` // the NURand constants of the load (clause 2.1.6)
	// Done lists the warehouses whose rows of this table are complete, as
	// ranges ("1-8,10"); "0" for the item table once loaded.
	Done     string `json:"done"`
	Indexing bool   `json:"indexing,omitempty"` // secondary indexes being created
	Loaded   bool   `json:"loaded"`             // every row loaded, indexed and analyzed
	// Indexed: the table has its secondary indexes while it is not yet
	// Loaded: rows are still to load (it is growing to more warehouses), or
	// it waits for the analyze at the end of the load. Finishing it creates
	// none.
	Indexed bool `json:"indexed,omitempty"`
}

// tablePlan is prepare's state of one table.
type tablePlan struct {
	t     *table
	m     loadMeta
	done  []bool // by warehouse (index 0: the item table)
	ndone int
	need  int  // units the table is complete with: 1 for item, else W
	fresh bool // created empty by this prepare: no partial rows to delete
	final bool // finishing (its indexes) claimed by a loader
}

func (pl *tablePlan) setDone(key int, v bool) {
	if pl.done[key] != v {
		pl.done[key] = v
		if v {
			pl.ndone++
		} else {
			pl.ndone--
		}
	}
	pl.m.Done = formatRanges(pl.done)
}

// formatRanges writes the set indexes of done as ranges: "1-8,10".
func formatRanges(done []bool) string {
	var b []byte
	for i := 0; i < len(done); i++ {
		if !done[i] {
			continue
		}
		j := i
		for j+1 < len(done) && done[j+1] {
			j++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(j), 10)
		}
		i = j
	}
	return string(b)
}

// parseRanges reads formatRanges' output into a set of n; ok is false when
// s is malformed or names an index outside [0, n).
func parseRanges(s string, n int) (done []bool, count int, ok bool) {
	done = make([]bool, n)
	if s == "" {
		return done, 0, true
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, 0, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, 0, false
			}
		}
		if a < 0 || b < a || b >= n {
			return nil, 0, false
		}
		for i := a; i <= b; i++ {
			if !done[i] {
				done[i] = true
				count++
			}
		}
	}
	return done, count, true
}

// wColumn names each table's warehouse column, by which prepare deletes the
// partial rows of an interrupted unit.
var wColumn = map[string]string{
	"warehouse": "w_id", "district": "d_w_id", "customer": "c_w_id", "history": "h_w_id",
	"new_order": "no_w_id", "orders": "o_w_id", "order_line": "ol_w_id", "stock": "s_w_id",
}

// loader is one prepare's shared state.
type loader struct {
	in    *instance
	seed  uint64
	now   time.Time
	p     workload.Progress // synchronised
	plans map[string]*tablePlan

	mu    sync.Mutex // guards plans' done sets and records, and total
	total int64
}

func (l *loader) adjustTotal(delta int64) {
	if delta == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total += delta
	l.p.Total(l.total)
}

// unitDone reports whether every table of u holds u's complete rows.
func (l *loader) unitDone(u loadUnit) bool {
	for _, name := range unitTables[u.k] {
		if !l.plans[name].done[u.w] {
			return false
		}
	}
	return true
}

// Prepare loads clause 4.3's initial population of --warehouses warehouses.
//
// It first checks the nine tables: one that exists without a record in
// rightsize_objects stops prepare before anything is changed (ErrNotOwned),
// unless opt.Force, which drops and recreates it. Tables recorded with the
// same warehouses and seed are kept: a complete load is left as it is, and
// an interrupted one is resumed (the partial rows of the units it was
// loading are deleted and loaded again). A complete load of fewer
// warehouses with the same seed grows: only the new warehouses are loaded,
// into the indexed tables, and the result is the same rows as a load of
// them all (each unit's data depend only on the seed and its warehouse).
// Any other recorded table is dropped and reloaded. opt.Seed 0 keeps the
// recorded seed, or draws one.
//
// The work is cut into units (item; each warehouse's order lines, stock,
// customers and history, orders and new orders, warehouse and districts),
// the longest first, loaded by up to opt.Threads connections
// (default 4; one where the database has a single writer). Each unit draws
// from its own seeded source, so the data depend only on the seed. A
// table's secondary indexes are created once its rows are complete; once
// every table is, each is analyzed where the dialect is a dialect.Analyzer.
func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	if err := in.prepare(ctx, opt, workload.SyncProgress(p)); err != nil {
		return fmt.Errorf("%s: prepare: %w", in.Target, err)
	}
	return nil
}

func (in *instance) prepare(ctx context.Context, opt workload.PrepareOptions, sp workload.Progress) error {
	d, t := in.Target.D, in.Target.T
	if err := objects.EnsureDatabase(ctx, d, t); err != nil {
		return err
	}
	admin, err := in.Connect(ctx)
	if err != nil {
		return err
	}
	defer func() { admin.Close() }()
	// Survey first and create the record table only once prepare goes ahead:
	// a refused prepare issues no DDL at all.
	hasMeta, err := objects.Exists(ctx, admin)
	if err != nil {
		return err
	}

	// Survey: what exists, what is ours, what it was loaded with.
	W := in.o.Warehouses
	type survey struct {
		exists, owned bool
		m             loadMeta
	}
	sv := make([]survey, len(tables))
	var foreign []string
	for i := range tables {
		name := tables[i].name
		exists, err := admin.TableExists(ctx, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		owned := false
		if hasMeta {
			if owned, err = objects.Read(ctx, admin, name, &sv[i].m); err != nil {
				return fmt.Errorf("read %s: %w", objects.Table, err)
			}
		}
		sv[i].exists, sv[i].owned = exists, owned
		if exists && !owned && !opt.Force {
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("table(s) %s already exist and were %w (no row in %s); nothing was changed; use --force to drop and recreate them",
			strings.Join(foreign, ", "), objects.ErrNotOwned, objects.Table)
	}
	if err := objects.Ensure(ctx, admin, d); err != nil {
		return fmt.Errorf("create %s: %w", objects.Table, err)
	}

	seed := opt.Seed
	if seed == 0 { // keep the seed of a load of the same size, or of a smaller complete one
		for _, s := range sv {
			if s.exists && s.owned && (s.m.Warehouses == W || (s.m.Warehouses < W && s.m.Loaded)) && s.m.Seed != 0 {
				seed = s.m.Seed
				break
			}
		}
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano()) % (1 << 31)
		seed = max(seed, 1)
		sp.Message(fmt.Sprintf("seed %d (prepare --seed %d loads the same data)", seed, seed))
	}
	want := loadMeta{Warehouses: W, Seed: seed, CLoad: loadConstantsFor(seed)}

	// Plan each table: keep (resume) or (re)create.
	l := &loader{in: in, seed: seed, now: time.Now().UTC().Truncate(time.Second), p: sp, plans: map[string]*tablePlan{}}
	recreate := make(map[string]bool)
	why := &reasons{}
	grownFrom := 0
	for i := range tables {
		tb, s := &tables[i], sv[i]
		pl := &tablePlan{t: tb, m: want, need: W, done: make([]bool, W+1)}
		if tb.name == "item" {
			pl.need = 1
		}
		l.plans[tb.name] = pl
		var because reason
		switch {
		case !s.exists:
			recreate[tb.name] = true
			continue
		case !s.owned:
			because = reason{"was not created by rightsize (--force)", "were not created by rightsize (--force)"}
		case s.m.Warehouses < W && s.m.Loaded && s.m.Seed == seed && !s.m.Indexing:
			// A complete smaller load of the same data: grow it.
			done, n, ok := parseRanges(s.m.Done, W+1)
			if tb.name == "item" {
				ok = ok && n == 1 && done[0]
			} else {
				ok = ok && n == s.m.Warehouses && !done[0]
			}
			if !ok {
				because = reason{"has an unreadable record", "have unreadable records"}
				break
			}
			grownFrom = s.m.Warehouses
			pl.m = s.m
			pl.m.Warehouses, pl.m.CLoad = W, want.CLoad
			pl.done, pl.ndone = done, n
			if n != pl.need {
				pl.m.Loaded, pl.m.Indexed = false, len(tb.indexes) > 0
			}
			continue
		case s.m.Warehouses != W:
			r := fmt.Sprintf(" %d warehouse(s), --warehouses asks %d", s.m.Warehouses, W)
			because = reason{"holds" + r, "hold" + r}
		case s.m.Seed != seed:
			r := fmt.Sprintf(" loaded with seed %d, --seed asks %d", s.m.Seed, seed)
			because = reason{"was" + r, "were" + r}
		case s.m.Indexing:
			because = reason{"was interrupted while indexing", "were interrupted while indexing"}
		default:
			done, n, ok := parseRanges(s.m.Done, W+1)
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
			if s.m.Loaded && n != pl.need {
				because = reason{"has an inconsistent record", "have inconsistent records"}
				break
			}
			pl.m = s.m
			pl.m.CLoad = want.CLoad
			pl.done, pl.ndone = done, n
			continue
		}
		recreate[tb.name] = true
		why.add(because, tb.name)
	}
	// A unit to load deletes its partial rows from each of its tables; a
	// table already indexed cannot take them again: recreate it.
	for changed := true; changed; {
		changed = false
		for _, u := range l.allUnits(W) {
			if l.unitDone(u) {
				continue
			}
			for _, name := range unitTables[u.k] {
				if pl := l.plans[name]; !recreate[name] && pl.m.Loaded && len(pl.t.indexes) > 0 {
					recreate[name] = true
					why.add(reason{"shares warehouses with tables loaded again", "share warehouses with tables loaded again"}, name)
					pl.done, pl.ndone = make([]bool, W+1), 0
					changed = true
				}
			}
		}
	}
	for _, m := range why.text() {
		sp.Message(m + ": dropping and loading again")
	}
	if grownFrom > 0 {
		sp.Message(fmt.Sprintf("growing from %d to %d warehouse(s): loading only warehouses %d-%d, into the indexed tables", grownFrom, W, grownFrom+1, W))
	}

	// Everything kept and complete: nothing to do, after a sanity check.
	if len(recreate) == 0 && l.allLoaded() {
		if ok, err := l.countsMatch(ctx, admin); err != nil {
			return err
		} else if ok {
			sp.Message(fmt.Sprintf("already loaded: %d warehouse(s), seed %d; kept", W, seed))
			return nil
		}
		sp.Message("the TPC-C tables recorded as loaded hold other row counts: dropping and loading again")
		for i := range tables {
			recreate[tables[i].name] = true
		}
	}

	// Create: record first, so that an interrupted prepare leaves tables
	// rightsize knows it owns.
	for i := range tables {
		name := tables[i].name
		pl := l.plans[name]
		if !recreate[name] {
			if err := objects.Update(ctx, admin, name, pl.m); err != nil { // c_load, if missing
				return fmt.Errorf("record in %s: %w", objects.Table, err)
			}
			continue
		}
		pl.m, pl.done, pl.ndone, pl.fresh = want, make([]bool, W+1), 0, true
		if err := objects.Write(ctx, admin, name, Name, pl.m); err != nil {
			return fmt.Errorf("record in %s: %w", objects.Table, err)
		}
		if sv[i].exists {
			if _, err := admin.Exec(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
				return fmt.Errorf("drop %s: %w", name, err)
			}
		}
		if _, err := admin.Exec(ctx, tables[i].createSQL(d)); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}

	sp.Message(fmt.Sprintf("loading %d warehouse(s), seed %d", W, seed))
	var todo []loadUnit
	for _, u := range l.allUnits(W) {
		if !l.unitDone(u) {
			todo = append(todo, u)
			l.total += u.expectedRows()
		}
	}
	if len(todo) > 0 {
		sp.Total(l.total)
		if err := l.run(ctx, admin, todo, opt.Threads); err != nil {
			return err
		}
	}
	// Every complete table not yet recorded as loaded: indexed (those
	// complete from an earlier prepare that did not finish them), then
	// analyzed, once no loader's transaction is open any more.
	for i := range tables {
		pl := l.plans[tables[i].name]
		if pl.ndone != pl.need || pl.m.Loaded {
			continue
		}
		if !pl.final {
			pl.final = true
			if err := l.finish(ctx, admin, pl); err != nil {
				return err
			}
		}
		if err := l.settle(ctx, admin, pl); err != nil {
			return err
		}
	}
	return ctx.Err()
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
		case len(names) == len(tables):
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
func (l *loader) allUnits(W int) []loadUnit {
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

func (l *loader) allLoaded() bool {
	for _, pl := range l.plans {
		if !pl.m.Loaded {
			return false
		}
	}
	return true
}

// countsMatch checks a kept load's cheap cardinalities: W warehouses, 10 W
// districts, 100,000 items.
func (l *loader) countsMatch(ctx context.Context, c dialect.Conn) (bool, error) {
	W := int64(l.in.o.Warehouses)
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

// run loads the units over parallel connections; admin is one of them.
func (l *loader) run(ctx context.Context, admin dialect.Conn, todo []loadUnit, threads int) error {
	loaders := l.in.Loaders(threads, defaultLoaders, len(todo))
	return dbtarget.Parallel(ctx, &l.in.Instance, admin, loaders, todo, l.loadUnit)
}

func (u loadUnit) String() string {
	if u.k == unitItem {
		return "item"
	}
	return fmt.Sprintf("warehouse %d: %s", u.w, strings.Join(unitTables[u.k], ", "))
}

// loadUnit deletes any partial rows of u, loads it, records it, and
// finishes the tables it completes.
func (l *loader) loadUnit(ctx context.Context, c dialect.Conn, u loadUnit) error {
	l.p.Message("loading " + u.String())
	for _, name := range unitTables[u.k] {
		pl := l.plans[name]
		if pl.fresh {
			continue
		}
		// Unrecord the unit before deleting its rows (it is complete in
		// this table but not in another of the unit's).
		l.mu.Lock()
		var err error
		if pl.done[u.w] {
			pl.setDone(u.w, false)
			pl.m.Loaded = false
			err = objects.Update(ctx, c, name, pl.m)
		}
		l.mu.Unlock()
		if err != nil {
			return fmt.Errorf("%s: record in %s: %w", u, objects.Table, err)
		}
		q := "DELETE FROM " + name
		var args []any
		if u.k != unitItem {
			q += " WHERE " + wColumn[name] + " = ?"
			args = append(args, u.w)
		}
		if _, err := c.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: delete partial rows: %w", u, err)
		}
	}
	for _, g := range unitGens(u, l.seed, l.now, l.p.Add) {
		if g.name == "order_line" {
			l.adjustTotal(int64(g.n - meanOrderLines))
		}
		got, err := c.Load(ctx, g.name, l.plans[g.name].t.columns(), g)
		g.flush()
		if err != nil {
			return fmt.Errorf("%s: load %s: %w", u, g.name, err)
		}
		if got != int64(g.n) {
			return fmt.Errorf("%s: load %s: %d rows loaded, want %d", u, g.name, got, g.n)
		}
	}

	var finish []*tablePlan
	l.mu.Lock()
	for _, name := range unitTables[u.k] {
		pl := l.plans[name]
		pl.setDone(u.w, true)
		if err := objects.Update(ctx, c, name, pl.m); err != nil {
			l.mu.Unlock()
			return fmt.Errorf("%s: record in %s: %w", u, objects.Table, err)
		}
		if pl.ndone == pl.need && !pl.final {
			pl.final = true
			finish = append(finish, pl)
		}
	}
	l.mu.Unlock()
	for _, pl := range finish {
		if err := l.finish(ctx, c, pl); err != nil {
			return err
		}
	}
	return nil
}

// finish creates a complete table's secondary indexes, while other tables
// may still be loading, and records them.
func (l *loader) finish(ctx context.Context, c dialect.Conn, pl *tablePlan) error {
	name := pl.t.name
	idx := pl.t.indexSQL()
	if len(idx) == 0 || pl.m.Indexed {
		return nil
	}
	if err := l.record(ctx, c, pl, func(m *loadMeta) { m.Indexing = true }); err != nil {
		return err
	}
	l.p.Message("indexing " + name)
	for _, q := range idx {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: create index: %w", name, err)
		}
	}
	return l.record(ctx, c, pl, func(m *loadMeta) { m.Indexing, m.Indexed = false, true })
}

// record changes pl's record with set and writes it, under the loader's
// lock.
func (l *loader) record(ctx context.Context, c dialect.Conn, pl *tablePlan, set func(*loadMeta)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	set(&pl.m)
	if err := objects.Update(ctx, c, pl.t.name, pl.m); err != nil {
		return fmt.Errorf("%s: record in %s: %w", pl.t.name, objects.Table, err)
	}
	return nil
}

// settle brings a complete, indexed table's statistics up to date
// (dialect.Analyzer) and records it as loaded. It runs after every loader
// has committed: PostgreSQL's VACUUM marks a page all-visible only when no
// transaction that might not see its rows is still open, as another
// loader's COPY would be. An interrupted settle leaves the table recorded as
// indexed, and the next prepare settles it again.
func (l *loader) settle(ctx context.Context, c dialect.Conn, pl *tablePlan) error {
	name := pl.t.name
	if a, ok := l.in.Target.D.(dialect.Analyzer); ok {
		l.p.Message("analyzing " + name)
		if _, err := c.Exec(ctx, a.AnalyzeSQL(name)); err != nil {
			return fmt.Errorf("%s: analyze: %w", name, err)
		}
	}
	return l.record(ctx, c, pl, func(m *loadMeta) { m.Indexing, m.Indexed, m.Loaded = false, false, true })
}

// Cleanup drops the nine TPC-C tables that rightsize_objects records, and
// their records; with opt.Force also unrecorded ones. Unrecorded tables left
// in place are reported in an error wrapping ErrNotOwned, after everything
// else is done; rightsize_objects is dropped once it holds no record.
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
	for i := range tables {
		name := tables[i].name
		owned := false
		if hasMeta {
			var m loadMeta
			if owned, err = objects.Read(ctx, c, name, &m); err != nil {
				return removed, fmt.Errorf("%s: cleanup: read %s: %w", in.Target, objects.Table, err)
			}
		}
		exists, err := c.TableExists(ctx, name)
		if err != nil {
			return removed, fmt.Errorf("%s: cleanup: %s: %w", in.Target, name, err)
		}
		switch {
		case exists && (owned || opt.Force):
			if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
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

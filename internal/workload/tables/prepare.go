package tables

import (
	"context"
	"fmt"
	"sync"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// defaultLoaders is the number of parallel loaders when neither --threads
// nor Set.Loaders says.
const defaultLoaders = 4

// Work is a workload's answer to what a survey found: what to keep of each
// table, and the units of the load.
type Work struct {
	// Parts is the number of part slots, 1 + the highest part (TPC-C: the
	// warehouses + 1); 1 when every table is loaded whole.
	Parts int
	// Tables holds the decision for each table of the Set, in its order.
	Tables []Decision
	// Units are every unit of the load, in the order to load them (the
	// longest first, so that parallel loaders finish together). Those
	// complete in every table they write are skipped.
	Units []Unit
	// Start is said once prepare goes ahead, before the first unit loads.
	Start string
}

// Decision is what prepare does with one table.
type Decision struct {
	// Recreate drops the table if it exists and creates it empty;
	// otherwise it is kept (complete, resumed or grown).
	Recreate bool
	// Record is what rightsize_objects records of the table: a fresh one
	// (its State is reset) or the kept one.
	Record Record
	// Done marks the parts of a kept table whose rows are complete (len
	// Work.Parts); nil for none.
	Done []bool
}

// Unit is one unit of the load: part Part of the tables it writes, loaded
// by one loader in one go. Its rows depend only on what the unit is (and a
// seed), so that they do not depend on how many loaders there are.
type Unit struct {
	Name   string   // in messages and errors: "sbtest1", "warehouse 1: stock"
	Say    string   // said when it starts; "" says "loading " + Name
	Part   int      // 0 for a table loaded whole
	Tables []string // written, in load order
	Rows   int64    // expected rows, for progress (corrected by the sources' Rows)
	// Sources returns one row source per table of Tables, in order; add
	// receives the rows generated, for progress.
	Sources func(add func(int64)) []Source
}

// Source is a batched row source of one table of a unit.
type Source interface {
	dialect.RowSource
	Rows() int64 // exactly how many rows it yields
	Flush()      // reports the rows generated and not yet reported
}

// Decider decides what prepare keeps, from what Survey found of the Set's
// tables (only those rightsize owns, or any with --force, reach it). It says
// through p why it loads recorded tables again. c is the admin connection,
// for cheap checks (counts); a Decider changes nothing.
type Decider func(ctx context.Context, c dialect.Conn, found []Found, p workload.Progress) (*Work, error)

// Prepare creates and loads s on in's target as plan decides.
//
// It first surveys the tables: one that exists without a record in
// rightsize_objects stops prepare before anything is changed
// (objects.ErrNotOwned), unless opt.Force. Each table is recorded before
// it is changed, so that an interrupted prepare leaves tables rightsize
// knows it owns; a table plan recreates is dropped and created, the others
// are kept. The units not yet complete are then loaded by up to
// opt.Threads connections (default Set.Loaders; one where the database has
// a single writer): a unit first deletes its partial rows from the kept
// tables it writes (an interrupted prepare), then loads each table through
// the dialect's bulk path. A table's secondary indexes are created once its
// rows are complete; once every table is, each is analyzed (Set.Analyze)
// and recorded as loaded.
func Prepare(ctx context.Context, in *dbtarget.Base, s *Set, opt workload.PrepareOptions, p workload.Progress, plan Decider) error {
	if err := prepare(ctx, in, s, opt, workload.SyncProgress(p), plan); err != nil {
		return fmt.Errorf("%s: prepare: %w", in.Target, err)
	}
	return nil
}

func prepare(ctx context.Context, in *dbtarget.Base, s *Set, opt workload.PrepareOptions, sp workload.Progress, plan Decider) error {
	d := in.Target.D
	if err := objects.EnsureDatabase(ctx, d, in.Target.T); err != nil {
		return err
	}
	admin, err := in.Connect(ctx)
	if err != nil {
		return err
	}
	defer func() { admin.Close() }()
	// Survey first and create the record table only once prepare goes
	// ahead: a refused prepare issues no DDL at all.
	found, err := Survey(ctx, admin, s.Names())
	if err != nil {
		return err
	}
	if err := refuseForeign(found, opt.Force); err != nil {
		return err
	}
	if err := objects.Ensure(ctx, admin, d); err != nil {
		return fmt.Errorf("create %s: %w", objects.Table, err)
	}
	pl, err := plan(ctx, admin, found, sp)
	if err != nil {
		return err
	}
	l := newLoader(in, s, pl, sp)
	if l.complete() {
		return nil
	}
	if err := l.create(ctx, admin, found); err != nil {
		return err
	}
	if pl.Start != "" {
		sp.Message(pl.Start)
	}
	var todo []Unit
	for _, u := range pl.Units {
		if !l.unitDone(u) {
			todo = append(todo, u)
			l.total += u.Rows
		}
	}
	if len(todo) > 0 {
		sp.Total(l.total)
		loaders := in.Loaders(opt.Threads, orDefault(s.Loaders, defaultLoaders), len(todo))
		if err := dbtarget.Parallel(ctx, in, admin, loaders, todo, l.loadUnit); err != nil {
			return err
		}
	}
	return l.finishAll(ctx, admin)
}

// orDefault is v, or def when v is not positive.
func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// loader is one prepare's shared state.
type loader struct {
	in     *dbtarget.Base
	set    *Set
	p      workload.Progress // synchronised
	order  []*tableLoad      // the Set's order
	tables map[string]*tableLoad

	mu    sync.Mutex // guards the tables' done sets and records, and total
	total int64
}

// tableLoad is prepare's state of one table.
type tableLoad struct {
	t        *Table
	rec      Record
	done     []bool // by part
	ndone    int
	need     int  // parts the table is complete with: 1 when loaded whole
	recreate bool // dropped (if it exists) and created empty
	fresh    bool // created empty by this prepare: no partial rows to delete
	final    bool // finishing (its indexes) claimed by a loader
}

func newLoader(in *dbtarget.Base, s *Set, pl *Work, sp workload.Progress) *loader {
	l := &loader{in: in, set: s, p: sp, tables: map[string]*tableLoad{}}
	for i := range s.Tables {
		dec := pl.Tables[i]
		tl := &tableLoad{t: &s.Tables[i], rec: dec.Record, done: dec.Done, need: pl.Parts - 1, recreate: dec.Recreate}
		if tl.t.PartColumn == "" {
			tl.need = 1
		}
		if tl.done == nil || dec.Recreate {
			tl.done = make([]bool, pl.Parts)
		}
		for _, v := range tl.done {
			if v {
				tl.ndone++
			}
		}
		l.order = append(l.order, tl)
		l.tables[tl.t.Name] = tl
	}
	return l
}

// complete reports whether every table is kept and recorded as loaded.
func (l *loader) complete() bool {
	for _, tl := range l.order {
		if tl.recreate || !tl.rec.TableState().Loaded {
			return false
		}
	}
	return true
}

func (tl *tableLoad) setDone(part int, v bool) {
	if tl.done[part] != v {
		tl.done[part] = v
		if v {
			tl.ndone++
		} else {
			tl.ndone--
		}
	}
	tl.rec.TableState().Done = FormatRanges(tl.done)
}

// create records every table, then drops and creates those to recreate.
func (l *loader) create(ctx context.Context, admin dialect.Conn, found []Found) error {
	for i, tl := range l.order {
		name := tl.t.Name
		if !tl.recreate {
			tl.rec.TableState().Done = FormatRanges(tl.done)
			if err := objects.Update(ctx, admin, name, tl.rec); err != nil {
				return fmt.Errorf("record in %s: %w", objects.Table, err)
			}
			continue
		}
		*tl.rec.TableState() = State{}
		tl.fresh = true
		if err := objects.Write(ctx, admin, name, l.set.Workload, tl.rec); err != nil {
			return fmt.Errorf("record in %s: %w", objects.Table, err)
		}
		if found[i].Exists {
			l.p.Message("dropping " + name)
			if _, err := admin.Exec(ctx, DropSQL(name)); err != nil {
				return fmt.Errorf("drop %s: %w", name, err)
			}
		}
		if _, err := admin.Exec(ctx, tl.t.Create(l.in.Target.D)); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	return nil
}

// unitDone reports whether every table of u holds u's complete rows.
func (l *loader) unitDone(u Unit) bool {
	for _, name := range u.Tables {
		if !l.tables[name].done[u.Part] {
			return false
		}
	}
	return true
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

// loadUnit deletes any partial rows of u, loads it, records it, and
// finishes the tables it completes.
func (l *loader) loadUnit(ctx context.Context, c dialect.Conn, u Unit) error {
	if u.Say != "" {
		l.p.Message(u.Say)
	} else {
		l.p.Message("loading " + u.Name)
	}
	if err := l.deletePartial(ctx, c, u); err != nil {
		return err
	}
	srcs := u.Sources(l.p.Add)
	var rows int64
	for _, src := range srcs {
		rows += src.Rows()
	}
	l.adjustTotal(rows - u.Rows)
	for i, src := range srcs {
		name := u.Tables[i]
		if src.Rows() == 0 {
			continue
		}
		got, err := c.Load(ctx, name, l.tables[name].t.Columns, src)
		src.Flush()
		if err != nil {
			return fmt.Errorf("%s: load %s: %w", u.Name, name, err)
		}
		if got != src.Rows() {
			return fmt.Errorf("%s: load %s: %d rows loaded, want %d", u.Name, name, got, src.Rows())
		}
	}
	var finish []*tableLoad
	l.mu.Lock()
	for _, name := range u.Tables {
		tl := l.tables[name]
		tl.setDone(u.Part, true)
		if err := objects.Update(ctx, c, name, tl.rec); err != nil {
			l.mu.Unlock()
			return fmt.Errorf("%s: record in %s: %w", u.Name, objects.Table, err)
		}
		if tl.ndone == tl.need && !tl.final {
			tl.final = true
			finish = append(finish, tl)
		}
	}
	l.mu.Unlock()
	for _, tl := range finish {
		if err := l.finish(ctx, c, tl); err != nil {
			return err
		}
		if !l.set.Analyze { // nothing waits for the other loaders
			if err := l.settle(ctx, c, tl); err != nil {
				return err
			}
		}
	}
	return nil
}

// deletePartial unrecords u in each kept table it writes and deletes the
// rows an interrupted load of it left there.
func (l *loader) deletePartial(ctx context.Context, c dialect.Conn, u Unit) error {
	for _, name := range u.Tables {
		tl := l.tables[name]
		if tl.fresh {
			continue
		}
		// Unrecord the unit before deleting its rows (it is complete in
		// this table but not in another of the unit's).
		l.mu.Lock()
		var err error
		if tl.done[u.Part] {
			tl.setDone(u.Part, false)
			tl.rec.TableState().Loaded = false
			err = objects.Update(ctx, c, name, tl.rec)
		}
		l.mu.Unlock()
		if err != nil {
			return fmt.Errorf("%s: record in %s: %w", u.Name, objects.Table, err)
		}
		q := "DELETE FROM " + name
		var args []any
		if tl.t.PartColumn != "" {
			q += " WHERE " + tl.t.PartColumn + " = ?"
			args = append(args, u.Part)
		}
		if _, err := c.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: delete partial rows: %w", u.Name, err)
		}
	}
	return nil
}

// finishAll indexes every complete table not yet recorded as loaded (those
// complete from an earlier prepare that did not finish them), then
// analyzes it, once no loader's transaction is open any more.
func (l *loader) finishAll(ctx context.Context, admin dialect.Conn) error {
	for _, tl := range l.order {
		if tl.ndone != tl.need || tl.rec.TableState().Loaded {
			continue
		}
		if !tl.final {
			tl.final = true
			if err := l.finish(ctx, admin, tl); err != nil {
				return err
			}
		}
		if err := l.settle(ctx, admin, tl); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// finish creates a complete table's secondary indexes, while other tables
// may still be loading, and records them.
func (l *loader) finish(ctx context.Context, c dialect.Conn, tl *tableLoad) error {
	name := tl.t.Name
	if len(tl.t.Indexes) == 0 || tl.rec.TableState().Indexed {
		return nil
	}
	if err := l.record(ctx, c, tl, func(s *State) { s.Indexing = true }); err != nil {
		return err
	}
	l.p.Message("indexing " + name)
	for _, q := range tl.t.Indexes {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: create index: %w", name, err)
		}
	}
	return l.record(ctx, c, tl, func(s *State) { s.Indexing, s.Indexed = false, true })
}

// record changes tl's record with set and writes it, under the loader's
// lock.
func (l *loader) record(ctx context.Context, c dialect.Conn, tl *tableLoad, set func(*State)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	set(tl.rec.TableState())
	if err := objects.Update(ctx, c, tl.t.Name, tl.rec); err != nil {
		return fmt.Errorf("%s: record in %s: %w", tl.t.Name, objects.Table, err)
	}
	return nil
}

// settle brings a complete, indexed table's statistics up to date
// (Set.Analyze, where the dialect is a dialect.Analyzer) and records it as
// loaded. With Analyze it runs after every loader has committed:
// PostgreSQL's VACUUM marks a page all-visible only when no transaction
// that might not see its rows is still open, as another loader's COPY
// would be. An interrupted settle leaves the table recorded as indexed, and
// the next prepare settles it again.
func (l *loader) settle(ctx context.Context, c dialect.Conn, tl *tableLoad) error {
	name := tl.t.Name
	if a, ok := l.in.Target.D.(dialect.Analyzer); ok && l.set.Analyze {
		l.p.Message("analyzing " + name)
		if _, err := c.Exec(ctx, a.AnalyzeSQL(name)); err != nil {
			return fmt.Errorf("%s: analyze: %w", name, err)
		}
	}
	return l.record(ctx, c, tl, func(s *State) { s.Indexing, s.Indexed, s.Loaded = false, false, true })
}

// Counted is the counting half of a Source that yields N rows: embed it
// and write Values over its Row. Next moves to the next row and reports
// the rows made to Add (progress) a thousand at a time; Flush reports the
// rest.
type Counted struct {
	N       int64       // rows to yield
	Add     func(int64) // progress; nil reports nothing
	i       int64
	pending int64
}

// Next moves to the next row (false once N were yielded).
func (c *Counted) Next() bool {
	if c.i >= c.N {
		return false
	}
	c.i++
	if c.pending++; c.pending >= 1000 {
		c.Flush()
	}
	return true
}

// Row is the row Next moved to, from 1.
func (c *Counted) Row() int64 { return c.i }

// Rows is N (Source).
func (c *Counted) Rows() int64 { return c.N }

// Err is nil: a generated row cannot fail.
func (c *Counted) Err() error { return nil }

// Flush reports the rows made and not yet reported.
func (c *Counted) Flush() {
	if c.pending > 0 && c.Add != nil {
		c.Add(c.pending)
	}
	c.pending = 0
}

package oltp

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// Hooks: the tables matched against the options.
func (in *instance) Hooks() workload.InstanceHooks { return workload.InstanceHooks{Match: in.Match} }

// Match compares sbtest1..--tables with the options run was given
// (InstanceHooks.Match), from their records in rightsize_objects:
//
//   - a missing table is ErrMissingTables, as NewVU says: --force cannot
//     run on it;
//   - a table recorded with another --table-size, or whose load did not
//     finish, is a mismatch (workload.ErrMismatch). oltp_insert only adds
//     rows and draws no id from --table-size: its tables' size is not
//     compared;
//   - fewer --tables than exist is allowed, as in sysbench (the run uses
//     sbtest1..N), with a note;
//   - a table without a record (made by sysbench, or by hand) is never
//     refused: its highest id, which a sysbench prepare makes --table-size,
//     is compared instead, and a difference is a note.
func (in *instance) Match(ctx context.Context) ([]string, error) {
	return tables.Match(ctx, &in.Base, in.compare)
}

// compare is Match's comparison on connection c (tables.Comparer).
func (in *instance) compare(ctx context.Context, c dialect.Conn) (notes, problems []string, err error) {
	if err := in.checkTables(ctx, c); err != nil {
		return nil, nil, err
	}
	found, err := tables.Survey(ctx, c, in.tableSet().Names())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in.Target, err)
	}
	sizes := &groups{}
	var partial, foreign []int
	for i, f := range found {
		n := i + 1
		var m meta
		f.Decode(&m)
		switch {
		case !f.Owned:
			foreign = append(foreign, n)
		case !m.Loaded:
			partial = append(partial, n)
		case in.v != insert && m.TableSize != in.o.TableSize:
			sizes.add(m.TableSize, n)
		}
	}
	for _, g := range sizes.list {
		problems = append(problems, fmt.Sprintf("%s (prepared), --table-size asks %s",
			holdRows(g.tables, g.v), workload.Thousands(in.o.TableSize)))
	}
	if len(partial) > 0 {
		problems = append(problems, named(partial, "was", "were")+" not fully loaded (prepare was interrupted)")
	}
	notes, err = in.matchNotes(ctx, c, foreign)
	return notes, problems, err
}

// matchNotes compares the highest id of the tables without a record with
// --table-size, and says when more tables exist than --tables uses.
func (in *instance) matchNotes(ctx context.Context, c dialect.Conn, foreign []int) ([]string, error) {
	var notes []string
	if in.v != insert {
		ids := &groups{}
		for _, n := range foreign {
			var top int64
			if err := c.QueryRow(ctx, "SELECT COALESCE(MAX(id), 0) FROM "+tableName(n), nil, &top); err != nil {
				return nil, fmt.Errorf("%s: highest id of %s: %w", in.Target, tableName(n), err)
			}
			if top != in.o.TableSize {
				ids.add(top, n)
			}
		}
		for _, g := range ids.list {
			notes = append(notes, fmt.Sprintf("%s no record in %s (made by sysbench, or by hand) and %s highest id is %s, --table-size asks %s: pass the --table-size %s loaded with",
				named(g.tables, "has", "have"), metaTable, pick(g.tables, "its", "their"),
				workload.Thousands(g.v), workload.Thousands(in.o.TableSize), pick(g.tables, "it was", "they were")))
		}
	}
	next := tableName(in.o.Tables + 1)
	more, err := c.TableExists(ctx, next)
	if err != nil {
		return nil, fmt.Errorf("%s: check table %s: %w", in.Target, next, err)
	}
	if more {
		notes = append(notes, fmt.Sprintf("%s exists too: --tables %d uses %s only", next, in.o.Tables, tableRange(1, in.o.Tables)))
	}
	return notes, nil
}

// groups collects table numbers by a value (a size, a highest id), in the
// order the values are first seen.
type groups struct{ list []group }

type group struct {
	v      int64
	tables []int
}

func (g *groups) add(v int64, n int) {
	for i := range g.list {
		if g.list[i].v == v {
			g.list[i].tables = append(g.list[i].tables, n)
			return
		}
	}
	g.list = append(g.list, group{v: v, tables: []int{n}})
}

// named names the tables ns (rising) with the verb that follows: "table
// sbtest2 was", "tables sbtest1..sbtest4 were".
func named(ns []int, one, many string) string {
	if len(ns) == 1 {
		return "table " + tableName(ns[0]) + " " + one
	}
	return "tables " + tableList(ns) + " " + many
}

// holdRows says that tables ns hold rows rows: "table sbtest1 holds 100
// rows", "tables sbtest1..sbtest2 hold 100 rows each".
func holdRows(ns []int, rows int64) string {
	r := workload.Thousands(rows)
	return named(ns, "holds "+r+" rows", "hold "+r+" rows each")
}

func pick(ns []int, one, many string) string {
	if len(ns) == 1 {
		return one
	}
	return many
}

// tableRange is "sbtest1" or "sbtest1..sbtest4".
func tableRange(lo, hi int) string {
	if lo == hi {
		return tableName(lo)
	}
	return tableName(lo) + ".." + tableName(hi)
}

// tableList names tables ns (rising): a range when they follow each other
// ("sbtest1..sbtest4"), else a list of at most ten ("sbtest1, sbtest3").
func tableList(ns []int) string {
	if len(ns) > 1 && ns[len(ns)-1]-ns[0] == len(ns)-1 {
		return tableRange(ns[0], ns[len(ns)-1])
	}
	names := make([]string, 0, min(len(ns), 11))
	for i, n := range ns {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(ns)-10))
			break
		}
		names = append(names, tableName(n))
	}
	return strings.Join(names, ", ")
}

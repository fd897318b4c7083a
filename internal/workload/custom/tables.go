package custom

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// set declares the tables the file creates (its existing tables are
// never handed to the shared routine: nothing creates, loads or drops
// them).
func (in *Instance) set() *tables.Set {
	s := &tables.Set{Workload: in.spec.Name, Analyze: true}
	for i := range in.spec.Tables {
		t := &in.spec.Tables[i]
		if t.Existing {
			continue
		}
		s.Tables = append(s.Tables, tables.Table{
			Name:    t.Name,
			Create:  func(d dialect.Dialect) string { return t.CreateSQL(d.Name(), d.TableOptions()) },
			Columns: t.ColumnNames(),
			Indexes: t.IndexSQL(),
		})
	}
	return s
}

// record is what rightsize_objects records of a created table: the
// definitions of the file's created tables it was loaded with (a table
// whose definition changed in the file is loaded again), and the shared
// routine's state.
type record struct {
	Definitions map[string]string `json:"definitions"`
	tables.State
}

// definitions returns, per created table, a digest of what shapes its
// rows: its CREATE TABLE and indexes on the instance's database, its row
// count and its columns' generators.
func (in *Instance) definitions() map[string]string {
	out := map[string]string{}
	for i := range in.spec.Tables {
		t := &in.spec.Tables[i]
		if t.Existing {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n%s\nrows %d\n", t.CreateSQL(in.dialect, ""), strings.Join(t.IndexSQL(), "\n"), t.Rows)
		for _, c := range t.Columns {
			if g := c.Gen; g != nil {
				fmt.Fprintf(&b, "%s %v %v %g %d %d %d %d %d %q %v\n", c.Name, g.Kind, g.Dist, g.Parameter, g.Min, g.Max, g.Scale, g.Start, g.Step, g.Pattern, g.Choices)
			}
		}
		sum := sha256.Sum256([]byte(b.String()))
		out[strings.ToLower(t.Name)] = hex.EncodeToString(sum[:8])
	}
	return out
}

// differ says how a recorded table differs from the file's definition.
func (in *Instance) differ(want map[string]string) tables.Differ {
	return func(f tables.Found) string {
		var r record
		f.Decode(&r)
		if r.Definitions[strings.ToLower(f.Name)] != want[strings.ToLower(f.Name)] {
			return "was loaded from another definition of it in " + in.spec.File
		}
		return ""
	}
}

// checkExisting returns an error naming the tables the file declares
// existing that the target lacks.
func (in *Instance) checkExisting(ctx context.Context, c dialect.Conn) error {
	var missing []string
	for _, t := range in.spec.Tables {
		if !t.Existing {
			continue
		}
		ok, err := c.TableExists(ctx, t.Name)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", in.Target, t.Name, err)
		}
		if !ok {
			missing = append(missing, t.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: %w: %s declares %s existing, and the target has no such table (restore a copy of production there; rightsize never creates, loads or drops an existing table)",
			in.Target, workload.ErrNotPrepared, in.spec.File, strings.Join(missing, ", "))
	}
	return nil
}

// Prepare checks that the existing tables are there, then creates and
// loads the file's own tables (tables.Prepare): resumed after an
// interruption, kept when loaded from the same definition.
func (in *Instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	p = workload.SyncProgress(p)
	s := in.set()
	// A file of existing tables needs a database that holds them: only a
	// file of its own tables alone may have prepare create the database.
	if len(s.Tables) == len(in.spec.Tables) {
		if err := objects.EnsureDatabase(ctx, in.Target.D, in.Target.T); err != nil {
			return fmt.Errorf("%s: prepare: %w", in.Target, err)
		}
	}
	c, err := in.Connect(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Target, err)
	}
	err = in.checkExisting(ctx, c)
	if err == nil && !opt.Force {
		err = in.refuseOthers(ctx, c, s.Names())
	}
	c.Close()
	if err != nil {
		return err
	}
	if len(s.Tables) == 0 {
		p.Message("nothing to load: every table of " + in.spec.File + " is existing")
		return nil
	}
	defs := in.definitions()
	seed := opt.Seed
	if seed == 0 {
		seed = 0x6a09e667f3bcc908
	}
	start := time.Now().Truncate(time.Second)
	var units []tables.Unit
	for i := range in.spec.Tables {
		t := &in.spec.Tables[i]
		if t.Existing {
			continue
		}
		tseed := seed + uint64(len(units))*0x9e3779b97f4a7c15
		units = append(units, tables.Unit{Name: t.Name, Tables: []string{t.Name}, Rows: t.Rows,
			Sources: func(add func(int64)) []tables.Source {
				return []tables.Source{&rowSource{Counted: tables.Counted{N: t.Rows, Add: add}, rows: t.NewRows(datagen.NewSource(tseed), start), vals: make([]any, len(t.Columns))}}
			}})
	}
	fresh := func() tables.Record { return &record{Definitions: defs} }
	return tables.Prepare(ctx, &in.Base, s, opt, p, tables.Whole(units, fresh, in.differ(defs)))
}

// Cleanup drops the tables the file created (tables.Cleanup); its
// existing tables are never dropped, even with --force, nor, without
// --force, a table of its name that rightsize made for another workload.
func (in *Instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) ([]string, error) {
	names := in.set().Names()
	if len(names) == 0 {
		return nil, nil
	}
	if !opt.Force {
		c, err := in.Connect(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: cleanup: %w", in.Target, err)
		}
		err = in.refuseOthers(ctx, c, names)
		c.Close()
		if err != nil {
			return nil, err
		}
	}
	return tables.Cleanup(ctx, &in.Base, names, opt.Force)
}

// refuseOthers returns the error that stops prepare and cleanup (unless
// --force) when rightsize_objects records one of the file's tables as
// another workload's: a built-in's, or another file's of another name,
// whose table the shared routine would otherwise take for this one's and
// drop.
func (in *Instance) refuseOthers(ctx context.Context, c dialect.Conn, names []string) error {
	var others []string
	for _, name := range names {
		owner, err := objects.Owner(ctx, c, name)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", in.Target, objects.Table, err)
		}
		if owner != "" && owner != in.spec.Name {
			others = append(others, name+" ("+owner+"'s)")
		}
	}
	if len(others) > 0 {
		return fmt.Errorf("%s: table(s) %s were made by rightsize for another workload; %s would drop them: name its tables otherwise, clean the other workload up, or give --force",
			in.Target, strings.Join(others, ", "), in.spec.File)
	}
	return nil
}

// Match checks, before a run, that the file's existing tables are there
// and that its own tables were loaded from its definitions (tables.Match);
// whether it may write them was checked when it opened (Validate). The
// run's notes name the existing tables it writes.
func (in *Instance) Match(ctx context.Context) ([]string, error) {
	set := in.set()
	whole := tables.CompareWhole(&in.Base, set, in.differ(in.definitions()))
	return tables.Match(ctx, &in.Base, func(ctx context.Context, c dialect.Conn) (notes, problems []string, err error) {
		if err := in.checkExisting(ctx, c); err != nil {
			return nil, nil, err
		}
		if w := in.spec.WritesExisting(); len(w) > 0 {
			by := "--allow-writes"
			if in.spec.AllowWrites {
				by = "allow_writes in " + in.spec.File
			}
			notes = append(notes, "the run writes the existing table(s) "+strings.Join(w, ", ")+" (allowed by "+by+")")
		}
		if len(set.Tables) == 0 {
			return notes, nil, nil
		}
		more, problems, err := whole(ctx, c)
		return append(notes, more...), problems, err
	})
}

// rowSource yields a created table's rows (workfile.Rows) for the load.
type rowSource struct {
	tables.Counted
	rows *workfile.Rows
	vals []any
}

// Values returns the row's values as the dialects' loaders take them: a
// text is a string of its own (a loader may keep it until its batch is
// sent).
func (r *rowSource) Values() ([]any, error) {
	for c, v := range r.rows.Row(r.Row() - 1) {
		r.vals[c] = value(&v, copyText)
	}
	return r.vals, nil
}

// copyText is a text a loader keeps: a string of its own.
func copyText(b []byte) string { return string(b) }

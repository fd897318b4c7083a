package capturedb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

// ErrNotReady wraps a refusal to capture: the server's statistics are off
// or missing, or the user may not read them. The message says what to
// enable or grant.
var ErrNotReady = exitcode.New("cannot capture", exitcode.Usage)

// Options are a capture's.
type Options struct {
	Target string        // the database's URL (may hold a password: never printed)
	For    time.Duration // the window
	// Progress receives a line now and then (stderr); nil for none.
	Progress io.Writer
	Getenv   func(string) string
	// Tick is how often a progress line is written (default 10 s).
	Tick time.Duration
	// Log is the server's statement log to read too (PostgreSQL's csvlog
	// file, MySQL's or MariaDB's slow query log file), "" for none.
	Log string
}

// stepTimeout bounds the reads before the window, and the last snapshot.
var stepTimeout = 2 * time.Minute

// lastGrace is how long the last snapshot may take after a signal.
const lastGrace = 2 * time.Second

// server is what one kind of server answers beyond its statement
// statistics (stmtstats).
type server interface {
	// catalog reads the catalog through r (its statements marked and
	// counted as the reader's).
	catalog(ctx context.Context, r *stmtstats.Reader) (*capture.Catalog, error)
	source() capture.Source
	// serverTx is the server's count of transactions in d, or -1 when it
	// has none that counts every transaction.
	serverTx(d capture.Delta) int64
}

// Result is a finished capture.
type Result struct {
	Model *capture.Model
	// Early tells that the window was cut short (the context ended): the
	// model holds what was counted until then.
	Early bool
}

// Capture connects to the target, checks that its statistics can be read,
// reads its catalog, and counts over the window. When ctx ends during the
// window, the window ends there and what was counted is returned (Early);
// before it, the error.
func Capture(ctx context.Context, o Options) (*Result, error) {
	loc, d, err := all.ForURL(o.Target, o.Getenv)
	if err != nil {
		return nil, err
	}
	// The connection is not tied to ctx: a signal ends the window, and the
	// last snapshot is still read on it (a driver may close a connection
	// whose context ended). Each step is bounded instead, and ctx is
	// checked between them.
	if loc.Dialect != "postgres" && loc.Dialect != "mysql" { // before opening: SQLite would create the file
		return nil, fmt.Errorf("%w: %s keeps no statement statistics to capture (PostgreSQL and MySQL/MariaDB do)", ErrNotReady, loc.Dialect)
	}
	db := context.WithoutCancel(ctx)
	cctx, cancel, _ := loc.ConnectWithin(ctx)
	c, err := d.Connect(cctx, loc)
	cancel()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var s server = &postgres{info: c.Info(), db: loc.Database}
	if loc.Dialect == "mysql" {
		s = &mysql{info: c.Info(), db: loc.Database}
	}
	// The steps before the window end with a signal: nothing is counted yet.
	sctx, scancel := context.WithTimeout(ctx, stepTimeout)
	defer scancel()
	stats, err := stmtstats.Open(sctx, c, stmtstats.Options{Marker: capture.Marker, Whole: true, TopLevel: true})
	if nr := (*stmtstats.NotReady)(nil); errors.As(err, &nr) {
		return nil, fmt.Errorf("%w: %s", ErrNotReady, nr.Reason)
	}
	if err != nil {
		return nil, err
	}
	cat, err := s.catalog(sctx, stats)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	log, err := noteLog(sctx, stats, o.Log, loc.Dialect == "mysql")
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	a, err := stats.Snapshot(sctx)
	if err != nil {
		return nil, err
	}
	progress(o.Progress, "rightsize: capturing %s for %v (Ctrl-C ends the window early and writes what was counted)\n", loc.Redacted, o.For)
	early := wait(ctx, o, a.At)
	// The last snapshot is read after a signal too (what the window saw so
	// far), but a server that does not answer it gets lastGrace after the
	// signal, not the 2 minutes of a step.
	lctx, lcancel := context.WithTimeout(db, stepTimeout)
	defer lcancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(lastGrace, lcancel) })
	defer stop()
	b, err := stats.Snapshot(lctx)
	if err != nil {
		if early && lctx.Err() != nil {
			return nil, fmt.Errorf("the server did not answer the window's last reading within %v of the signal: nothing to write: %w", lastGrace, context.Cause(ctx))
		}
		return nil, err
	}
	delta := capture.Diff(a, b)
	src := s.source()
	src.Start = a.At
	tr, err := log.trace(delta, loc.Database, loc.Dialect == "mysql", cat, early)
	if err != nil {
		return nil, err
	}
	m := capture.BuildTraced(src, delta, cat, s.serverTx(delta), tr)
	return &Result{Model: m, Early: early}, nil
}

// wait sleeps until the window ends or ctx does, writing progress; it
// reports whether ctx ended it.
func wait(ctx context.Context, o Options, start time.Time) bool {
	tick := o.Tick
	if tick <= 0 {
		tick = 10 * time.Second
	}
	end := time.NewTimer(o.For)
	defer end.Stop()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			progress(o.Progress, "rightsize: window ended early after %v\n", time.Since(start).Round(time.Second))
			return true
		case <-end.C:
			return false
		case now := <-t.C:
			progress(o.Progress, "rightsize: %v of %v\n", now.Sub(start).Round(time.Second), o.For)
		}
	}
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// uniqueColumns marks the columns that alone make up a primary or unique
// key, from (table, constraint, column) rows.
type keyCol struct{ table, constraint, column, kind string }

// readCatalog reads the catalog's columns (colsSQL: table, column, type)
// and its primary and unique keys (keysSQL: table, constraint, column,
// kind), every name lower-cased, the servers' information_schema read
// with each one's own schema filter.
func readCatalog(ctx context.Context, q *stmtstats.Reader, colsSQL, keysSQL string) (*capture.Catalog, error) {
	var cols []capture.Column
	var tables []string
	err := q.Query(ctx, colsSQL, func(r dialect.Rows) error {
		var t string
		var col capture.Column
		if err := r.Scan(&t, &col.Name, &col.Type); err != nil {
			return err
		}
		tables = append(tables, strings.ToLower(t))
		col.Name = strings.ToLower(col.Name)
		cols = append(cols, col)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var keys []keyCol
	err = q.Query(ctx, keysSQL, func(r dialect.Rows) error {
		var k keyCol
		if err := r.Scan(&k.table, &k.constraint, &k.column, &k.kind); err != nil {
			return err
		}
		k.table, k.column = strings.ToLower(k.table), strings.ToLower(k.column)
		keys = append(keys, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return buildCatalog(cols, tables, keys), nil
}

func buildCatalog(cols []capture.Column, tableOf []string, keys []keyCol) *capture.Catalog {
	cat := &capture.Catalog{}
	idx := map[string]int{}
	for i, c := range cols {
		t := tableOf[i]
		k, ok := idx[t]
		if !ok {
			k = len(cat.Tables)
			idx[t] = k
			cat.Tables = append(cat.Tables, capture.Table{Name: t})
		}
		cat.Tables[k].Columns = append(cat.Tables[k].Columns, c)
	}
	size := map[string]int{}
	for _, k := range keys {
		size[k.table+"\x00"+k.constraint]++
	}
	for _, k := range keys {
		i, ok := idx[k.table]
		if !ok {
			continue
		}
		t := &cat.Tables[i]
		if k.kind == "PRIMARY KEY" {
			t.Key = append(t.Key, k.column)
		}
		if size[k.table+"\x00"+k.constraint] == 1 {
			for j := range t.Columns {
				if strings.EqualFold(t.Columns[j].Name, k.column) {
					t.Columns[j].Unique = true
				}
			}
		}
	}
	return cat
}

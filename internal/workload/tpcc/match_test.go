package tpcc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// fakeLoad creates the nine tables with W warehouse rows (nothing else) and
// records them as a complete load of W warehouses, as prepare would: what
// Match reads, at a fraction of a real load's cost.
func fakeLoad(t *testing.T, in *instance, c dialect.Conn, W int) {
	t.Helper()
	ctx := context.Background()
	if err := objects.Ensure(ctx, c, in.Target.D); err != nil {
		t.Fatal(err)
	}
	for i := range schema {
		if _, err := c.Exec(ctx, schema[i].createSQL(in.Target.D)); err != nil {
			t.Fatalf("create %s: %v", schema[i].name, err)
		}
		done := fmt.Sprintf("1-%d", W)
		if schema[i].name == "item" {
			done = "0"
		}
		if err := objects.Write(ctx, c, schema[i].name, Name, loadMeta{Warehouses: W, Seed: 7, State: tables.State{Done: done, Loaded: true}}); err != nil {
			t.Fatal(err)
		}
	}
	var rows [][]any
	for w := 1; w <= W; w++ {
		rows = append(rows, []any{int64(w), "w", "s1", "s2", "city", "ST", "123451111", 0.1, 300000.0})
	}
	if _, err := c.Load(ctx, "warehouse", tableByName("warehouse").columns(), &sliceRows{rows: rows}); err != nil {
		t.Fatal(err)
	}
}

// matchScenario: run compares --warehouses with the database (Match): more
// than it holds cannot run (not even with --force), fewer run with a note,
// an unfinished load is a mismatch; prepare says why it loads again.
func matchScenario(t *testing.T, rawURL string) {
	ctx := context.Background()
	in := ldOpen(t, rawURL, 2)
	if _, err := in.Target.D.EnsureDatabase(ctx, in.Target.T); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Match(ctx); !errors.Is(err, ErrMissingTables) || errors.Is(err, workload.ErrMismatch) {
		t.Fatalf("Match before prepare: %v, want missing tables", err)
	}
	c := ldConn(t, in)
	fakeLoad(t, in, c, 2)
	if notes, err := in.Match(ctx); err != nil || len(notes) != 0 {
		t.Fatalf("Match with the loaded warehouses: notes %q, %v", notes, err)
	}

	_, err := ldOpen(t, rawURL, 3).Match(ctx)
	const more = "the database holds 2 warehouse(s), --warehouses asks 3"
	if !errors.Is(err, ErrMissingTables) || errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), more) {
		t.Errorf("Match with 3 warehouses of 2: %v, want %q and not a mismatch (--force cannot run it)", err, more)
	}
	notes, err := ldOpen(t, rawURL, 1).Match(ctx)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "the terminals use only warehouses 1 to 1") {
		t.Errorf("Match with 1 warehouse of 2: notes %q, %v", notes, err)
	}

	// prepare with another --warehouses says why it drops the tables
	// (stopped there: the reason comes before any change).
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &ldProgress{onMsg: func(s string) {
		if strings.Contains(s, "again") {
			cancel()
		}
	}}
	if err := ldOpen(t, rawURL, 1).Prepare(cctx, workload.PrepareOptions{}, p); err == nil {
		t.Fatal("cancelled prepare returned nil")
	}
	if !p.said("the TPC-C tables hold 2 warehouse(s), --warehouses asks 1: dropping and loading again") {
		t.Errorf("prepare with another --warehouses said %q", p.messages)
	}

	// A load that did not finish is a mismatch.
	c = ldConn(t, in)
	if err := objects.Update(ctx, c, "stock", loadMeta{Warehouses: 2, Seed: 7, State: tables.State{Done: "1"}}); err != nil {
		t.Fatal(err)
	}
	_, err = in.Match(ctx)
	if !errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), "the TPC-C load did not finish (stock") {
		t.Errorf("Match on an unfinished load: %v", err)
	}

	// A load by another tool (no records): the warehouses are counted.
	if _, err := c.Exec(ctx, "DELETE FROM "+objects.Table); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Match(ctx); err != nil {
		t.Errorf("Match on another tool's load of 2 warehouses: %v", err)
	}
	if _, err := ldOpen(t, rawURL, 3).Match(ctx); !errors.Is(err, ErrMissingTables) {
		t.Errorf("Match with 3 warehouses of another tool's 2: %v", err)
	}
}

func TestMatchSQLite(t *testing.T) {
	matchScenario(t, "sqlite:"+filepath.Join(t.TempDir(), "tpcc.db"))
}

func TestMatchPostgres(t *testing.T) {
	t.Parallel()
	matchScenario(t, testenv.PostgresURL(t))
}

func TestMatchMySQL(t *testing.T) {
	t.Parallel()
	matchScenario(t, testenv.MySQLURL(t))
}

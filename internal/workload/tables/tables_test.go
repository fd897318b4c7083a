package tables

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// rec is a test workload's record.
type rec struct {
	Parts int `json:"parts"`
	State
}

// counter yields n rows (part, id) of one part.
type counter struct {
	part, n, i int64
	add        func(int64)
}

func (c *counter) Next() bool {
	if c.i >= c.n {
		return false
	}
	c.i++
	c.add(1)
	return true
}
func (c *counter) Values() ([]any, error) { return []any{c.part, c.i}, nil }
func (c *counter) Err() error             { return nil }
func (c *counter) Rows() int64            { return c.n }
func (c *counter) Flush()                 {}

type progress struct {
	mu       sync.Mutex
	added    int64
	messages []string
	onAdd    func(int64)
}

func (p *progress) Total(int64) {}
func (p *progress) Add(n int64) {
	p.mu.Lock()
	p.added += n
	a, f := p.added, p.onAdd
	p.mu.Unlock()
	if f != nil {
		f(a)
	}
}
func (p *progress) Message(s string) { p.mu.Lock(); p.messages = append(p.messages, s); p.mu.Unlock() }

// testSet is one table "parts" loaded by part, 10 rows a part.
func testSet() *Set {
	return &Set{Workload: "test", Tables: []Table{{
		Name: "parts",
		Create: func(d dialect.Dialect) string {
			return "CREATE TABLE parts (p INTEGER NOT NULL, id INTEGER NOT NULL)" + d.TableOptions()
		},
		Columns:    []string{"p", "id"},
		Indexes:    []string{"CREATE INDEX parts_p ON parts (p)"},
		PartColumn: "p",
	}}}
}

// resumePlan keeps what is recorded with the same parts (resuming its
// unfinished parts) and recreates anything else.
func resumePlan(parts int) Decider {
	return func(_ context.Context, _ dialect.Conn, found []Found, _ workload.Progress) (*Work, error) {
		pl := &Work{Parts: parts + 1}
		var r rec
		found[0].Decode(&r)
		done, _, ok := ParseRanges(r.Done, parts+1)
		if found[0].Exists && found[0].Owned && ok && r.Parts == parts && !r.Indexing {
			pl.Tables = []Decision{{Record: &r, Done: done}}
		} else {
			pl.Tables = []Decision{{Recreate: true, Record: &rec{Parts: parts}}}
		}
		for part := 1; part <= parts; part++ {
			pl.Units = append(pl.Units, Unit{Name: "part", Part: part, Tables: []string{"parts"}, Rows: 10,
				Sources: func(add func(int64)) []Source { return []Source{&counter{part: int64(part), n: 10, add: add}} }})
		}
		return pl, nil
	}
}

func TestPrepareResumesAndCleansUp(t *testing.T) {
	ctx := context.Background()
	tg, err := dbtarget.Parse("sqlite:"+filepath.Join(t.TempDir(), "t.db"), "", workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var in dbtarget.Base
	in.Init(tg)
	s := testSet()

	// Interrupted in the middle of part 2: part 1 is recorded complete.
	cctx, cancel := context.WithCancel(ctx)
	p := &progress{onAdd: func(n int64) {
		if n == 15 {
			cancel()
		}
	}}
	if err := Prepare(cctx, &in, s, workload.PrepareOptions{}, p, resumePlan(3)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled prepare: %v", err)
	}
	c, err := in.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var r rec
	if owned, err := objects.Read(ctx, c, "parts", &r); err != nil || !owned || r.Done != "1" || r.Loaded {
		t.Fatalf("record after the interruption: %+v, owned %v, %v", r, owned, err)
	}

	// Resumed: part 1 is not loaded again, parts 2 and 3 are (once).
	p = &progress{}
	if err := Prepare(ctx, &in, s, workload.PrepareOptions{}, p, resumePlan(3)); err != nil {
		t.Fatal(err)
	}
	var n, distinct int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*), COUNT(DISTINCT p * 100 + id) FROM parts", nil, &n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != 30 || distinct != 30 || p.added != 20 {
		t.Fatalf("after the resume: %d rows (%d distinct), %d loaded by it; want 30, 30, 20", n, distinct, p.added)
	}
	if _, err := objects.Read(ctx, c, "parts", &r); err != nil || r.Done != "1-3" || !r.Loaded || r.Indexed || r.Indexing {
		t.Fatalf("record after the resume: %+v, %v", r, err)
	}

	// Kept as it is.
	p = &progress{}
	if err := Prepare(ctx, &in, s, workload.PrepareOptions{}, p, resumePlan(3)); err != nil || p.added != 0 || len(p.messages) != 0 {
		t.Fatalf("third prepare: %v, %d rows, said %q", err, p.added, p.messages)
	}

	removed, err := Cleanup(ctx, &in, s.Names(), false)
	if err != nil || !slices.Equal(removed, []string{"parts"}) {
		t.Fatalf("cleanup: %q, %v", removed, err)
	}
	if has, _ := c.TableExists(ctx, objects.Table); has {
		t.Errorf("%s left after cleanup", objects.Table)
	}

	// A table rightsize did not make stops prepare before any change.
	if _, err := c.Exec(ctx, "CREATE TABLE parts (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	err = Prepare(ctx, &in, s, workload.PrepareOptions{}, &progress{}, resumePlan(3))
	if !errors.Is(err, objects.ErrNotOwned) || !strings.Contains(err.Error(), "table(s) parts already exist") {
		t.Fatalf("prepare over a foreign table: %v", err)
	}
	if has, _ := c.TableExists(ctx, objects.Table); has {
		t.Errorf("a refused prepare created %s", objects.Table)
	}
	if err := Prepare(ctx, &in, s, workload.PrepareOptions{Force: true}, &progress{}, resumePlan(2)); err != nil {
		t.Fatalf("prepare --force: %v", err)
	}
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM parts", nil, &n); err != nil || n != 20 {
		t.Fatalf("after prepare --force: %d rows, %v", n, err)
	}
}

// TestCounted: N rows, numbered from 1, reported a thousand at a time and
// the rest at Flush.
func TestCounted(t *testing.T) {
	var got []int64
	c := Counted{N: 2500, Add: func(n int64) { got = append(got, n) }}
	var last int64
	for c.Next() {
		last = c.Row()
	}
	c.Flush()
	c.Flush()
	if last != 2500 || c.Rows() != 2500 || c.Err() != nil || len(got) != 3 || got[0] != 1000 || got[1] != 1000 || got[2] != 500 {
		t.Errorf("last row %d, reported %v", last, got)
	}
}

package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

type timeRows struct {
	ts []time.Time
	i  int
}

func (r *timeRows) Next() bool             { r.i++; return r.i <= len(r.ts) }
func (r *timeRows) Values() ([]any, error) { return []any{int64(r.i), r.ts[r.i-1]}, nil }
func (r *timeRows) Err() error             { return nil }

// TestLoadTime: Load stores a time.Time as the text of its wall clock.
func TestLoadTime(t *testing.T) {
	ctx := context.Background()
	d := Dialect{}
	tg, err := d.ParseTarget("sqlite:"+filepath.Join(t.TempDir(), "t.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, ts TIMESTAMP NULL DEFAULT NULL)"); err != nil {
		t.Fatal(err)
	}
	src := &timeRows{ts: []time.Time{
		time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2024, 1, 2, 3, 4, 5, 500000000, time.FixedZone("X", 3600)),
	}}
	if n, err := c.Load(ctx, "t", []string{"id", "ts"}, src); err != nil || n != 2 {
		t.Fatalf("Load = %d, %v", n, err)
	}
	for id, want := range map[int64]string{1: "2024-01-02 03:04:05", 2: "2024-01-02 03:04:05.5"} {
		var got string
		if err := c.QueryRow(ctx, "SELECT CAST(ts AS TEXT) FROM t WHERE id = ?", []any{id}, &got); err != nil || got != want {
			t.Errorf("row %d: ts stored as %q (%v), want %q", id, got, err, want)
		}
	}
	var day string
	if err := c.QueryRow(ctx, "SELECT date(ts) FROM t WHERE id = 1", nil, &day); err != nil || day != "2024-01-02" {
		t.Errorf("date(ts) = %q, %v", day, err)
	}
}

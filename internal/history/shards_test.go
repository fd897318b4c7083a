package history

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

func TestShardBarrierAndResults(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		for i := range 3 {
			if err := c.MarkReady(ctx, "run1", i, 3, "gen", t0.Add(time.Duration(i)*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		// A restarted shard replaces its row; another run's rows are apart.
		if err := c.MarkReady(ctx, "run1", 1, 3, "gen-b", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := c.MarkReady(ctx, "run2", 0, 2, "gen", t0); err != nil {
			t.Fatal(err)
		}
		rs, err := c.ReadyShards(ctx, "run1")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 3 || rs[1].Hostname != "gen-b" || !rs[1].Ready.Equal(t0.Add(time.Minute)) || rs[2].Shards != 3 {
			t.Errorf("ready shards %+v", rs)
		}

		for i := range 2 {
			r := synthetic("run1-shard"+string(rune('0'+i))+"of2", "tpcc", "", t0, 10)
			r.Shard = &result.Shard{RunID: "run1", Index: i, Count: 2}
			if err := c.Record(ctx, r, ""); err != nil {
				t.Fatal(err)
			}
		}
		merged := synthetic("run1", "tpcc", "", t0, 20) // the merged result: not a shard
		other := synthetic("run10-shard0of1", "tpcc", "", t0, 10)
		other.Shard = &result.Shard{RunID: "run10", Index: 0, Count: 1}
		for _, r := range []*result.Run{merged, other} {
			if err := c.Record(ctx, r, ""); err != nil {
				t.Fatal(err)
			}
		}
		got, err := c.ShardResults(ctx, "run1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Shard.Index != 0 || got[1].Shard.Index != 1 {
			t.Errorf("shard results of run1: %d", len(got))
		}
	})
}

// TestUpgradeFromV1: a catalog of layout 1 gains the shards table on open
// and keeps its runs.
func TestUpgradeFromV1(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	ctx := context.Background()
	c := open(t, dsn)
	if err := c.Record(ctx, synthetic("20250301T120000Z-aaaaaa", "w", "", t0, 1), ""); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE rightsize_shards`, `DROP INDEX rightsize_runs_config`, `ALTER TABLE rightsize_runs DROP COLUMN config`, `ALTER TABLE rightsize_runs DROP COLUMN servers`,
		`DELETE FROM rightsize_schema_version`, `INSERT INTO rightsize_schema_version (version) VALUES (1)`} {
		if _, err := c.conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	c = open(t, dsn)
	if err := c.MarkReady(ctx, "r", 0, 1, "h", t0); err != nil {
		t.Fatalf("after the upgrade: %v", err)
	}
	var v int
	if err := c.conn.QueryRow(ctx, `SELECT MAX(version) FROM rightsize_schema_version`, nil, &v); err != nil || v != SchemaVersion {
		t.Errorf("version %d, %v", v, err)
	}
	if es, err := c.List(ctx, Filter{}); err != nil || len(es) != 1 {
		t.Errorf("runs after the upgrade: %d, %v", len(es), err)
	}
}

package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpgradeV2Catalog opens a catalog that rightsize wrote before the
// servers were recorded (testdata/catalog-v2.db: layout 2, made by the build
// before this change with a PostgreSQL 15 run and a SQLite run recorded): it
// is upgraded in place, its runs' servers read from their stored results,
// and it records new runs.
func TestUpgradeV2Catalog(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "catalog-v2.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := open(t, "sqlite:"+path)
	es, err := c.List(ctx, Filter{})
	if err != nil || len(es) != 2 {
		t.Fatalf("runs: %+v, %v", es, err)
	}
	// Newest first: the SQLite run, then the PostgreSQL one. Their results
	// predate server_product: the dialect and version name the server.
	want := []struct{ target, server string }{
		{"sqlite:/tmp/p6/a.db", "SQLite 3.54.1"},
		{"postgres://postgres@127.0.0.1:5432/p6_old?sslmode=disable", "postgres 15.20"},
	}
	for i, w := range want {
		if strings.Join(es[i].Targets, " ") != w.target || strings.Join(es[i].Servers, " ") != w.server {
			t.Errorf("run %s: targets %q servers %q, want %q %q", es[i].Key, es[i].Targets, es[i].Servers, w.target, w.server)
		}
	}
	var v int
	if err := c.conn.QueryRow(ctx, `SELECT MAX(version) FROM rightsize_schema_version`, nil, &v); err != nil || v != SchemaVersion {
		t.Errorf("version %d, %v", v, err)
	}
	r := synthetic("20990101T000000Z-bbbbbb", "oltp_read_write", "", t0, 5)
	if err := c.Record(ctx, r, ""); err != nil {
		t.Fatal(err)
	}
	if _, e, err := c.Get(ctx, Key(r)); err != nil || strings.Join(e.Servers, ", ") != "PostgreSQL 15.20, PostgreSQL 16.4" {
		t.Errorf("a new run in the upgraded catalog: servers %q, %v", e.Servers, err)
	}
	c.Close()
	if c = open(t, "sqlite:"+path); c == nil { // opens again without migrating twice
		t.Fatal("reopen")
	}
}

// TestUpgradeFromV2 takes a catalog of this build back to layout 2 (no
// servers or config column) on both stores; opening it again adds the
// columns and fills them from the stored results.
func TestUpgradeFromV2(t *testing.T) {
	catalogs(t, func(t *testing.T, c *Catalog) {
		ctx := context.Background()
		r := synthetic("20250301T120000Z-cccccc", "w", "", t0, 1)
		r.Config = "24 vCPU"
		if err := c.Record(ctx, r, ""); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`DROP INDEX rightsize_runs_config`, `ALTER TABLE rightsize_runs DROP COLUMN config`,
			`ALTER TABLE rightsize_runs DROP COLUMN servers`, `DELETE FROM rightsize_schema_version`,
			`INSERT INTO rightsize_schema_version (version) VALUES (2)`} {
			if _, err := c.conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.migrate(ctx); err != nil {
			t.Fatalf("upgrade: %v", err)
		}
		es, err := c.List(ctx, Filter{})
		if err != nil || len(es) != 1 || strings.Join(es[0].Servers, ", ") != "PostgreSQL 15.20, PostgreSQL 16.4" || es[0].Config != "24 vCPU" {
			t.Errorf("after the upgrade: %+v, %v", es, err)
		}
	})
}

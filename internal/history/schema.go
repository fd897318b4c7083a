package history

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/result"
)

// SchemaVersion is the catalog layout this build writes and reads. Open
// creates the tables of a new catalog, upgrades an older one and refuses a
// newer one.
const SchemaVersion = 3

// The tables carry a prefix: a team catalog may share its PostgreSQL
// database with other applications.
//
// rightsize_schema_version: one row, the layout's version.
//
// rightsize_runs: one row per run. run_key is Key(run); the headline
// columns copy the result's summary (latencies in ms, throughput per second
// of the measured window, NULL for a figure that is not a number); targets is
// a JSON array of the instances' password-free URLs (and, from layout 3,
// servers a JSON array of their servers in short, "PostgreSQL 15.20", in the
// same order); sweep_id and sweep_step
// name the sweep the run was a step of ("" for none; "baseline" for the
// measured 1x rate of a rate sweep); path is the result file's absolute path
// when it was recorded ("" when it had none); result is the result JSON,
// gzip-compressed.
//
// rightsize_sweeps: one row per sweep, sweep_key being SweepKey(sweep) and
// sweep the sweep file's JSON, gzip-compressed.
//
// Times are UTC, to the microsecond, in the store's time type
// (dialect.Store): TIMESTAMPTZ in PostgreSQL, fixed-width text
// ("2006-01-02T15:04:05.000000Z", sortable) in SQLite. {TIME}, {FLOAT},
// {BOOL} and {BLOB} are the store's types.
var schemaV1 = []string{
	`CREATE TABLE rightsize_runs (
	run_key    TEXT NOT NULL PRIMARY KEY,
	id         TEXT NOT NULL,
	workload   TEXT NOT NULL,
	label      TEXT NOT NULL,
	started    {TIME} NOT NULL,
	ended      {TIME} NOT NULL,
	targets    TEXT NOT NULL,
	unit       TEXT NOT NULL,
	throughput {FLOAT},
	avg_ms     {FLOAT},
	p50_ms     {FLOAT},
	p95_ms     {FLOAT},
	p99_ms     {FLOAT},
	p999_ms    {FLOAT},
	errors     BIGINT NOT NULL,
	partial    {BOOL} NOT NULL,
	sweep_id   TEXT NOT NULL,
	sweep_step TEXT NOT NULL,
	path       TEXT NOT NULL,
	recorded   {TIME} NOT NULL,
	result     {BLOB} NOT NULL
)`,
	`CREATE INDEX rightsize_runs_started ON rightsize_runs (started)`,
	`CREATE INDEX rightsize_runs_workload ON rightsize_runs (workload, started)`,
	`CREATE INDEX rightsize_runs_label ON rightsize_runs (label, started)`,
	`CREATE INDEX rightsize_runs_id ON rightsize_runs (id)`,
	`CREATE TABLE rightsize_sweeps (
	sweep_key TEXT NOT NULL PRIMARY KEY,
	id        TEXT NOT NULL,
	workload  TEXT NOT NULL,
	axis      TEXT NOT NULL,
	steps     INTEGER NOT NULL,
	path      TEXT NOT NULL,
	recorded  {TIME} NOT NULL,
	sweep     {BLOB} NOT NULL
)`,
	`CREATE INDEX rightsize_sweeps_id ON rightsize_sweeps (id)`,
}

// schemaV2 adds rightsize_shards: one row per shard of a distributed run
// (run --shard) that has connected its virtual users, the start barrier's
// register: the shard's index and count, its host, and when it was ready.
var schemaV2 = []string{
	`CREATE TABLE rightsize_shards (
	run_id   TEXT NOT NULL,
	shard    INTEGER NOT NULL,
	shards   INTEGER NOT NULL,
	hostname TEXT NOT NULL,
	ready    {TIME} NOT NULL,
	PRIMARY KEY (run_id, shard)
)`,
}

// schemaV3 adds rightsize_runs.servers and config (the configuration under
// test, run --config; "" for runs recorded before). A catalog of an older
// layout gets its runs' servers and configurations from their stored
// results (backfillServers): the dialect and version for results written
// before the product was recorded.
var schemaV3 = []string{
	`ALTER TABLE rightsize_runs ADD COLUMN servers TEXT NOT NULL DEFAULT '[]'`,
	`ALTER TABLE rightsize_runs ADD COLUMN config TEXT NOT NULL DEFAULT ''`,
	`CREATE INDEX rightsize_runs_config ON rightsize_runs (config, started)`,
}

// schemaLock is the key of the lock (dialect.Store.StoreLock) that
// serializes migrations: 0x72696768 is "righ", a constant other applications
// sharing a PostgreSQL database are unlikely to use.
const schemaLock int64 = 1919510376

// migrate creates the schema of a new catalog, or checks an existing one's
// version, in one transaction, serialized between processes (a write
// transaction, and the store's lock where it has one).
func (c *Catalog) migrate(ctx context.Context) error {
	ts := c.store.StoreTypes()
	types := strings.NewReplacer("{TIME}", ts.Time, "{FLOAT}", ts.Float, "{BOOL}", ts.Bool, "{BLOB}", ts.Blob)
	return c.do(func(conn dialect.Conn) error {
		return c.tx(ctx, func() error {
			if lock := c.store.StoreLock(); lock != "" {
				if _, err := conn.Exec(ctx, lock, schemaLock); err != nil {
					return err
				}
			}
			if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS rightsize_schema_version (version INTEGER NOT NULL)`); err != nil {
				return err
			}
			var v int64 // 0: none yet (versions start at 1)
			if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM rightsize_schema_version`, nil, &v); err != nil {
				return err
			}
			switch {
			case v > SchemaVersion:
				return fmt.Errorf("the catalog's schema version is %d; this rightsize reads up to %d (upgrade rightsize)", v, SchemaVersion)
			case v == SchemaVersion:
				return nil
			case v < 0 || v > 2:
				return fmt.Errorf("the catalog's schema version %d is not one this rightsize knows", v)
			}
			// A new catalog gets every layout in turn; an older one the
			// layouts after its own.
			layouts := [][]string{schemaV1, schemaV2, schemaV3}
			for _, layout := range layouts[v:] {
				for _, ddl := range layout {
					if _, err := conn.Exec(ctx, types.Replace(ddl)); err != nil {
						return err
					}
				}
			}
			if v > 0 {
				if err := backfillServers(ctx, conn); err != nil {
					return err
				}
			}
			_, err := conn.Exec(ctx, `INSERT INTO rightsize_schema_version (version) VALUES (?)`, SchemaVersion)
			return err
		})
	})
}

// backfillServers fills rightsize_runs.servers from each run's stored
// result, one run at a time (a catalog may hold more results than fit in
// memory at once). A result that cannot be read keeps "[]": the upgrade of
// a catalog does not fail for one damaged row.
func backfillServers(ctx context.Context, conn dialect.Conn) error {
	keys, err := queryAll(ctx, conn, `SELECT run_key FROM rightsize_runs`, nil, func(rows dialect.Rows) (string, error) {
		var k string
		return k, rows.Scan(&k)
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		var blob []byte
		if err := conn.QueryRow(ctx, `SELECT result FROM rightsize_runs WHERE run_key = ?`, []any{k}, &blob); err != nil {
			return err
		}
		js, err := decompress(blob)
		if err != nil {
			continue
		}
		var r struct {
			Instances []result.InstancePart
			Config    string
		}
		if json.Unmarshal(js, &r) != nil {
			continue
		}
		sj, err := serversJSON(r.Instances)
		if err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, `UPDATE rightsize_runs SET servers = ?, config = ? WHERE run_key = ?`, sj, r.Config, k); err != nil {
			return err
		}
	}
	return nil
}

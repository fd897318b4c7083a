package capturedb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
)

// postgres reads pg_stat_statements (PostgreSQL 13 and later: its
// total_exec_time; 14 and later also say how many entries were evicted)
// and pg_stat_database.
type postgres struct {
	c       dialect.Conn
	db      string
	version int // server_version_num
	user    string
}

func (p *postgres) check(ctx context.Context) error {
	var v string
	if err := one(ctx, p.c, "SELECT current_setting('server_version_num'), current_user", &v, &p.user); err != nil {
		return err
	}
	p.version, _ = strconv.Atoi(v)
	if p.version < 130000 {
		return fmt.Errorf("%w: PostgreSQL %d.%d: capture reads pg_stat_statements as PostgreSQL 13 and later keep it", ErrNotReady, p.version/10000, p.version%10000/100)
	}
	var allowed bool
	if err := one(ctx, p.c, "SELECT rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') FROM pg_catalog.pg_roles WHERE rolname = current_user", &allowed); err != nil {
		return err
	}
	if !allowed {
		return fmt.Errorf("%w: user %s may not read other users' statements in pg_stat_statements (their text is <insufficient privilege>): run GRANT pg_read_all_stats TO %s; as a superuser", ErrNotReady, p.user, quoteIdent(p.user))
	}
	const load = "add shared_preload_libraries = 'pg_stat_statements' to postgresql.conf and restart the server"
	var installed int64
	if err := one(ctx, p.c, "SELECT count(*) FROM pg_catalog.pg_extension WHERE extname = 'pg_stat_statements'", &installed); err != nil {
		return err
	}
	if installed == 0 {
		// Reading shared_preload_libraries needs pg_read_all_settings.
		var preload string
		if err := one(ctx, p.c, "SELECT current_setting('shared_preload_libraries')", &preload); err == nil && !preloads(preload) {
			return fmt.Errorf("%w: the server does not load pg_stat_statements: %s, then run CREATE EXTENSION pg_stat_statements; in database %s", ErrNotReady, load, p.db)
		} else if err == nil {
			return fmt.Errorf("%w: pg_stat_statements is loaded but not created in database %s: run CREATE EXTENSION pg_stat_statements; in it (as a superuser or the database's owner)", ErrNotReady, p.db)
		}
		return fmt.Errorf("%w: pg_stat_statements is not created in database %s: run CREATE EXTENSION pg_stat_statements; in it (the server must load it too: %s)", ErrNotReady, p.db, load)
	}
	var n int64
	if err := one(ctx, p.c, "SELECT count(*) FROM pg_stat_statements WHERE false", &n); err != nil {
		if strings.Contains(err.Error(), "shared_preload_libraries") {
			return fmt.Errorf("%w: the server does not load pg_stat_statements: %s", ErrNotReady, load)
		}
		return err
	}
	return nil
}

// preloads reports whether a shared_preload_libraries value names
// pg_stat_statements.
func preloads(v string) bool {
	for _, l := range strings.Split(v, ",") {
		if strings.Trim(strings.TrimSpace(l), `"`) == "pg_stat_statements" {
			return true
		}
	}
	return false
}

// quoteIdent quotes a role's name as GRANT takes it.
func quoteIdent(s string) string {
	if s != "" && strings.ToLower(s) == s && !strings.ContainsAny(s, ` "-.;'`) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func (p *postgres) snapshot(ctx context.Context) (capture.Snapshot, error) {
	s := capture.Snapshot{}
	if err := one(ctx, p.c, "SELECT xact_commit, xact_rollback FROM pg_catalog.pg_stat_database WHERE datname = current_database()", &s.Commits, &s.Rollbacks); err != nil {
		return s, err
	}
	s.At = time.Now()
	top := ""
	if p.version >= 140000 {
		top = " AND toplevel"
	}
	var err error
	s.Stmts, err = readStmts(ctx, p.c, "SELECT userid::text || ':' || queryid::text, query, calls, total_exec_time, rows FROM pg_stat_statements"+
		" WHERE dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()) AND queryid IS NOT NULL"+top)
	if err != nil {
		return s, fmt.Errorf("reading pg_stat_statements: %w", err)
	}
	if p.version >= 140000 {
		if err := one(ctx, p.c, "SELECT dealloc FROM pg_stat_statements_info", &s.Evicted); err != nil {
			return s, err
		}
	}
	return s, nil
}

func (p *postgres) catalog(ctx context.Context) (*capture.Catalog, error) {
	cat, err := readCatalog(ctx, p.c, "SELECT table_name, column_name, data_type FROM information_schema.columns"+
		" WHERE table_schema = ANY (current_schemas(false)) ORDER BY table_schema, table_name, ordinal_position",
		"SELECT tc.table_name, tc.constraint_name, k.column_name, tc.constraint_type"+
			" FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage k"+
			" ON k.constraint_schema = tc.constraint_schema AND k.constraint_name = tc.constraint_name AND k.table_name = tc.table_name"+
			" WHERE tc.constraint_type IN ('PRIMARY KEY', 'UNIQUE') AND tc.table_schema = ANY (current_schemas(false))"+
			" ORDER BY tc.table_name, tc.constraint_name, k.ordinal_position")
	if err != nil {
		return nil, err
	}
	// The range of integer columns from the planner's statistics (the
	// histogram's first and last bounds), never from the rows.
	err = query(ctx, p.c, "SELECT s.tablename, s.attname, (s.histogram_bounds::text::bigint[])[1],"+
		" (s.histogram_bounds::text::bigint[])[cardinality(s.histogram_bounds::text::bigint[])]"+
		" FROM pg_catalog.pg_stats s JOIN information_schema.columns c"+
		" ON c.table_schema = s.schemaname AND c.table_name = s.tablename AND c.column_name = s.attname"+
		" WHERE s.schemaname = ANY (current_schemas(false)) AND s.histogram_bounds IS NOT NULL"+
		" AND c.data_type IN ('smallint', 'integer', 'bigint')",
		func(r dialect.Rows) error {
			var t, c string
			var lo, hi int64
			if err := r.Scan(&t, &c, &lo, &hi); err != nil {
				return err
			}
			cat.SetRange(t, c, lo, hi)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("reading pg_stats: %w", err)
	}
	return cat, nil
}

func (p *postgres) source() capture.Source {
	return capture.Source{Dialect: "postgres", Server: "PostgreSQL " + p.c.Info().ServerVersion, Database: p.db,
		TxCounter: "pg_stat_database's xact_commit + xact_rollback: every client of the database"}
}

func (p *postgres) serverTx(d capture.Delta) int64 {
	return max(d.Commits+d.Rollbacks-1, 0) // less the first snapshot's own
}

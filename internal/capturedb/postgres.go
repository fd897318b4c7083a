package capturedb

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

// postgres reads PostgreSQL's catalog (information_schema and pg_stats).
type postgres struct {
	info dialect.ConnInfo
	db   string
}

func (p *postgres) catalog(ctx context.Context, r *stmtstats.Reader) (*capture.Catalog, error) {
	cat, err := readCatalog(ctx, r, "SELECT table_name, column_name, data_type FROM information_schema.columns"+
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
	err = r.Query(ctx, "SELECT s.tablename, s.attname, (s.histogram_bounds::text::bigint[])[1],"+
		" (s.histogram_bounds::text::bigint[])[cardinality(s.histogram_bounds::text::bigint[])]"+
		" FROM pg_catalog.pg_stats s JOIN information_schema.columns c"+
		" ON c.table_schema = s.schemaname AND c.table_name = s.tablename AND c.column_name = s.attname"+
		" WHERE s.schemaname = ANY (current_schemas(false)) AND s.histogram_bounds IS NOT NULL"+
		" AND c.data_type IN ('smallint', 'integer', 'bigint')",
		func(rows dialect.Rows) error {
			var t, c string
			var lo, hi int64
			if err := rows.Scan(&t, &c, &lo, &hi); err != nil {
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
	return capture.Source{Dialect: "postgres", Server: "PostgreSQL " + p.info.ServerVersion, Database: p.db,
		TxCounter: "pg_stat_database's xact_commit + xact_rollback: every client of the database"}
}

func (p *postgres) serverTx(d capture.Delta) int64 {
	return max(d.Commits+d.Rollbacks-1, 0) // less the first snapshot's own
}

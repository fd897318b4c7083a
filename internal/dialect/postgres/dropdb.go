package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/internal/dialect"
)

var _ dialect.Dropper = Dialect{}

// CountTables counts the tables, views, materialized views and foreign
// tables of c's database outside the system schemas, except the one named.
// It reads pg_class, which lists every relation whatever the connecting
// role may read (information_schema.tables leaves out another role's
// tables, and a database holding them would be taken for empty).
func (Dialect) CountTables(ctx context.Context, c dialect.Conn, except string) (int64, error) {
	return dialect.CountRows(ctx, c, `SELECT COUNT(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
		AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%' AND c.relname <> ?`, except)
}

// DropDatabase drops t's database from the maintenance database, without
// FORCE: a database someone is connected to is not dropped.
func (Dialect) DropDatabase(ctx context.Context, t *dialect.Location) error {
	c, name, err := maintenance(ctx, t)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("postgres: drop database: %w", err)
	}
	return nil
}

package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/internal/dialect"
)

var _ dialect.Dropper = Dialect{}

// CountTables counts the tables and views of c's database outside
// pg_catalog and information_schema, except the one named.
func (Dialect) CountTables(ctx context.Context, c dialect.Conn, except string) (int64, error) {
	var n int64
	err := c.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_name <> ?", []any{except}, &n)
	return n, err
}

// DropDatabase drops t's database from the maintenance database, without
// FORCE: a database someone is connected to is not dropped.
func (Dialect) DropDatabase(ctx context.Context, t *dialect.Target) error {
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

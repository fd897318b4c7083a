package mysql

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/dialect"
)

var _ dialect.Dropper = Dialect{}

// CountTables counts the tables and views of c's database (DATABASE()),
// except the one named.
func (Dialect) CountTables(ctx context.Context, c dialect.Conn, except string) (int64, error) {
	return dialect.CountRows(ctx, c, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> ?", except)
}

// DropDatabase drops t's database over a session that names none.
func (Dialect) DropDatabase(ctx context.Context, t *dialect.Location) error {
	cfg, err := configOf(t)
	if err != nil {
		return err
	}
	if cfg.DBName == "" {
		return fmt.Errorf("mysql: drop database: the target names no database")
	}
	db, err := serverSession(ctx, t, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DROP DATABASE "+quoteIdent(cfg.DBName)); err != nil {
		return fmt.Errorf("mysql: drop database: %w", dialect.ScrubError(err, cfg.Passwd))
	}
	return nil
}

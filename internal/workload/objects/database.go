package objects

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/dialect"
)

// DatabaseRecord is the object_name of the record that says prepare created
// the database it is in (no table has this name).
const DatabaseRecord = "(database)"

// databaseMeta is the options of DatabaseRecord.
type databaseMeta struct {
	Database string `json:"database"` // t's redacted URL when created
}

// EnsureDatabase creates t's database if it does not exist (as
// dialect.Dialect.EnsureDatabase) and, when it created it, records so in the
// new database's record table, so that cleanup may drop it again
// (DropCreatedDatabase). A database that existed gets no record, nor one
// of a dialect that is not a dialect.Dropper.
func EnsureDatabase(ctx context.Context, d dialect.Dialect, t *dialect.Location) error {
	created, err := d.EnsureDatabase(ctx, t)
	if _, drops := d.(dialect.Dropper); err != nil || !created || !drops {
		return err // a database cleanup cannot drop (a SQLite file) gets no record
	}
	c, err := d.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := Ensure(ctx, c, d); err != nil {
		return fmt.Errorf("record the new database: %w", err)
	}
	if err := Write(ctx, c, DatabaseRecord, "rightsize", databaseMeta{Database: t.String()}); err != nil {
		return fmt.Errorf("record the new database: %w", err)
	}
	return nil
}

// DropCreatedDatabase drops t's database when its record says prepare
// created it and it holds nothing else: no other record (another workload's
// tables) and no table but the record table. kept says why a database
// prepare created was kept; both are zero for a database it did not create,
// or a dialect that is not a dialect.Dropper (SQLite: the file stays).
// Cleanup calls it once the workloads' tables are dropped and their
// connections closed.
func DropCreatedDatabase(ctx context.Context, d dialect.Dialect, t *dialect.Location) (dropped bool, kept string, err error) {
	dr, ok := d.(dialect.Dropper)
	if !ok {
		return false, "", nil
	}
	owned, kept, err := whyKeep(ctx, d, dr, t)
	if err != nil || !owned || kept != "" {
		return false, kept, err
	}
	if err := dr.DropDatabase(ctx, t); err != nil {
		return false, "", err
	}
	return true, "", nil
}

// whyKeep reports whether prepare created t's database and, if so, what it
// still holds that keeps it ("" when it may be dropped).
func whyKeep(ctx context.Context, d dialect.Dialect, dr dialect.Dropper, t *dialect.Location) (owned bool, kept string, err error) {
	c, err := d.Connect(ctx, t)
	if err != nil {
		return false, "", err
	}
	defer c.Close()
	if has, err := Exists(ctx, c); err != nil || !has {
		return false, "", err
	}
	var m databaseMeta
	if owned, err := Read(ctx, c, DatabaseRecord, &m); err != nil || !owned {
		return false, "", err
	}
	var records int64
	if err := c.QueryRow(ctx, countSQL, nil, &records); err != nil {
		return true, "", err
	}
	if records > 1 {
		return true, fmt.Sprintf("each still holds %d table(s) that prepare recorded and this cleanup did not drop (another workload's, or beyond --tables: give the --tables prepare used)", records-1), nil
	}
	others, err := dr.CountTables(ctx, c, Table)
	if err != nil {
		return true, "", err
	}
	if others > 0 {
		return true, fmt.Sprintf("each holds %d table(s) or view(s) that rightsize did not create", others), nil
	}
	return true, "", nil
}

// Package objects is the record of what rightsize created in a database: the
// table rightsize_objects, one row per table a workload's prepare made, with
// the options it was made with. prepare refuses to touch a table that has no
// row here (unless --force) and cleanup drops only tables that have one, so
// nothing a user had is destroyed by accident.
package objects

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/rightsize/rightsize/internal/sqltext"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
)

// Table is the name of the record table.
const Table = "rightsize_objects"

// ErrNotOwned marks tables that exist but were not created by rightsize.
var ErrNotOwned = errors.New("not created by rightsize")

const (
	createSQL = "CREATE TABLE IF NOT EXISTS " + Table + " (\n" +
		"  object_name VARCHAR(128) NOT NULL PRIMARY KEY,\n" +
		"  workload VARCHAR(64),\n" +
		"  created_at VARCHAR(40),\n" +
		"  options TEXT\n)"
	selectSQL = "SELECT options FROM " + Table + " WHERE object_name = ?"
	deleteSQL = "DELETE FROM " + Table + " WHERE object_name = ?"
	insertSQL = "INSERT INTO " + Table + " (object_name, workload, created_at, options) VALUES (?, ?, ?, ?)"
	updateSQL = "UPDATE " + Table + " SET options = ? WHERE object_name = ?"
	countSQL  = "SELECT COUNT(*) FROM " + Table
	dropSQL   = "DROP TABLE " + Table
)

// Ensure creates the record table if it does not exist.
func Ensure(ctx context.Context, c dialect.Conn, d dialect.Dialect) error {
	_, err := c.Exec(ctx, createSQL+d.TableOptions())
	return err
}

// Exists reports whether the record table exists.
func Exists(ctx context.Context, c dialect.Conn) (bool, error) { return c.TableExists(ctx, Table) }

// Read looks up name's record and decodes its options into v. owned is true
// when a record exists; a record whose options do not decode leaves v as it
// was (owned, in an unknown state).
func Read(ctx context.Context, c dialect.Conn, name string, v any) (owned bool, err error) {
	var raw string
	err = c.QueryRow(ctx, selectSQL, []any{name}, &raw)
	if errors.Is(err, dialect.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_ = json.Unmarshal([]byte(raw), v)
	return true, nil
}

// Owner returns the workload that rightsize_objects records as name's
// maker; "" when there is no record (or no record table).
func Owner(ctx context.Context, c dialect.Conn, name string) (string, error) {
	if ok, err := Exists(ctx, c); err != nil || !ok {
		return "", err
	}
	var w string
	err := c.QueryRow(ctx, sqltext.Own+"SELECT workload FROM "+Table+" WHERE object_name = ?", []any{name}, &w)
	if errors.Is(err, dialect.ErrNoRows) {
		return "", nil
	}
	return w, err
}

// Write records name as created by workload with options v, replacing any
// earlier record.
func Write(ctx context.Context, c dialect.Conn, name, workload string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, deleteSQL, name); err != nil {
		return err
	}
	_, err = c.Exec(ctx, insertSQL, name, workload, time.Now().UTC().Format(time.RFC3339), string(b))
	return err
}

// Update replaces the options of name's record.
func Update(ctx context.Context, c dialect.Conn, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, updateSQL, string(b), name)
	return err
}

// Delete removes name's record.
func Delete(ctx context.Context, c dialect.Conn, name string) error {
	_, err := c.Exec(ctx, deleteSQL, name)
	return err
}

// DropIfEmpty drops the record table once it holds no record.
func DropIfEmpty(ctx context.Context, c dialect.Conn) error {
	var rows int64
	if err := c.QueryRow(ctx, countSQL, nil, &rows); err != nil {
		return err
	}
	if rows > 0 {
		return nil
	}
	_, err := c.Exec(ctx, dropSQL)
	return err
}

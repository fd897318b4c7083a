package capturedb

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

// mysql reads MySQL's and MariaDB's catalog (information_schema).
type mysql struct {
	info      dialect.ConnInfo
	db        string
	maxDigest int // performance_schema_max_digest_length
}

func (m *mysql) catalog(ctx context.Context, r *stmtstats.Reader) (*capture.Catalog, error) {
	err := r.Query(ctx, "SELECT @@performance_schema_max_digest_length", func(rows dialect.Rows) error {
		var n int64
		err := rows.Scan(&n)
		m.maxDigest = int(n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading performance_schema_max_digest_length: %w", err)
	}
	return readCatalog(ctx, r, "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS"+
		" WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION",
		"SELECT tc.TABLE_NAME, tc.CONSTRAINT_NAME, k.COLUMN_NAME, tc.CONSTRAINT_TYPE"+
			" FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.KEY_COLUMN_USAGE k"+
			" ON k.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = tc.CONSTRAINT_NAME AND k.TABLE_NAME = tc.TABLE_NAME"+
			" WHERE tc.CONSTRAINT_TYPE IN ('PRIMARY KEY', 'UNIQUE') AND tc.TABLE_SCHEMA = DATABASE()"+
			" ORDER BY tc.TABLE_NAME, tc.CONSTRAINT_NAME, k.ORDINAL_POSITION")
}

func (m *mysql) source() capture.Source {
	return capture.Source{Dialect: "mysql", Server: m.info.ServerProduct + " " + m.info.ServerVersion, Database: m.db,
		TxCounter: "The server counts explicit transactions only (Com_commit + Com_rollback); a statement run in autocommit is a transaction it does not count.",
		MaxDigest: m.maxDigest}
}

func (m *mysql) serverTx(capture.Delta) int64 { return -1 }

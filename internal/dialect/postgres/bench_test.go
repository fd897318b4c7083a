package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/testenv"
)

// BenchmarkPointSelect compares the Stmt path (named prepared statement, rows
// counted without decoding, or read by QueryRow into reused destinations) with Conn.QueryRow (pgx statement cache) and with
// pgx's QueryExecModeCacheDescribe, which re-parses on the server each time.
func BenchmarkPointSelect(b *testing.B) {
	raw := testenv.PostgresURL(b)
	d := postgres.Dialect{}
	tg, _ := d.ParseTarget(raw, nil)
	ctx := context.Background()
	c, err := d.Connect(ctx, tg)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.Exec(ctx, "CREATE TABLE s (id SERIAL PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '')")
	c.Exec(ctx, "INSERT INTO s (k) SELECT g FROM generate_series(1, 10000) g")
	b.Run("StmtDrain", func(b *testing.B) {
		st, _ := c.Prepare(ctx, "SELECT c FROM s WHERE id = ?")
		defer st.Close()
		i := 0
		for b.Loop() {
			i++
			if n, err := st.Drain(ctx, i%10000+1); err != nil || n != 1 {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("StmtQueryRow", func(b *testing.B) {
		st, _ := c.Prepare(ctx, "SELECT k, c FROM s WHERE id = ?")
		defer st.Close()
		var k int64
		var cv []byte
		args, dest := make([]any, 1), []any{&k, &cv}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			args[0] = i%10000 + 1
			if err := st.QueryRow(ctx, args, dest...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ConnExecCacheStatement", func(b *testing.B) {
		i := 0
		var s string
		for b.Loop() {
			i++
			if err := c.QueryRow(ctx, "SELECT c FROM s WHERE id = ?", []any{i%10000 + 1}, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pgxCacheDescribe", func(b *testing.B) {
		cfg := tg.Conn.(*pgx.ConnConfig).Copy()
		cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
		pc, _ := pgx.ConnectConfig(ctx, cfg)
		defer pc.Close(ctx)
		i := 0
		for b.Loop() {
			i++
			rows, _ := pc.Query(ctx, "SELECT c FROM s WHERE id = $1", i%10000+1)
			for rows.Next() {
			}
			rows.Close()
			if rows.Err() != nil {
				b.Fatal(rows.Err())
			}
		}
	})
}

package history

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/result"
)

// ShardReady is a shard's row in the start barrier's register.
type ShardReady struct {
	Shard, Shards int
	Hostname      string
	Ready         time.Time
}

// MarkReady registers shard index of count of run runID as connected at
// ready (its host's clock). A shard registered again (a restarted pod)
// replaces its row.
func (c *Catalog) MarkReady(ctx context.Context, runID string, index, count int, hostname string, ready time.Time) error {
	return c.fail(c.do(func(conn dialect.Conn) error {
		_, err := conn.Exec(ctx, `INSERT INTO rightsize_shards (run_id, shard, shards, hostname, ready) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (run_id, shard) DO UPDATE SET shards = excluded.shards, hostname = excluded.hostname, ready = excluded.ready`,
			runID, index, count, hostname, c.tv(ready))
		return err
	}))
}

// ReadyShards returns the shards of run runID registered as connected, by
// index.
func (c *Catalog) ReadyShards(ctx context.Context, runID string) ([]ShardReady, error) {
	return collect(ctx, c, `SELECT shard, shards, hostname, ready FROM rightsize_shards WHERE run_id = ? ORDER BY shard`, []any{runID}, 0,
		func(rows dialect.Rows) (ShardReady, error) {
			var s ShardReady
			err := rows.Scan(&s.Shard, &s.Shards, &s.Hostname, timeScan{&s.Ready})
			return s, err
		})
}

// ShardResults returns the results recorded for the shards of run runID
// (run --shard records each as <runID>-shard<I>of<N>), by shard index.
func (c *Catalog) ShardResults(ctx context.Context, runID string) ([]*result.Run, error) {
	prefix := runID + "-shard"
	blobs, err := collect(ctx, c, `SELECT run_key, result FROM rightsize_runs WHERE substr(id, 1, ?) = ? ORDER BY id`, []any{len(prefix), prefix}, 0,
		func(rows dialect.Rows) ([2][]byte, error) {
			var key string
			var blob []byte
			err := rows.Scan(&key, &blob)
			return [2][]byte{[]byte(key), blob}, err
		})
	if err != nil {
		return nil, err
	}
	var out []*result.Run
	for _, b := range blobs {
		js, err := decompress(b[1])
		if err != nil {
			return nil, fmt.Errorf("history: stored result %s: %w", b[0], err)
		}
		r, err := result.Decode(bytes.NewReader(js))
		if err != nil {
			return nil, fmt.Errorf("history: stored result %s: %w", b[0], err)
		}
		if r.Shard != nil && r.Shard.RunID == runID {
			out = append(out, r)
		}
	}
	return out, nil
}

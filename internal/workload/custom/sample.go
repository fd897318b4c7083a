package custom

import (
	"context"
	"fmt"
	"github.com/rightsize/rightsize/internal/sqltext"
	"strings"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workfile"
)

// bindSamples gives g the values of each sample parameter, loading them
// the first time a VU of the instance asks (once per instance: its VUs
// share them).
func (in *Instance) bindSamples(ctx context.Context, c dialect.Conn, g *workfile.Gen) error {
	in.sampleMu.Lock()
	defer in.sampleMu.Unlock()
	if !in.seqsAfter {
		if err := in.startSeqs(ctx, c); err != nil {
			return err
		}
		in.seqsAfter = true
	}
	for i := range in.spec.Params {
		p := &in.spec.Params[i]
		if p.Kind != workfile.Sample {
			continue
		}
		key := fmt.Sprintf("%s.%s/%d", strings.ToLower(p.Table), strings.ToLower(p.Column), p.Limit)
		vals, ok := in.samples[key]
		if !ok {
			var err error
			if vals, err = sample(ctx, c, p.Table, p.Column, p.Limit); err != nil {
				return fmt.Errorf("parameter %s: sampling %s.%s: %w", p.Name, p.Table, p.Column, err)
			}
			if in.samples == nil {
				in.samples = map[string][]workfile.Value{}
			}
			in.samples[key] = vals
		}
		if err := g.SetSample(i, vals); err != nil {
			return err
		}
	}
	return nil
}

// startSeqs starts each sequence with after: past its column's highest
// value, read once per instance before its first draw.
func (in *Instance) startSeqs(ctx context.Context, c dialect.Conn) error {
	for i := range in.spec.Params {
		p := &in.spec.Params[i]
		if p.Kind != workfile.Seq || p.Table == "" {
			continue
		}
		var v workfile.Value
		if err := c.QueryRow(ctx, sqltext.Own+"SELECT MAX("+p.Column+") FROM "+p.Table, nil, scanner{&v}); err != nil {
			return fmt.Errorf("parameter %s: the highest %s.%s: %w", p.Name, p.Table, p.Column, err)
		}
		switch {
		case v.Null: // an empty table: from start
		case v.Type != workfile.IntValue:
			return fmt.Errorf("parameter %s: goes on after %s.%s, whose highest value is no integer", p.Name, p.Table, p.Column)
		default:
			in.seqs.AfterMax(in.spec, i, v.Int)
		}
	}
	return nil
}

// SetShard makes the instance's sequences draw this shard's share
// (InstanceHooks.SetShard).
func (in *Instance) SetShard(index, count int) { in.seqs.Shard(index, count) }

// sample reads column col of every row of table and keeps a uniform
// sample of at most limit of its non-NULL values (none when it holds none) (reservoir sampling: one
// pass, any database, limit values held). It reads the whole table once
// per instance and run: a table of 10 million rows is a few seconds on a
// local server.
func sample(ctx context.Context, c dialect.Conn, table, col string, limit int) ([]workfile.Value, error) {
	st, err := c.Prepare(ctx, sqltext.Own+"SELECT "+col+" FROM "+table)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows, err := st.Query(ctx)
	if err != nil {
		return nil, err
	}
	src := datagen.NewSource(0x243f6a8885a308d3)
	out := make([]workfile.Value, 0, min(limit, 1<<16))
	var cur workfile.Value
	seen := 0
	for rows.Next() {
		if err := rows.Scan(scanner{&cur}); err != nil {
			rows.Close()
			return nil, err
		}
		if cur.Null {
			continue
		}
		seen++
		switch {
		case len(out) < limit:
			out = append(out, own(cur))
		default:
			if k := src.IntN(seen); k < limit {
				out[k] = own(cur)
			}
		}
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	return out, nil // none: the parameter's range, if it has one (Gen.SetSample)
}

// own returns v with bytes of its own (the scanner reuses its buffer).
func own(v workfile.Value) workfile.Value {
	if v.Text != nil {
		v.Text = append([]byte(nil), v.Text...)
	}
	return v
}

package oltp

import (
	"context"
	"errors"
	"fmt"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// vu is one virtual user: one connection, its statements prepared on every
// table (sysbench prepares per connection per table), and its own random
// source. Event is called by one goroutine at a time.
type vu struct {
	in   *instance
	o    *Options
	conn dialect.Conn
	wb   dialect.WriteBeginner // nil unless the Conn must be told a transaction writes
	src  *datagen.Source

	opIdx  [numOps]int            // op -> index in Meta.Ops, -1 if not run
	kinds  []op                   // the statements it prepares on each table
	stmts  [][numOps]dialect.Stmt // [table-1][op]
	args   [4]any                 // reused argument slots
	cbuf   [128]byte              // c values
	padbuf [64]byte               // pad values
}

func newVU(ctx context.Context, in *instance, c dialect.Conn, seed uint64) (*vu, error) {
	v := &vu{in: in, o: &in.o, conn: c, src: datagen.NewSource(seed)}
	v.wb, _ = c.(dialect.WriteBeginner)
	for i := range v.opIdx {
		v.opIdx[i] = -1
	}
	for i, o := range variants[in.v].ops {
		v.opIdx[o] = i
	}
	var kinds []op
	for _, o := range variants[in.v].ops {
		switch o {
		case opBegin, opCommit:
		case opSimpleRange, opSumRange, opOrderRange, opDistinctRange:
			if in.o.RangeSelects {
				kinds = append(kinds, o)
			}
		default:
			kinds = append(kinds, o)
		}
	}
	v.kinds = kinds
	if err := v.prepare(ctx); err != nil {
		return nil, err
	}
	return v, nil
}

// prepare prepares the VU's statements on every table on its connection.
func (v *vu) prepare(ctx context.Context) error {
	autoIncInsert := v.in.v == insert && v.in.o.AutoInc
	v.stmts = make([][numOps]dialect.Stmt, v.in.o.Tables)
	for t := range v.stmts {
		for _, k := range v.kinds {
			q := statementSQL(k, t+1, autoIncInsert)
			s, err := v.conn.Prepare(ctx, q)
			if err != nil {
				v.closeStmts()
				return fmt.Errorf("prepare %q: %w", q, err)
			}
			v.stmts[t][k] = s
		}
	}
	return nil
}

// Reconnect implements workload.Reconnector: a new connection, with its
// statements, in place of the lost one; the VU keeps its random stream.
func (v *vu) Reconnect(ctx context.Context) error {
	c, err := v.in.Connect(ctx)
	if err != nil {
		return err
	}
	_ = v.closeStmts()
	_ = v.conn.Close()
	v.conn = c
	v.wb, _ = c.(dialect.WriteBeginner)
	return v.prepare(ctx)
}

func (v *vu) closeStmts() error {
	var errs []error
	for t := range v.stmts {
		for k, s := range v.stmts[t] {
			if s != nil {
				errs = append(errs, s.Close())
				v.stmts[t][k] = nil
			}
		}
	}
	return errors.Join(errs...)
}

// Close closes the statements and the connection.
func (v *vu) Close() error {
	return errors.Join(v.closeStmts(), v.conn.Close())
}

// Event runs one sysbench event.
func (v *vu) Event(ctx context.Context, m workload.Meter) error {
	switch v.in.v {
	case readWrite:
		return v.transaction(ctx, m, true, true)
	case readOnly:
		return v.transaction(ctx, m, true, false)
	case writeOnly:
		return v.transaction(ctx, m, false, true)
	case pointSelect:
		return v.pointSelects(ctx, m, 1)
	case updateIndex:
		return v.indexUpdates(ctx, m)
	case updateNonIndex:
		return v.nonIndexUpdates(ctx, m)
	case insert:
		return v.insertRow(ctx, m)
	case deleteOnly:
		return v.deleteRow(ctx, m)
	}
	return fmt.Errorf("oltp: unknown script %d", v.in.v)
}

// table picks a table number as sysbench's get_table_num does.
func (v *vu) table() int { return int(v.src.Uniform(1, int64(v.o.Tables))) }

// id picks a row id as sysbench's get_id does: --rand-type over [1, table-size].
func (v *vu) id() int64 { return v.in.dist.Next(v.src, 1, v.o.TableSize) }

// cValue and padValue return fresh random column values (one string each).
func (v *vu) cValue() string   { return string(v.in.cTmpl.Fill(v.src, v.cbuf[:0])) }
func (v *vu) padValue() string { return string(v.in.padTmpl.Fill(v.src, v.padbuf[:0])) }

// transaction is the body of oltp_read_write, oltp_read_only and
// oltp_write_only (their event() functions).
func (v *vu) transaction(ctx context.Context, m workload.Meter, reads, writes bool) error {
	trx := !v.o.SkipTrx
	if trx {
		sp := m.Start(v.opIdx[opBegin])
		var err error
		if writes && v.wb != nil {
			err = v.wb.BeginWrite(ctx)
		} else {
			err = v.conn.Begin(ctx)
		}
		m.End(sp, err)
		if err != nil {
			return err
		}
	}
	err := v.body(ctx, m, reads, writes)
	if err == nil && trx {
		sp := m.Start(v.opIdx[opCommit])
		err = v.conn.Commit(ctx)
		m.End(sp, err)
	}
	if err != nil && trx {
		_ = v.conn.Rollback(ctx)
	}
	return err
}

func (v *vu) body(ctx context.Context, m workload.Meter, reads, writes bool) error {
	if reads {
		if err := v.pointSelects(ctx, m, v.o.PointSelects); err != nil {
			return err
		}
		if v.o.RangeSelects {
			for _, r := range [...]struct {
				o op
				n int
			}{
				{opSimpleRange, v.o.SimpleRanges},
				{opSumRange, v.o.SumRanges},
				{opOrderRange, v.o.OrderRanges},
				{opDistinctRange, v.o.DistinctRanges},
			} {
				if err := v.ranges(ctx, m, r.o, r.n); err != nil {
					return err
				}
			}
		}
	}
	if writes {
		if err := v.indexUpdates(ctx, m); err != nil {
			return err
		}
		if err := v.nonIndexUpdates(ctx, m); err != nil {
			return err
		}
		if err := v.deleteInserts(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// query runs a prepared read and reads all its rows.
func (v *vu) query(ctx context.Context, m workload.Meter, o op, s dialect.Stmt, args []any) error {
	sp := m.Start(v.opIdx[o])
	_, err := s.Drain(ctx, args...)
	m.End(sp, err)
	return err
}

// exec runs a prepared write.
func (v *vu) exec(ctx context.Context, m workload.Meter, o op, s dialect.Stmt, args []any) error {
	sp := m.Start(v.opIdx[o])
	_, err := s.Exec(ctx, args...)
	m.End(sp, err)
	return err
}

// pointSelects is execute_point_selects: one table, n point SELECTs.
func (v *vu) pointSelects(ctx context.Context, m workload.Meter, n int) error {
	s := v.stmts[v.table()-1][opPointSelect]
	for range n {
		v.args[0] = v.id()
		if err := v.query(ctx, m, opPointSelect, s, v.args[:1]); err != nil {
			return err
		}
	}
	return nil
}

// ranges is execute_range: one table, n range SELECTs of range-size ids.
func (v *vu) ranges(ctx context.Context, m workload.Meter, o op, n int) error {
	s := v.stmts[v.table()-1][o]
	for range n {
		id := v.id()
		v.args[0], v.args[1] = id, id+v.o.RangeSize-1
		if err := v.query(ctx, m, o, s, v.args[:2]); err != nil {
			return err
		}
	}
	return nil
}

// indexUpdates is execute_index_updates.
func (v *vu) indexUpdates(ctx context.Context, m workload.Meter) error {
	s := v.stmts[v.table()-1][opIndexUpdate]
	for range v.o.IndexUpdates {
		v.args[0] = v.id()
		if err := v.exec(ctx, m, opIndexUpdate, s, v.args[:1]); err != nil {
			return err
		}
	}
	return nil
}

// nonIndexUpdates is execute_non_index_updates.
func (v *vu) nonIndexUpdates(ctx context.Context, m workload.Meter) error {
	s := v.stmts[v.table()-1][opNonIndexUpdate]
	for range v.o.NonIndexUpdates {
		v.args[0] = v.cValue()
		v.args[1] = v.id()
		if err := v.exec(ctx, m, opNonIndexUpdate, s, v.args[:2]); err != nil {
			return err
		}
	}
	return nil
}

// deleteInserts is execute_delete_inserts: DELETE an id, INSERT it again with
// a new k (drawn like an id), c and pad.
func (v *vu) deleteInserts(ctx context.Context, m workload.Meter) error {
	st := &v.stmts[v.table()-1]
	for range v.o.DeleteInserts {
		id, k := v.id(), v.id()
		v.args[0] = id
		if err := v.exec(ctx, m, opDelete, st[opDelete], v.args[:1]); err != nil {
			return err
		}
		v.args[0], v.args[1], v.args[2], v.args[3] = id, k, v.cValue(), v.padValue()
		if err := v.exec(ctx, m, opInsert, st[opInsert], v.args[:4]); err != nil {
			return err
		}
	}
	return nil
}

// insertRow is oltp_insert's event.
func (v *vu) insertRow(ctx context.Context, m workload.Meter) error {
	s := v.stmts[v.table()-1][opInsert]
	k := v.in.dist.Next(v.src, 1, v.o.TableSize)
	if v.o.AutoInc {
		v.args[0], v.args[1], v.args[2] = k, v.cValue(), v.padValue()
		return v.exec(ctx, m, opInsert, s, v.args[:3])
	}
	// sysbench: sysbench.rand.unique() - 2147483648, a uint32 mapped onto SQL INT.
	id := int64(v.in.unique.Next()) - 2147483648
	v.args[0], v.args[1], v.args[2], v.args[3] = id, k, v.cValue(), v.padValue()
	return v.exec(ctx, m, opInsert, s, v.args[:4])
}

// deleteRow is oltp_delete's event.
func (v *vu) deleteRow(ctx context.Context, m workload.Meter) error {
	s := v.stmts[v.table()-1][opDelete]
	v.args[0] = v.id()
	return v.exec(ctx, m, opDelete, s, v.args[:1])
}

package custom

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
)

// How a statement runs: its rows read to the end, its rows affected, or
// its first row kept for later statements (into).
const (
	drain = iota
	exec
	row
)

// stmt is one statement prepared on a VU's connection, with what it binds.
type stmt struct {
	name  string
	op    int // its operation (Meta.Ops)
	st    dialect.Stmt
	mode  int
	slots []workfile.Slot
	args  []any
	into  []workfile.Value // the first row's values (mode row)
	dest  []any            // scanners into into, built once
}

// tx is one transaction of the file on a VU: its statements prepared.
type tx struct {
	spec   *workfile.Transaction
	stmts  []stmt
	writes bool // a statement may write (SQLite: BEGIN IMMEDIATE)
}

// vu is one virtual user: a connection, the file's statements prepared on
// it, and its parameters' generator.
type vu struct {
	in   *instance
	c    dialect.Conn
	wb   dialect.WriteBeginner // nil unless the Conn must be told a transaction writes
	spec *workfile.Spec
	txs  []tx
	gen  *workfile.Gen
	src  *datagen.Source
	cur  int // the transaction of the event in flight (a retry runs it again)
	// first is when the event in flight first started (its retries' spans
	// start there).
	first time.Time
}

// NewVU opens one virtual user: a connection with every statement of the
// file prepared on it (each rendered once for the database), and a
// generator of its parameters whose sequences the instance's VUs share.
func (in *instance) NewVU(ctx context.Context, id int, seed uint64) (workload.VU, error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, err
	}
	v, err := in.newVU(ctx, c, seed)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: VU %d: %w", in.Target, id, err)
	}
	if in.paced() {
		return &pacedVU{vu: v, next: -1}, nil
	}
	return v, nil
}

func (in *instance) newVU(ctx context.Context, c dialect.Conn, seed uint64) (*vu, error) {
	v := &vu{in: in, spec: in.spec, src: datagen.NewSource(seed), cur: -1}
	v.gen = in.spec.NewSharedGen(v.src, in.seqs)
	if err := in.bindSamples(ctx, c, v.gen); err != nil {
		return nil, err
	}
	if err := v.prepare(ctx, c); err != nil {
		return nil, err
	}
	return v, nil
}

// prepare binds v to connection c: every statement of the file prepared on
// it. On error the statements prepared so far are closed, not c.
func (v *vu) prepare(ctx context.Context, c dialect.Conn) error {
	in := v.in
	v.c = c
	v.wb, _ = c.(dialect.WriteBeginner)
	// Every reference its own placeholder (PostgreSQL's Conn numbers them),
	// so that PostgreSQL types each where it stands: a name used as an
	// int column's value and in a decimal product is two parameters.
	const style = workfile.Question
	v.txs = make([]tx, len(in.spec.Transactions))
	for i := range in.spec.Transactions {
		t := &in.spec.Transactions[i]
		v.txs[i] = tx{spec: t, stmts: make([]stmt, len(t.Statements)), writes: t.Writes()}
		for j := range t.Statements {
			s := &t.Statements[j]
			sql, slots := s.Form(in.dialect).Render(style)
			st, err := c.Prepare(ctx, sql)
			if err != nil {
				v.closeStmts()
				return fmt.Errorf("transaction %s, statement %s (%s:%d): %w", t.Name, s.Name, in.spec.File, s.Line, err)
			}
			ps := &v.txs[i].stmts[j]
			*ps = stmt{name: s.Name, op: in.ops.stmt[i][j], st: st, slots: slots, args: make([]any, len(slots))}
			switch {
			case len(s.Into) > 0:
				ps.mode = row
				ps.into = make([]workfile.Value, len(s.Into))
				for k := range ps.into {
					ps.dest = append(ps.dest, scanner{&ps.into[k]})
				}
			case s.WritesData():
				ps.mode = exec
			}
		}
	}
	return nil
}

// Reconnect replaces a lost connection in place (workload.Reconnector):
// the statements are prepared again on a new one, and the VU keeps its
// random stream, its generator and the instance's sequences, so that it
// goes on where it was rather than drawing its first values again.
func (v *vu) Reconnect(ctx context.Context) error {
	v.close()
	c, err := v.in.Connect(ctx)
	if err != nil {
		return err
	}
	if err := v.prepare(ctx, c); err != nil {
		c.Close()
		return err
	}
	return nil
}

// Event runs one transaction of the mix, drawn by weight (the same one
// again when the runner retries it), timed as its operation.
func (v *vu) Event(ctx context.Context, m workload.Meter) error {
	if v.cur < 0 || !m.Retrying() {
		v.cur = v.spec.Pick(v.src)
	}
	return v.event(ctx, m)
}

// event runs transaction v.cur, timed from its first attempt when the
// runner retries it (as the event's latency is), so that its response time
// spans every attempt.
func (v *vu) event(ctx context.Context, m workload.Meter) error {
	t := &v.txs[v.cur]
	sp := m.Start(v.cur)
	v.gen.Begin(sp.Start) // a timestamp parameter's origin: one clock read per event
	if m.Retrying() && !v.first.IsZero() {
		sp.Start = v.first
	} else {
		v.first = sp.Start
	}
	err := v.run(ctx, m, t)
	m.End(sp, err)
	return err
}

// run runs t's statements, each timed as its operation, in one database
// transaction (BEGIN and COMMIT timed too) unless it is autocommit; a
// failed statement rolls the transaction back.
func (v *vu) run(ctx context.Context, m workload.Meter, t *tx) error {
	inTx := !t.spec.Autocommit
	if inTx {
		begin := v.c.Begin
		if v.wb != nil && t.writes {
			begin = v.wb.BeginWrite
		}
		sp := m.Start(v.in.ops.begin)
		err := begin(ctx)
		m.End(sp, err)
		if err != nil {
			return err
		}
	}
	for i := range t.stmts {
		s := &t.stmts[i]
		sp := m.Start(s.op)
		err := v.exec(ctx, t, s)
		m.End(sp, err)
		if err != nil {
			if inTx {
				_ = v.c.Rollback(context.WithoutCancel(ctx))
			}
			return err
		}
	}
	if inTx {
		sp := m.Start(v.in.ops.commit)
		err := v.c.Commit(ctx)
		m.End(sp, err)
		return err
	}
	return nil
}

// errNoRow is a statement with into that returned no row: the statements
// after it have nothing to bind.
var errNoRow = errors.New("returned no row for its into")

// exec binds a statement's parameters (drawn, or returned by an earlier
// statement of t) and runs it.
func (v *vu) exec(ctx context.Context, t *tx, s *stmt) error {
	for i, sl := range s.slots {
		if sl.Param >= 0 {
			s.args[i] = arg(v.gen.Value(sl.Param))
		} else {
			s.args[i] = arg(&t.stmts[sl.Stmt].into[sl.Col])
		}
	}
	var err error
	switch s.mode {
	case exec:
		_, err = s.st.Exec(ctx, s.args...)
	case row:
		err = s.st.QueryRow(ctx, s.args, s.dest...)
		if errors.Is(err, dialect.ErrNoRows) {
			err = fmt.Errorf("%s: statement %s %w", t.spec.Name, s.name, errNoRow)
		}
	default:
		_, err = s.st.Drain(ctx, s.args...)
	}
	return err
}

// arg is a value as a statement binds it. A text is passed as a string
// over the Value's bytes, without a copy: the drivers copy it while the
// statement runs, before the value is drawn again.
func arg(v *workfile.Value) any {
	switch {
	case v.Null:
		return nil
	case v.Type == workfile.IntValue:
		return v.Int
	case v.Type == workfile.TimeValue:
		return v.Time
	case len(v.Text) == 0:
		return ""
	}
	return unsafe.String(&v.Text[0], len(v.Text))
}

func (v *vu) close() error {
	v.closeStmts()
	return v.c.Close()
}

// closeStmts closes the statements prepared on v's connection.
func (v *vu) closeStmts() {
	for i := range v.txs {
		for j := range v.txs[i].stmts {
			if st := v.txs[i].stmts[j].st; st != nil {
				st.Close()
				v.txs[i].stmts[j].st = nil
			}
		}
	}
}

func (v *vu) Close() error { return v.close() }

// paced reports whether the file sets keying or think times: its VUs then
// pause as it says (workload.Pacer), not by --think-time.
func (in *instance) paced() bool {
	for _, t := range in.spec.Transactions {
		if t.Keying > 0 || t.Think > 0 {
			return true
		}
	}
	return false
}

// pacedVU is a vu of a file with keying or think times. The transaction
// after each event is drawn at its end, so that the pause is this one's
// think time and the next one's keying time.
type pacedVU struct {
	*vu
	next int
}

// Event runs the transaction drawn at the previous pause (the first: one
// drawn now; a retry: the same again).
func (p *pacedVU) Event(ctx context.Context, m workload.Meter) error {
	switch {
	case p.cur >= 0 && m.Retrying():
	case p.next >= 0:
		p.cur, p.next = p.next, -1
	default:
		p.cur = p.spec.Pick(p.src)
	}
	return p.event(ctx, m)
}

// Pause is the event's think time (exponential when the file says so,
// truncated at ten means) and the keying time of the next transaction,
// drawn now.
func (p *pacedVU) Pause() time.Duration {
	d := p.txs[p.cur].spec.Think
	if p.txs[p.cur].spec.ThinkExponential && d > 0 {
		u := 1 - p.src.Float64() // (0, 1]
		d = time.Duration(math.Min(-math.Log(u), 10) * float64(d))
	}
	p.next = p.spec.Pick(p.src)
	return d + p.txs[p.next].spec.Keying
}

// scanner reads a returned column into a Value (into), reusing its bytes.
type scanner struct{ v *workfile.Value }

func (s scanner) Scan(src any) error {
	v := s.v
	v.Null = false
	switch x := src.(type) {
	case nil:
		v.Null = true
	case int64:
		v.Type, v.Int = workfile.IntValue, x
	case uint64: // MySQL's BIGINT UNSIGNED
		if x > math.MaxInt64 {
			v.Type, v.Text = workfile.TextValue, strconv.AppendUint(v.Text[:0], x, 10)
			break
		}
		v.Type, v.Int = workfile.IntValue, int64(x)
	case float32: // MySQL's FLOAT
		v.Type, v.Text = workfile.TextValue, strconv.AppendFloat(v.Text[:0], float64(x), 'f', -1, 32)
	case bool:
		v.Type, v.Int = workfile.IntValue, 0
		if x {
			v.Int = 1
		}
	case float64:
		v.Type, v.Text = workfile.TextValue, strconv.AppendFloat(v.Text[:0], x, 'f', -1, 64)
	case []byte:
		v.Type, v.Text = workfile.TextValue, append(v.Text[:0], x...)
	case string:
		v.Type, v.Text = workfile.TextValue, append(v.Text[:0], x...)
	case time.Time:
		v.Type, v.Time = workfile.TimeValue, x
	default:
		return fmt.Errorf("a value of type %T", src)
	}
	return nil
}

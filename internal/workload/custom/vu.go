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
	"github.com/rightsize/rightsize/internal/pgbenchscript"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
)

// How a statement runs: its rows read to the end, its rows affected, its
// first row kept for later statements (into), or a row stored in script
// variables (\gset, \aset).
const (
	drain = iota
	exec
	row
	store
)

// stmt is one statement prepared on a VU's connection, with what it binds.
type stmt struct {
	name  string
	line  int
	op    int // its operation (Meta.Ops); -1: a script's, timed with its transaction
	st    dialect.Stmt
	mode  int
	slots []workfile.Slot
	args  []any
	into  []workfile.Value // the first row's values (mode row)
	dest  []any            // scanners into into, built once
	// Mode store: the variables' prefix, whether exactly one row must
	// come (\gset), and the variable of each column (-1: none), once known.
	prefix string
	gset   bool
	cols   []int
}

// tx is one transaction of the spec on a VU: its statements prepared.
type tx struct {
	spec   *workfile.Transaction
	stmts  []stmt
	writes bool // a statement may write (SQLite: BEGIN IMMEDIATE)
}

// vu is one virtual user, the interpreter of a Spec: a connection with the
// spec's statements prepared on it, its parameters' generator and, for
// pgbench's scripts, its variables. Each event runs one transaction's
// actions in order.
type vu struct {
	in   *Instance
	c    dialect.Conn
	wb   dialect.WriteBeginner // nil unless the Conn must be told a transaction writes
	spec *workfile.Spec
	txs  []tx
	gen  *workfile.Gen
	src  *datagen.Source
	cur  int  // the transaction of the event in flight (a retry runs it again)
	inTx bool // a database transaction is open: a failure rolls it back
	// first is when the event in flight first started (its retries' spans
	// start there).
	first time.Time

	script // the scripts' state (zero for a file)
}

// NewVU opens one virtual user: a connection with every statement of the
// spec prepared on it (each rendered once for the database), and a
// generator of its parameters whose sequences the instance's VUs share.
func (in *Instance) NewVU(ctx context.Context, id int, seed uint64) (workload.VU, error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, err
	}
	v, err := in.newVU(ctx, c, id, seed)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: VU %d: %w", in.Target, id, err)
	}
	if in.paced() {
		return &pacedVU{vu: v, next: -1}, nil
	}
	return v, nil
}

func (in *Instance) newVU(ctx context.Context, c dialect.Conn, id int, seed uint64) (*vu, error) {
	v := &vu{in: in, spec: in.spec, src: datagen.NewSource(seed), cur: -1}
	v.gen = in.spec.NewSharedGen(v.src, in.seqs)
	if err := in.bindSamples(ctx, c, v.gen); err != nil {
		return nil, err
	}
	if err := v.setVars(ctx, c, id); err != nil {
		return nil, err
	}
	if err := v.prepare(ctx, c); err != nil {
		return nil, err
	}
	return v, nil
}

// prepare binds v to connection c: every statement of the spec prepared
// on it. On error the statements prepared so far are closed, not c.
func (v *vu) prepare(ctx context.Context, c dialect.Conn) error {
	in := v.in
	v.c, v.inTx = c, false
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
				if t.Script {
					return fmt.Errorf("%s:%d: %w", t.Source, s.Line, err)
				}
				return fmt.Errorf("transaction %s, statement %s (%s:%d): %w", t.Name, s.Name, in.spec.File, s.Line, err)
			}
			ps := &v.txs[i].stmts[j]
			*ps = stmt{name: s.Name, line: s.Line, op: in.ops.stmt[i][j], st: st, slots: slots, args: make([]any, len(slots))}
			switch {
			case s.Store != pgbenchscript.Discard:
				ps.mode, ps.prefix, ps.gset = store, s.Prefix, s.Store == pgbenchscript.Gset
			case len(s.Into) > 0:
				ps.mode = row
				ps.into = make([]workfile.Value, len(s.Into))
				for k := range ps.into {
					ps.dest = append(ps.dest, scanner{&ps.into[k]})
				}
			case s.WritesData() && !t.Script: // a script's rows are read, as pgbench does
				ps.mode = exec
			}
		}
	}
	return nil
}

// Reconnect replaces a lost connection in place (workload.Reconnector):
// the statements are prepared again on a new one, and the VU keeps its
// random stream, its generator, its variables and the instance's
// sequences, so that it goes on where it was rather than drawing its
// first values again.
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
	if t.spec.Script {
		v.yielder, _ = m.(workload.Yielder)
	}
	err := v.run(ctx, m, t)
	if err != nil && v.inTx {
		_ = v.c.Rollback(context.WithoutCancel(ctx))
		v.inTx = false
	}
	m.End(sp, err)
	return err
}

// run runs t's actions in order: statements and BEGIN and COMMIT (each an
// operation of its own in a file's transaction), and a script's \set,
// \sleep and \if. A script's statements share its one span, so it offers
// its processor back before each round trip but the first
// (workload.Yielder): a script of several round trips would otherwise hold
// it for the whole of a long transaction.
func (v *vu) run(ctx context.Context, m workload.Meter, t *tx) error {
	acts := t.spec.Actions
	sent := false
	for pc := 0; pc < len(acts); {
		a := &acts[pc]
		pc++
		if a.Kind <= workfile.Rollback && v.yielder != nil { // a round trip
			if sent {
				v.yielder.Yield()
			}
			sent = true
		}
		var err error
		switch a.Kind {
		case workfile.Run:
			s := &t.stmts[a.Stmt]
			v.inTx = v.inTx || a.Opens
			sp := start(m, s.op)
			err = v.exec(ctx, t, s)
			end(m, sp, s.op, err)
		case workfile.Begin:
			begin := v.c.Begin
			if v.wb != nil && t.writes {
				begin = v.wb.BeginWrite
			}
			sp := start(m, v.in.ops.begin)
			err = begin(ctx)
			end(m, sp, v.in.ops.begin, err)
			v.inTx = err == nil
		case workfile.Commit:
			v.inTx = false
			sp := start(m, v.in.ops.commit)
			err = v.c.Commit(ctx)
			end(m, sp, v.in.ops.commit, err)
		case workfile.Rollback:
			v.inTx = false
			err = v.c.Rollback(ctx)
		default:
			pc, err = v.step(ctx, a, pc)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// start and end time operation op, unless it is none (-1: a script's
// statement, BEGIN and COMMIT).
func start(m workload.Meter, op int) workload.Span {
	if op < 0 {
		return workload.Span{}
	}
	return m.Start(op)
}

func end(m workload.Meter, sp workload.Span, op int, err error) {
	if op >= 0 {
		m.End(sp, err)
	}
}

// errNoRow is a statement with into that returned no row: the statements
// after it have nothing to bind.
var errNoRow = errors.New("returned no row for its into")

// exec binds a statement's parameters (drawn, returned by an earlier
// statement of t, or a script's variables) and runs it.
func (v *vu) exec(ctx context.Context, t *tx, s *stmt) error {
	v.buf = v.buf[:0]
	for i, sl := range s.slots {
		switch {
		case sl.Param >= 0:
			s.args[i] = arg(v.gen.Value(sl.Param))
		case sl.Stmt >= 0:
			s.args[i] = arg(&t.stmts[sl.Stmt].into[sl.Col])
		default:
			a, err := v.varArg(sl.Var)
			if err != nil {
				return &ScriptError{Source: t.spec.Source, Line: s.line, Err: err}
			}
			s.args[i] = a
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
	case store:
		err = v.store(ctx, t, s)
	default:
		_, err = s.st.Drain(ctx, s.args...)
	}
	return err
}

// arg is a value as a statement binds it. A text is passed as a string
// over the Value's bytes, without a copy: the drivers copy it while the
// statement runs, before the value is drawn again.
func arg(v *workfile.Value) any { return value(v, text) }

// value is v as a driver takes it, its text made a string by str (a
// loader, which may keep a row until its batch is sent, takes a copy).
func value(v *workfile.Value, str func([]byte) string) any {
	switch {
	case v.Null:
		return nil
	case v.Type == workfile.IntValue:
		return v.Int
	case v.Type == workfile.TimeValue:
		return v.Time
	}
	return str(v.Text)
}

// text is b as a string without a copy: the driver copies it while the
// statement is sent, before b changes.
func text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
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
func (in *Instance) paced() bool {
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

package custom

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/pgbenchscript"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
)

// ScriptError is a script's command that failed at run time for a reason
// of its own (an undefined variable, a division by zero, a \gset without
// its one row), naming the script's file and line, as pgbench reports the
// command that aborted a client.
type ScriptError struct {
	Source string
	Line   int
	Err    error
}

func (e *ScriptError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Source, e.Line, e.Err) }
func (e *ScriptError) Unwrap() error { return e.Err }

// script is a virtual user's state for pgbench's scripts: its variables,
// which live across its transactions, and its buffers.
type script struct {
	vars  *pgbenchscript.State // nil for a file
	buf   []byte               // the text of the variables a statement binds
	row   [][]byte             // a \gset's row
	dest  []any
	timer *time.Timer
	// yielder is the event's Meter as a workload.Yielder (a script's
	// event), else nil.
	yielder workload.Yielder
}

// setVars gives a VU of scripts its variables: pgbench's predefined ones
// (:client_id is id) and the command line's -D.
func (v *vu) setVars(ctx context.Context, c dialect.Conn, id int) error {
	prog := v.spec.Vars
	if prog == nil {
		return nil
	}
	var scale int64 = 1
	if v.in.scale != nil {
		var err error
		if scale, err = v.in.scale(ctx, c); err != nil {
			return err
		}
	}
	v.vars = prog.NewState(v.src)
	random, dflt := v.in.seeds()
	for name, val := range map[string]int64{"scale": scale, "client_id": int64(id), "random_seed": random, "default_seed": dflt} {
		slot, _ := prog.Lookup(name)
		v.vars.SetInt(slot, val)
	}
	for _, d := range v.spec.Defines {
		slot, _ := prog.Lookup(d.Name)
		v.vars.SetText(slot, []byte(d.Value))
	}
	return nil
}

// varArg is a script variable as a statement binds it: an integer as
// itself, anything else as the text pgbench would send.
func (v *vu) varArg(slot int) (any, error) {
	val, txt, isText, err := v.vars.Arg(slot)
	switch {
	case err != nil:
		return nil, err
	case isText:
		return text(txt), nil
	case val.K == pgbenchscript.Int:
		return val.I, nil
	case val.K == pgbenchscript.Null:
		return nil, nil
	}
	start := len(v.buf)
	v.buf = val.AppendText(v.buf)
	return text(v.buf[start:]), nil
}

// step runs a script's meta command a (pc is the next action's index) and
// returns the index of the action after it. A failure is a ScriptError
// naming its line, unless the run was cancelled.
func (v *vu) step(ctx context.Context, a *workfile.Action, pc int) (int, error) {
	var err error
	if len(a.Loads) > 0 {
		v.load(a.Loads)
	}
	switch a.Kind {
	case workfile.Set:
		var val pgbenchscript.Value
		if val, err = v.vars.Eval(a.Expr); err == nil {
			v.vars.SetValue(a.Var, val)
		}
	case workfile.Branch:
		var val pgbenchscript.Value
		if val, err = v.vars.Eval(a.Expr); err == nil && !val.Truth() {
			pc = a.Jump
		}
	case workfile.Jump:
		pc = a.Jump
	case workfile.Sleep:
		err = v.sleep(ctx, a)
	}
	if err != nil && ctx.Err() == nil {
		err = &ScriptError{Source: v.txs[v.cur].spec.Source, Line: a.Line, Err: err}
	}
	return pc, err
}

// load copies what a file's set or if reads into its variables: the
// parameters (drawn once per event, as a statement sees them) and the
// values returned by earlier statements; an integer as itself, a time as
// RFC 3339 text, anything else as its text (pgbench reads a numeric text
// as a number).
func (v *vu) load(loads []workfile.Slot) {
	t := &v.txs[v.cur]
	for _, l := range loads {
		var val *workfile.Value
		if l.Param >= 0 {
			val = v.gen.Value(l.Param)
		} else {
			val = &t.stmts[l.Stmt].into[l.Col]
		}
		switch {
		case val.Null:
			v.vars.SetValue(l.Var, pgbenchscript.Value{})
		case val.Type == workfile.IntValue:
			v.vars.SetInt(l.Var, val.Int)
		case val.Type == workfile.TimeValue:
			v.buf = val.Time.AppendFormat(v.buf[:0], time.RFC3339Nano)
			v.vars.SetText(l.Var, v.buf)
		default:
			v.vars.SetText(l.Var, val.Text)
		}
	}
}

// sleep is \sleep: its time counts in the transaction's, as in pgbench.
func (v *vu) sleep(ctx context.Context, a *workfile.Action) error {
	us := a.Micros
	if a.Var >= 0 {
		val, txt, isText, err := v.vars.Arg(a.Var)
		if err != nil {
			return err
		}
		n := val.I
		if isText {
			n, _ = strconv.ParseInt(string(txt), 10, 64) // atoi, as pgbench
		} else if val.K != pgbenchscript.Int {
			n, err = strconv.ParseInt(val.String(), 10, 64)
			if err != nil {
				return fmt.Errorf("invalid sleep time %q", val.String())
			}
		}
		us *= n
	}
	if us <= 0 {
		return nil
	}
	d := time.Duration(us) * time.Microsecond
	if v.timer == nil {
		v.timer = time.NewTimer(d)
	} else {
		v.timer.Reset(d)
	}
	select {
	case <-v.timer.C:
		return nil
	case <-ctx.Done():
		v.timer.Stop()
		return ctx.Err()
	}
}

// store runs a statement with \gset or \aset and stores its row's columns
// in the variables of their names (with the prefix); columns no script
// reads are not kept.
func (v *vu) store(ctx context.Context, t *tx, s *stmt) error {
	fail := func(err error) error { return &ScriptError{Source: t.spec.Source, Line: s.line, Err: err} }
	if s.cols == nil {
		cn, ok := s.st.(dialect.Columner)
		if !ok {
			return fail(errors.New("the database does not name a statement's columns: \\gset and \\aset need it"))
		}
		s.cols = []int{}
		for _, name := range cn.Columns() {
			slot, ok := v.spec.Vars.Lookup(s.prefix + name)
			if !ok {
				slot = -1
			}
			s.cols = append(s.cols, slot)
		}
	}
	for len(v.row) < len(s.cols) {
		v.row = append(v.row, nil)
	}
	v.dest = v.dest[:0]
	for i := range s.cols {
		v.dest = append(v.dest, &v.row[i])
	}
	rows, err := s.st.Query(ctx, s.args...)
	if err != nil {
		return err
	}
	n := 0
	for rows.Next() {
		n++
		if err := rows.Scan(v.dest...); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if s.gset && n != 1 {
		return fail(fmt.Errorf("\\gset: expected one row, got %d", n))
	}
	if n == 0 {
		return nil // \aset of no row sets nothing
	}
	for i, slot := range s.cols {
		if slot >= 0 {
			v.vars.SetText(slot, v.row[i])
		}
	}
	return nil
}

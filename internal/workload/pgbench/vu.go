package pgbench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unsafe"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/pgbenchscript"
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

// script is one script on a VU's connection: its SQL commands prepared.
type script struct {
	s     *pgbenchscript.Script
	stmts []dialect.Stmt // by command; nil for a meta command and transaction control
	cols  [][]int        // by command: \gset's and \aset's slot per result column (-1: unused), once known
}

// vu is one pgbench client: a connection with every statement prepared,
// its variables and its random stream.
type vu struct {
	in      *instance
	c       dialect.Conn
	st      *pgbenchscript.State
	src     *datagen.Source
	scripts []script
	cur     int  // the script of the event in flight (a retry runs it again)
	inTx    bool // a transaction is open: a failed command rolls it back
	first   time.Time

	args  []any
	buf   []byte
	row   [][]byte // a \gset's row
	dest  []any
	timer *time.Timer
	// yielder is the event's Meter as a workload.Yielder, nil if it is none.
	yielder workload.Yielder
}

// NewVU opens one client: a connection with every script's statements
// prepared, its predefined variables set (:client_id is id).
func (in *instance) NewVU(ctx context.Context, id int, seed uint64) (workload.VU, error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, err
	}
	scale, err := in.scaleFor(ctx, c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: VU %d: %w", in.Target, id, err)
	}
	v := &vu{in: in, src: datagen.NewSource(seed), cur: -1}
	v.st = in.prog.NewState(v.src)
	random, dflt := in.seeds()
	for name, val := range map[string]int64{"scale": scale, "client_id": int64(id), "random_seed": random, "default_seed": dflt} {
		slot, _ := in.prog.Lookup(name)
		v.st.SetInt(slot, val)
	}
	for _, d := range in.defs {
		slot, _ := in.prog.Lookup(d.name)
		v.st.SetText(slot, []byte(d.value))
	}
	if err := v.prepare(ctx, c); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: VU %d: %w", in.Target, id, err)
	}
	return v, nil
}

// prepare binds v to c: every SQL command of every script prepared but
// transaction control, which the connection sends itself (BEGIN with the
// statement after it). On error the statements prepared so far are closed,
// not c.
func (v *vu) prepare(ctx context.Context, c dialect.Conn) error {
	v.c, v.inTx = c, false
	v.scripts = make([]script, len(v.in.prog.Scripts))
	for i, s := range v.in.prog.Scripts {
		sc := script{s: s, stmts: make([]dialect.Stmt, len(s.Cmds)), cols: make([][]int, len(s.Cmds))}
		v.scripts[i] = sc
		for k := range s.Cmds {
			cmd := &s.Cmds[k]
			if cmd.Kind != pgbenchscript.SQL || cmd.Tx == pgbenchscript.Begin || cmd.Tx == pgbenchscript.Commit || cmd.Tx == pgbenchscript.Rollback {
				continue
			}
			st, err := c.Prepare(ctx, cmd.SQL)
			if err != nil {
				v.closeStmts()
				return fmt.Errorf("%s:%d: %w", s.Source, cmd.Line, err)
			}
			sc.stmts[k] = st
			if n := len(cmd.Params); n > len(v.args) {
				v.args = make([]any, n)
			}
		}
	}
	return nil
}

// Reconnect replaces a lost connection in place, keeping the client's
// variables and random stream.
func (v *vu) Reconnect(ctx context.Context) error {
	v.closeStmts()
	v.c.Close()
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

// choose draws a script by weight, as pgbench does.
func (v *vu) choose() int {
	if len(v.scripts) == 1 {
		return 0
	}
	w := int64(v.src.IntN(int(v.in.total)))
	for i, wt := range v.in.weights {
		if w -= int64(wt); w < 0 {
			return i
		}
	}
	return len(v.scripts) - 1
}

// Event runs one script, chosen by weight (the same again when the runner
// retries it), timed as its operation from its first attempt.
func (v *vu) Event(ctx context.Context, m workload.Meter) error {
	retry := v.cur >= 0 && m.Retrying()
	if !retry {
		v.cur = v.choose()
	}
	sp := m.Start(v.cur)
	if retry && !v.first.IsZero() {
		sp.Start = v.first
	} else {
		v.first = sp.Start
	}
	v.yielder, _ = m.(workload.Yielder)
	err := v.run(ctx, &v.scripts[v.cur])
	if err != nil && v.inTx {
		_ = v.c.Rollback(context.WithoutCancel(ctx))
		v.inTx = false
	}
	m.End(sp, err)
	return err
}

// run runs a script's commands in order, following its \if blocks. Before
// each SQL command but the first it offers the VU's processor back
// (workload.Yielder): one span covers the whole script, and a script of
// several round trips would otherwise hold its processor for the whole of
// a long transaction.
func (v *vu) run(ctx context.Context, sc *script) error {
	cmds := sc.s.Cmds
	sent := false
	for pc := 0; pc < len(cmds); {
		cmd := &cmds[pc]
		next := pc + 1
		var err error
		switch cmd.Kind {
		case pgbenchscript.Set:
			var val pgbenchscript.Value
			if val, err = v.st.Eval(cmd.Expr); err == nil {
				v.st.SetValue(cmd.Var, val)
			}
		case pgbenchscript.If:
			var val pgbenchscript.Value
			if val, err = v.st.Eval(cmd.Expr); err == nil && !val.Truth() {
				next = cmd.Jump
			}
		case pgbenchscript.Jump:
			next = cmd.Jump
		case pgbenchscript.Sleep:
			err = v.sleep(ctx, cmd)
		case pgbenchscript.SQL:
			if sent && v.yielder != nil {
				v.yielder.Yield()
			}
			sent = true
			err = v.sql(ctx, sc, pc)
		}
		if err != nil {
			if cmd.Kind != pgbenchscript.SQL && ctx.Err() == nil {
				err = &ScriptError{Source: sc.s.Source, Line: cmd.Line, Err: err}
			}
			return err
		}
		pc = next
	}
	return nil
}

// sleep is \sleep: its time counts in the transaction's, as in pgbench.
func (v *vu) sleep(ctx context.Context, cmd *pgbenchscript.Command) error {
	us := cmd.Sleep
	if cmd.Var >= 0 {
		val, text, isText, err := v.st.Arg(cmd.Var)
		if err != nil {
			return err
		}
		n := val.I
		if isText {
			n, _ = strconv.ParseInt(string(text), 10, 64) // atoi, as pgbench
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

// sql runs command k of sc: transaction control through the connection,
// any other statement prepared, with its variables as parameters.
func (v *vu) sql(ctx context.Context, sc *script, k int) error {
	cmd := &sc.s.Cmds[k]
	switch cmd.Tx {
	case pgbenchscript.Begin:
		v.inTx = true
		return v.c.Begin(ctx)
	case pgbenchscript.Commit:
		v.inTx = false
		return v.c.Commit(ctx)
	case pgbenchscript.Rollback:
		v.inTx = false
		return v.c.Rollback(ctx)
	case pgbenchscript.Starts:
		v.inTx = true
	}
	args, err := v.bind(cmd)
	if err != nil {
		return &ScriptError{Source: sc.s.Source, Line: cmd.Line, Err: err}
	}
	st := sc.stmts[k]
	if cmd.Result == pgbenchscript.Discard {
		_, err = st.Drain(ctx, args...)
		clear(args)
		return err
	}
	err = v.store(ctx, sc, k, args)
	clear(args)
	return err
}

// bind sets the statement's arguments from its variables: an integer as
// itself, anything else as the text pgbench would send.
func (v *vu) bind(cmd *pgbenchscript.Command) ([]any, error) {
	args := v.args[:len(cmd.Params)]
	v.buf = v.buf[:0]
	for i, slot := range cmd.Params {
		val, text, isText, err := v.st.Arg(slot)
		if err != nil {
			return nil, err
		}
		switch {
		case isText:
			args[i] = v.text(text)
		case val.K == pgbenchscript.Int:
			args[i] = val.I
		case val.K == pgbenchscript.Null:
			args[i] = nil
		default:
			start := len(v.buf)
			v.buf = val.AppendText(v.buf)
			args[i] = v.text(v.buf[start:])
		}
	}
	return args, nil
}

// text is b as a string without a copy: the driver copies it while the
// statement is sent, before b changes.
func (v *vu) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// store runs a statement with \gset or \aset and stores its row's columns
// in the variables of their names (with the prefix); columns no script
// reads are not kept.
func (v *vu) store(ctx context.Context, sc *script, k int, args []any) error {
	cmd := &sc.s.Cmds[k]
	st := sc.stmts[k]
	slots := sc.cols[k]
	if slots == nil {
		cn, ok := st.(dialect.Columner)
		if !ok {
			return &ScriptError{Source: sc.s.Source, Line: cmd.Line, Err: errors.New("the database does not name a statement's columns: \\gset and \\aset need it")}
		}
		for _, name := range cn.Columns() {
			slot, ok := v.in.prog.Lookup(cmd.Prefix + name)
			if !ok {
				slot = -1
			}
			slots = append(slots, slot)
		}
		if slots == nil {
			slots = []int{}
		}
		sc.cols[k] = slots
	}
	for len(v.row) < len(slots) {
		v.row = append(v.row, nil)
	}
	v.dest = v.dest[:0]
	for i := range slots {
		v.dest = append(v.dest, &v.row[i])
	}
	rows, err := st.Query(ctx, args...)
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
	if cmd.Result == pgbenchscript.Gset && n != 1 {
		return &ScriptError{Source: sc.s.Source, Line: cmd.Line, Err: fmt.Errorf("\\gset: expected one row, got %d", n)}
	}
	if n == 0 {
		return nil // \aset of no row sets nothing
	}
	for i, slot := range slots {
		if slot >= 0 {
			v.st.SetText(slot, v.row[i])
		}
	}
	return nil
}

func (v *vu) closeStmts() {
	for i := range v.scripts {
		for k, st := range v.scripts[i].stmts {
			if st != nil {
				st.Close()
				v.scripts[i].stmts[k] = nil
			}
		}
	}
}

// Close closes the client's statements and connection.
func (v *vu) Close() error {
	v.closeStmts()
	return v.c.Close()
}

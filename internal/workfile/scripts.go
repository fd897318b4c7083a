package workfile

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/pgbenchscript"
)

// FromScripts compiles checked pgbench scripts into a Spec, one
// transaction per script: each command an action at the same index (so
// that the \if jumps stand), each SQL command but transaction control a
// statement whose slots are the script variables it sends. The Spec runs
// on PostgreSQL, creates no table (the pgbench workload makes its own) and
// names the variables (Vars) the interpreter keeps per virtual user.
func FromScripts(name string, prog *pgbenchscript.Program, defines []Define) *Spec {
	s := &Spec{Name: name, File: name, Dialects: []string{Postgres}, Vars: prog, Defines: defines}
	names := prog.Names()
	for _, sc := range prog.Scripts {
		tx := Transaction{Name: sc.Name, Weight: int64(sc.Weight), Autocommit: true, Script: true, Source: sc.Source}
		for _, cmd := range sc.Cmds {
			a := Action{Line: cmd.Line, Var: -1}
			switch cmd.Kind {
			case pgbenchscript.SQL:
				a.Kind = scriptTx[cmd.Tx]
				if a.Kind == Run {
					a.Stmt, a.Opens = len(tx.Statements), cmd.Tx == pgbenchscript.Starts
					tx.Statements = append(tx.Statements, scriptStatement(sc.Name, &cmd, names, len(tx.Statements)))
				}
			case pgbenchscript.Set:
				a.Kind, a.Var, a.Expr = Set, cmd.Var, cmd.Expr
			case pgbenchscript.Sleep:
				a.Kind, a.Var, a.Micros = Sleep, cmd.Var, cmd.Sleep
			case pgbenchscript.If:
				a.Kind, a.Expr, a.Jump = Branch, cmd.Expr, cmd.Jump
			case pgbenchscript.Jump:
				a.Kind, a.Jump = Jump, cmd.Jump
			}
			tx.Actions = append(tx.Actions, a)
		}
		s.Transactions = append(s.Transactions, tx)
	}
	s.buildMix()
	return s
}

// scriptTx is the action of a script's SQL command by what it does to the
// transaction: BEGIN, COMMIT and ROLLBACK go through the connection, any
// other statement (a BEGIN with options too) is run as written.
var scriptTx = [...]ActionKind{
	pgbenchscript.NoTx:     Run,
	pgbenchscript.Begin:    Begin,
	pgbenchscript.Commit:   Commit,
	pgbenchscript.Rollback: Rollback,
	pgbenchscript.Starts:   Run,
}

// scriptStatement is a script's SQL command as a statement: its SQL with
// $n placeholders, each bound to the variable it names; a statement that
// does not only read is counted as writing tables rightsize cannot name.
func scriptStatement(script string, cmd *pgbenchscript.Command, names []string, i int) Statement {
	f := Form{SQL: cmd.SQL, line: cmd.Line, columns: -1}
	for _, v := range cmd.Params {
		f.Slots = append(f.Slots, Slot{Name: names[v], Param: -1, Stmt: -1, Var: v})
	}
	return Statement{
		Name: fmt.Sprintf("%s_%d", script, i+1), Line: cmd.Line, Forms: []Form{f},
		Opaque: !cmd.Reads, Store: cmd.Result, Prefix: cmd.Prefix,
		what: fmt.Sprintf("line %d", cmd.Line),
	}
}

// ReadOnly reports whether no statement of the transaction may change
// data.
func (tx *Transaction) ReadOnly() bool { return !tx.Writes() }
